// Trial blocks across MPI ranks, the parts that run in one process: accumulators survive the block codec bit for bit
// (trivially copyable ones, vectors, maps, and the tuples of fields the sweeps expose), truncated or padded bytes are
// refused, and outside an MPI job run_parallel_trials splits nothing and gathers only its own bytes. The multi-rank
// runs themselves are tests/mpi_check.sh (ctest, when built with MPI).
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "mc/block_codec.hpp"
#include "mc/distribution.hpp"
#include "mc/parallel_trials.hpp"
#include "stats/running_covariance.hpp"
#include "stats/running_moments.hpp"

using namespace favorlab;

namespace {

struct Cell {
  RunningMoments error;
  std::int64_t nonfinite = 0;
};

struct Acc {
  std::vector<Cell> cells;
  std::vector<RunningCovariance> pairs;
  std::map<std::uint64_t, std::int64_t> tally;
  auto fields() { return std::tie(cells, pairs, tally); }
  void merge(const Acc& o) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      cells[i].error.merge(o.cells[i].error);
      cells[i].nonfinite += o.cells[i].nonfinite;
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i].merge(o.pairs[i]);
    for (const auto& [k, c] : o.tally) tally[k] += c;
  }
};

struct NotEncodable {
  std::vector<std::string> names;
  void merge(const NotEncodable&) {}
};

}  // namespace

TEST_CASE("block codec: accumulators round trip bit for bit, bad bytes are refused", "[distribution]") {
  Acc a{std::vector<Cell>(3), std::vector<RunningCovariance>(2), {}};
  for (int t = 0; t < 100; ++t) {
    const double x = std::sin(t * 0.7), y = std::cos(t * 1.3);
    a.cells[static_cast<std::size_t>(t % 3)].error.add(x);
    a.cells[2].nonfinite += t % 7 == 0;
    a.pairs[static_cast<std::size_t>(t % 2)].add(x, y);
    ++a.tally[static_cast<std::uint64_t>(t % 5) * 1000];
  }
  std::string bytes;
  encode_block(a, bytes);
  Acc b{std::vector<Cell>(1), {}, {{7, 7}}};
  std::string_view in = bytes;
  decode_block(in, b);
  CHECK(in.empty());
  REQUIRE(b.cells.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(b.cells[i].error.count() == a.cells[i].error.count());
    CHECK(b.cells[i].error.mean() == a.cells[i].error.mean());      // exact: the same bits
    CHECK(b.cells[i].error.variance() == a.cells[i].error.variance());
    CHECK(b.cells[i].nonfinite == a.cells[i].nonfinite);
  }
  CHECK(b.pairs[1].covariance() == a.pairs[1].covariance());
  CHECK(b.tally == a.tally);

  // Two blocks back to back decode in order; a truncated stream is refused.
  std::string two;
  encode_block(a, two);
  encode_block(b, two);
  std::string_view both = two;
  Acc c, e;
  decode_block(both, c);
  decode_block(both, e);
  CHECK(both.empty());
  CHECK(e.tally == a.tally);
  std::string_view cut = std::string_view(bytes).substr(0, bytes.size() - 3);
  Acc d;
  CHECK_THROWS_AS(decode_block(cut, d), std::runtime_error);

  // Trivially copyable accumulators are their bytes.
  RunningMoments m;
  m.add(1.5);
  m.add(-2.25);
  std::string mb;
  encode_block(m, mb);
  CHECK(mb.size() == sizeof(RunningMoments));
  STATIC_REQUIRE(BlockEncodable<RunningMoments>);
  STATIC_REQUIRE(BlockEncodable<Acc>);
  STATIC_REQUIRE_FALSE(BlockEncodable<NotEncodable>);
}

TEST_CASE("outside an MPI job nothing is split: one rank, own bytes back, same totals", "[distribution]") {
  const RankInfo r = process_ranks();
  CHECK(r.rank == 0);
  CHECK(r.size == 1);
  {
    TrialDistributionScope scope;
    CHECK(active_trial_distribution().size == 1);
    CHECK(all_gather_bytes("abc") == std::vector<std::string>{"abc"});
    CHECK_FALSE(any_rank_failed(false));
    CHECK(any_rank_failed(true));
  }
  auto run = [](int threads) {
    return run_parallel_trials(100000, threads, RunningMoments{},
                               [](std::int64_t t, RunningMoments& acc) { acc.add(std::sin(static_cast<double>(t))); });
  };
  TrialDistributionScope scope;
  const RunningMoments one = run(1), two = run(2);
  CHECK(one.count() == 100000);
  CHECK(one.mean() == two.mean());
  CHECK(one.variance() == two.variance());
}
