#pragma once
// Counter-based random stream (Random123 Philox4x64-10).
// Contract: the sequence produced depends only on (seed, stream, index) — never on the thread that draws it or on
// what other streams drew before — so Monte Carlo results are identical for any thread count.
// key = (seed, stream); counter = (index, block, 0, 0); each block yields four 64-bit words.
#include <Random123/philox.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace favorlab {

class PhiloxStream {
 public:
  PhiloxStream(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    key_ = {{seed, stream}};
    counter_ = {{index, 0, 0, 0}};
  }

  std::uint64_t bits() {
    if (word_ == 4) refill();
    return words_[word_++];
  }

  // Uniform on the open interval (0, 1): 53 random bits, offset by half a step so neither end is reachable.
  double uniform() { return (static_cast<double>(bits() >> 11) + 0.5) * 0x1.0p-53; }

  // Standard normal by the Box–Muller transform: from two uniforms u₁ then u₂, r = √(−2 ln u₁), θ = 2π u₂, the pair
  // (r cos θ, r sin θ); values come in pairs, the second is kept for the next call.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double pair[2];
    box_muller(1, pair);
    spare_ = pair[1];
    has_spare_ = true;
    return pair[0];
  }

  // n standard normals into out[0 .. n): the same values, bit for bit, as n calls of normal() (a kept second value
  // first, and the last pair's second value kept when n runs out in the middle of one), with the pairs' logarithms,
  // sines and cosines taken several at a time. n ≤ 0 draws nothing.
  void normals(double* out, std::ptrdiff_t n);

 private:
  // Draws `pairs` pairs of uniforms (u₁ then u₂, pair by pair, in stream order) and writes each pair's r cos θ and
  // r sin θ to out[2p] and out[2p + 1] (philox_stream.cpp: SIMD log and sincos, the same for every batch size).
  void box_muller(std::ptrdiff_t pairs, double* out);

  void refill() {
    const auto out = generator_(counter_, key_);
    for (int i = 0; i < 4; ++i) words_[i] = out.v[i];
    ++counter_.v[1];
    word_ = 0;
  }

  r123::Philox4x64 generator_;
  r123::Philox4x64::key_type key_;
  r123::Philox4x64::ctr_type counter_;
  std::array<std::uint64_t, 4> words_{};
  int word_ = 4;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace favorlab
