#pragma once
// An exactly uniform integer in [0, bound) from a PhiloxStream, by rejection: a 64-bit word r is accepted when it lies
// below the largest multiple of `bound` that fits in 2^64, so r % bound is uniform with no modulo bias. At most half
// of the words are rejected (far fewer for small bounds), and the result depends only on the stream's (seed, stream,
// index) — the determinism contract of PhiloxStream carries over.
#include <cstdint>
#include <stdexcept>

#include "rng/philox_stream.hpp"

namespace favorlab {

inline std::uint64_t uniform_index(PhiloxStream& rng, std::uint64_t bound) {
  if (bound == 0) throw std::invalid_argument("uniform_index: bound must be positive");
  // 2^64 mod bound, computed in 64-bit arithmetic as (2^64 − bound) mod bound.
  const std::uint64_t reject_below = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t r = rng.bits();
    // Words in [0, reject_below) are the surplus of 2^64 over a multiple of bound; dropping them leaves a multiple.
    if (r >= reject_below) return r % bound;
  }
}

}  // namespace favorlab
