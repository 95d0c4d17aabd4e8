#include "evaluation/synthetic_heads.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/random_inputs.hpp"

namespace favorlab {

namespace {

// Streams of the synthetic heads (disjoint from the projection streams and those of gaussian_attention_input).
constexpr std::uint64_t kHeadsQueryStream = 0xA77E'2000ULL, kHeadsKeyStream = 0xA77E'2001ULL,
                        kHeadsValueStream = 0xA77E'2002ULL;

// Input number of head h of layer `layer`: layers are far apart so their heads never share streams.
std::uint64_t input_index(std::uint64_t layer, int head) {
  return (layer << 20) + static_cast<std::uint64_t>(head);
}

}  // namespace

std::string_view synthetic_heads_name(SyntheticHeads kind) {
  switch (kind) {
    case SyntheticHeads::gaussian: return "gaussian";
    case SyntheticHeads::low_rank: return "low-rank";
    case SyntheticHeads::one_hot: return "one-hot";
    case SyntheticHeads::uniform: return "uniform";
    case SyntheticHeads::query_zero: return "query-zero";
  }
  return "unknown";
}

std::vector<SyntheticHeads> all_synthetic_heads() {
  return {SyntheticHeads::gaussian, SyntheticHeads::low_rank, SyntheticHeads::one_hot, SyntheticHeads::uniform,
          SyntheticHeads::query_zero};
}

std::vector<AttentionInput> synthetic_heads(SyntheticHeads kind, int heads, int L, int d, int dv, std::uint64_t seed,
                                            std::uint64_t layer) {
  if (heads < 1 || L < 1 || d < 1 || dv < 1)
    throw std::invalid_argument("synthetic heads: heads, L, d and dv must be at least 1");
  std::vector<AttentionInput> out;
  for (int h = 0; h < heads; ++h) {
    const std::uint64_t index = input_index(layer, h);
    AttentionInput in;
    in.v = gaussian_input(L, dv, 1.0, seed, kHeadsValueStream, index);
    switch (kind) {
      case SyntheticHeads::gaussian: {
        const double s = heads == 1 ? 0.4 : 0.4 * std::pow(2.5, static_cast<double>(h) / (heads - 1));
        in.q = gaussian_input(L, d, s, seed, kHeadsQueryStream, index);
        in.k = gaussian_input(L, d, s, seed, kHeadsKeyStream, index);
        break;
      }
      case SyntheticHeads::low_rank: {
        in.q = gaussian_input(L, d, 1.0, seed, kHeadsQueryStream, index);
        const Eigen::MatrixXd prototypes = gaussian_input(kLowRank, d, 1.0, seed, kHeadsKeyStream, index);
        in.k.resize(L, d);
        for (int j = 0; j < L; ++j) in.k.row(j) = prototypes.row(j % kLowRank);
        break;
      }
      case SyntheticHeads::one_hot: {
        Eigen::MatrixXd u = gaussian_input(L, d, 1.0, seed, kHeadsQueryStream, index);
        u.rowwise().normalize();
        double max_cos = -1;
        if (L > 1) {
          Eigen::MatrixXd cos = u * u.transpose();
          cos.diagonal().setConstant(-1);
          max_cos = cos.maxCoeff();
        }
        // Distinct directions (max cos < 1): the margin holds exactly; coincident ones (possible only for tiny d)
        // cannot be separated and the head is then simply a very peaked one.
        const double gap = std::max(1.0 - max_cos, 1e-3);
        const double c = std::sqrt(kOneHotMargin * std::sqrt(static_cast<double>(d)) / gap);
        in.q = c * u;
        in.k = in.q;
        break;
      }
      case SyntheticHeads::uniform:
        in.q = Eigen::MatrixXd::Zero(L, d);
        in.k = Eigen::MatrixXd::Zero(L, d);
        break;
      case SyntheticHeads::query_zero:
        in.q = Eigen::MatrixXd::Zero(L, d);
        in.k = gaussian_input(L, d, 1.0, seed, kHeadsKeyStream, index);
        break;
    }
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace favorlab
