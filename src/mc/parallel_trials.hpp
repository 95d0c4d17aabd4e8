#pragma once
// Runs `trials` independent Monte Carlo trials on OpenMP threads with a reduction whose order never depends on the
// thread count: trials are cut into fixed blocks of kBlock, each block is accumulated sequentially into its own
// accumulator, and blocks are merged in index order, a wave of kWave blocks at a time (bounded memory).
// Together with counter-based streams (a trial's randomness depends on its index only) this makes results
// bit-identical for any --threads — and, inside a TrialDistributionScope of an MPI job of N ranks, for any N: block b
// of a wave is computed by rank b mod N, the blocks are exchanged (block_codec.hpp) and every rank merges all of them
// in the same index order (distribution.hpp). A failure on any rank makes every rank throw: the rank that failed its
// own exception, the others std::runtime_error "another rank of the MPI job failed".
//   Acc:  copyable, with merge(const Acc&); encodable by block_codec.hpp when run under MPI
//   body: void(std::int64_t trial, Acc& acc)     must not depend on anything but the trial index and acc
// Continuing a run: trials [first_trial, first_trial + trials) merged onto `initial` (the total of trials
// [0, first_trial)) give the same bits as one run of first_trial + trials trials when first_trial is a multiple of
// kTrialBlock — the blocks and their left-to-right merge are the same — so a sequential check's later look equals
// a fixed-size run of that size (mc/sequential_looks.hpp).
//         it runs on a thread of a team of `threads`, so omp_get_thread_num() < threads can index per-thread scratch
//         buffers (whose contents must not carry into the result)
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mc/block_codec.hpp"
#include "mc/distribution.hpp"

namespace favorlab {

using ProgressFn = std::function<void(std::int64_t done, std::int64_t total)>;

// Progress of part `part` (0-based) of `parts` equal parts, reported as progress of the whole.
inline ProgressFn part_progress(const ProgressFn& whole, std::size_t part, std::size_t parts) {
  if (!whole) return {};
  return [=](std::int64_t done, std::int64_t total) {
    whole(static_cast<std::int64_t>(part) * total + done, static_cast<std::int64_t>(parts) * total);
  };
}

inline constexpr std::int64_t kTrialBlock = 32;

template <class Acc, class Body>
Acc run_parallel_trials(std::int64_t trials, int threads, const Acc& zero, Body&& body,
                        const ProgressFn& progress = {}, std::int64_t first_trial = 0, const Acc* initial = nullptr) {
  constexpr std::int64_t kBlock = kTrialBlock, kWave = 512;
  const std::int64_t blocks = (trials + kBlock - 1) / kBlock;
  // An accumulator block_codec.hpp cannot encode is computed whole on every rank (correct, not faster).
  RankInfo ranks;
  if constexpr (BlockEncodable<Acc>) ranks = active_trial_distribution();
  Acc total = initial != nullptr ? *initial : zero;
  std::exception_ptr failure;
  for (std::int64_t wave = 0; wave < blocks; wave += kWave) {
    const std::int64_t count = std::min(kWave, blocks - wave);
    std::vector<Acc> parts(static_cast<std::size_t>(count), zero);
    // This rank's blocks of the wave: those with (wave + i) mod N = rank (all of them in a single process).
    std::vector<std::int64_t> mine;
    for (std::int64_t i = 0; i < count; ++i)
      if ((wave + i) % ranks.size == ranks.rank) mine.push_back(i);
    const auto n_mine = static_cast<std::int64_t>(mine.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (std::int64_t j = 0; j < n_mine; ++j) {
      const std::int64_t i = mine[static_cast<std::size_t>(j)];
      try {
        const std::int64_t first = (wave + i) * kBlock, last = std::min(trials, first + kBlock);
        for (std::int64_t t = first; t < last; ++t) body(first_trial + t, parts[static_cast<std::size_t>(i)]);
      } catch (...) {
#pragma omp critical(favorlab_trial_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (ranks.size > 1) {
      if (any_rank_failed(failure != nullptr)) {
        if (failure) std::rethrow_exception(failure);
        throw std::runtime_error("another rank of the MPI job failed");
      }
      if constexpr (BlockEncodable<Acc>) {
        std::string bytes;
        for (std::int64_t i : mine) encode_block(parts[static_cast<std::size_t>(i)], bytes);
        const std::vector<std::string> all = all_gather_bytes(bytes);
        for (int r = 0; r < ranks.size; ++r) {
          if (r == ranks.rank) continue;
          std::string_view in = all[static_cast<std::size_t>(r)];
          for (std::int64_t i = 0; i < count; ++i)
            if ((wave + i) % ranks.size == r) decode_block(in, parts[static_cast<std::size_t>(i)]);
          if (!in.empty()) throw std::runtime_error("block codec: bytes left over from rank " + std::to_string(r));
        }
      }
    }
    if (failure) std::rethrow_exception(failure);
    for (const Acc& part : parts) total.merge(part);
    if (progress) progress(std::min(trials, (wave + count) * kBlock), trials);
  }
  return total;
}

}  // namespace favorlab
