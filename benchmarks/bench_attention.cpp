// Micro-benchmarks of the hot paths of FAVOR attention, each beside the plain GEMMs of the same shapes:
//   feature maps (projection + exp/sin/cos) on one 512-row block, d = 64, m = 256, float32
//   projections W X: dense GEMM, fast Hadamard (SORF) and Givens applies (double, as the library stores them)
//   causal FAVOR of one head at L = 4096 for several chunk sizes (the chunk default is chosen from these)
//   bidirectional FAVOR, PermuteFormer and exact attention of one head, and the four bare products of FAVOR
// One thread throughout (Eigen's own GEMM threads off): these compare kernels, not parallel efficiency.
// Counters: GEMM-equivalent FLOP/s where a GEMM is involved ("flops"), rows per second elsewhere.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include "attention/attend.hpp"
#include "attention/attention_features.hpp"
#include "attention/attention_projection.hpp"
#include "attention/bidirectional_favor_attention.hpp"
#include "attention/causal_favor_attention.hpp"
#include "attention/exact_attention.hpp"
#include "attention/permute_attention.hpp"
#include "attention/position_permutation.hpp"
#include "attention/random_inputs.hpp"
#include "features/structured_projection.hpp"
#include "kernels/geometry.hpp"
#include "mc/estimator_sweep.hpp"
#include "perm/permutation.hpp"
#include "perf/favor_products.hpp"
#include "rng/philox_stream.hpp"

using namespace favorlab;

namespace {

constexpr int kD = 64, kM = 256, kBlock = 512;

Matrix<float> input(int rows, int cols, std::uint64_t stream) {
  return gaussian_input(rows, cols, 1.0, 2021, 0xBE4C'0000 + stream, 0).cast<float>();
}

Matrix<float> projection() {
  AttentionConfig c;
  c.m = kM;
  return draw_attention_projection(c, kD, 2021, 0).cast<float>();
}

void set_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["flops"] =
      benchmark::Counter(flops_per_iteration * double(state.iterations()), benchmark::Counter::kIsRate);
}

// Feature maps: state.range(0) = Family.
void BM_FeatureMap(benchmark::State& state) {
  AttentionConfig c;
  c.features = static_cast<Family>(state.range(0));
  c.m = kM;
  const Matrix<float> u = input(kBlock, kD, 1) * 0.35f, w = projection();
  for (auto _ : state) benchmark::DoNotOptimize(attention_features<float>(u, w, c).values.data());
  set_flops(state, 2.0 * kBlock * kD * kM);  // the projection GEMM inside
  state.SetLabel(std::string(feature_kind_name(c.features)));
}
BENCHMARK(BM_FeatureMap)
    ->Arg(int(Family::positive))
    ->Arg(int(Family::trig))
    ->Arg(int(Family::hyperbolic))
    ->Arg(int(Family::relu));

// The GEMM alone of the feature map's shape: U Wᵀ, 512×64 · 64×256.
void BM_GemmProjection(benchmark::State& state) {
  const Matrix<float> u = input(kBlock, kD, 1), w = projection();
  Matrix<float> out(kBlock, kM);
  for (auto _ : state) {
    out.noalias() = u * w.transpose();
    benchmark::DoNotOptimize(out.data());
  }
  set_flops(state, 2.0 * kBlock * kD * kM);
}
BENCHMARK(BM_GemmProjection);

// The other two GEMM shapes of FAVOR: K'ᵀ [V, 1] (256×512 · 512×65) and Q' S (512×256 · 256×65).
void BM_GemmState(benchmark::State& state) {
  const Matrix<float> kf = input(kBlock, kM, 2), v = input(kBlock, kD + 1, 3);
  Matrix<float> s(kM, kD + 1);
  for (auto _ : state) {
    s.noalias() = kf.transpose() * v;
    benchmark::DoNotOptimize(s.data());
  }
  set_flops(state, 2.0 * kBlock * kM * (kD + 1));
}
BENCHMARK(BM_GemmState);

void BM_GemmOutput(benchmark::State& state) {
  const Matrix<float> qf = input(kBlock, kM, 4), s = input(kM, kD + 1, 5);
  Matrix<float> out(kBlock, kD + 1);
  for (auto _ : state) {
    out.noalias() = qf * s;
    benchmark::DoNotOptimize(out.data());
  }
  set_flops(state, 2.0 * kBlock * kM * (kD + 1));
}
BENCHMARK(BM_GemmOutput);

// Projections W X for n = 512 vectors (columns), m = d = state.range(0): dense, Hadamard, Givens.
void BM_ProjectionDense(benchmark::State& state) {
  const int d = int(state.range(0));
  PhiloxStream rng(2021, 7, 0);
  const Eigen::MatrixXd w = HadamardProjection::draw(d, d, RowNorms::chi, rng).dense();
  const Eigen::MatrixXd x = gaussian_input(d, kBlock, 1.0, 2021, 8, 0);
  Eigen::MatrixXd out(d, kBlock);
  for (auto _ : state) {
    out.noalias() = w * x;
    benchmark::DoNotOptimize(out.data());
  }
  set_flops(state, 2.0 * d * d * kBlock);
}
BENCHMARK(BM_ProjectionDense)->Arg(64)->Arg(256)->Arg(1024);

// A structured projection (HadamardProjection, GivensProjection) applied without forming W.
template <class Projection>
void BM_ProjectionStructured(benchmark::State& state) {
  const int d = int(state.range(0));
  PhiloxStream rng(2021, 7, 0);
  const Projection p = Projection::draw(d, d, RowNorms::chi, rng);
  const Eigen::MatrixXd x = gaussian_input(d, kBlock, 1.0, 2021, 8, 0);
  for (auto _ : state) benchmark::DoNotOptimize(p.apply(x).data());
  set_flops(state, 2.0 * d * d * kBlock);  // dense-equivalent, for comparison
}
BENCHMARK_TEMPLATE(BM_ProjectionStructured, HadamardProjection)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK_TEMPLATE(BM_ProjectionStructured, GivensProjection)->Arg(64)->Arg(256)->Arg(1024);

// One head at L = 4096.
constexpr int kL = 4096;

struct Head {
  Matrix<float> q = input(kL, kD, 10), k = input(kL, kD, 11), v = input(kL, kD, 12), w = projection();
};

const Head& head() {
  static const Head h;
  return h;
}

// Causal FAVOR, chunk = state.range(0).
void BM_CausalChunk(benchmark::State& state) {
  AttentionConfig c;
  c.causal = true;
  c.m = kM;
  c.chunk = int(state.range(0));
  const Head& h = head();
  for (auto _ : state) benchmark::DoNotOptimize(causal_favor_attention<float>(h.q, h.k, h.v, h.w, c).data());
  set_flops(state, favor_bare_product_flops(kL, kL, kD, kM, kD));  // of the bidirectional products, for scale
  state.counters["rows_per_s"] = benchmark::Counter(double(kL) * double(state.iterations()),
                                                    benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CausalChunk)->Arg(16)->Arg(32)->Arg(48)->Arg(64)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_Bidirectional(benchmark::State& state) {
  AttentionConfig c;
  c.m = kM;
  const Head& h = head();
  for (auto _ : state) benchmark::DoNotOptimize(bidirectional_favor_attention<float>(h.q, h.k, h.v, h.w, c, 1).data());
  set_flops(state, favor_bare_product_flops(kL, kL, kD, kM, kD));
}
BENCHMARK(BM_Bidirectional)->Unit(benchmark::kMillisecond);

// PermuteFormer of the same head (1-D, a random π, r = 1): against BM_Bidirectional, what the permutations cost.
void BM_PermuteBidirectional(benchmark::State& state) {
  AttentionConfig c;
  c.m = kM;
  const Head& h = head();
  const PermuteHead permute{random_permutation(kM, 2021, 0x5EED, 0), {}, 1.0};
  const PositionPermutation positions(permute, PermuteLayout::line(), kL);
  for (auto _ : state)
    benchmark::DoNotOptimize(permute_attention<float>(h.q, h.k, h.v, h.w, c, positions, 1.0, 1).data());
  set_flops(state, favor_bare_product_flops(kL, kL, kD, kM, kD));
}
BENCHMARK(BM_PermuteBidirectional)->Unit(benchmark::kMillisecond);

void BM_BareProducts(benchmark::State& state) {
  const Head& h = head();
  const std::vector<Matrix<float>> q{h.q}, k{h.k}, v{h.v};
  for (auto _ : state) benchmark::DoNotOptimize(favor_bare_products<float>(q, k, v, h.w, 1).front().data());
  set_flops(state, favor_bare_product_flops(kL, kL, kD, kM, kD));
}
BENCHMARK(BM_BareProducts)->Unit(benchmark::kMillisecond);

void BM_Exact(benchmark::State& state) {
  const Head& h = head();
  for (auto _ : state) benchmark::DoNotOptimize(exact_attention<float>(h.q, h.k, h.v, false, true, 1).data());
  set_flops(state, 2.0 * 2.0 * kL * kL * kD);  // Q Kᵀ and A V
}
BENCHMARK(BM_Exact)->Unit(benchmark::kMillisecond);

// The Monte Carlo estimator sweep of `favorlab mse` at its default grid (d = m = 16, 4 × 4 × 13 = 208 geometries,
// trig/positive/hyperbolic at m and positive at 2m, iid projections), one thread: estimator evaluations per second.
void BM_MseSweep(benchmark::State& state) {
  std::vector<Geometry> points;
  for (double xn : {0.1, 0.5, 1.0, 1.5})
    for (double yn : {0.1, 0.5, 1.0, 1.5})
      for (double c : {-1.0, -0.99, -0.9, -0.7, -0.5, -0.25, 0.0, 0.25, 0.5, 0.7, 0.9, 0.99, 1.0})
        points.push_back({xn, yn, c});
  SweepConfig config;
  config.d = 16;
  config.specs = {{Family::trig, 16}, {Family::positive, 16}, {Family::hyperbolic, 16},
                  {Family::positive, 32}};
  config.points = points;
  config.trials = state.range(0);
  std::int64_t evaluations = 0;
  for (auto _ : state) evaluations += run_estimator_sweep(config).evaluations;
  state.counters["evaluations_per_s"] = benchmark::Counter(double(evaluations), benchmark::Counter::kIsRate);
  // GEMM-equivalent work: per evaluation the two projections x Wᵀ, y Wᵀ (2·d·m multiply-adds each); the m of a
  // trig/hyperbolic feature counts once (sin/cos and ± share the projection).
  const double flops_per_sweep = double(config.trials) * double(points.size()) * 2.0 * 2.0 * 16.0 * (16 * 3 + 32);
  state.counters["flops"] =
      benchmark::Counter(flops_per_sweep * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MseSweep)->Arg(2048)->Unit(benchmark::kMillisecond);

// The GEMMs of those shapes alone: X Wᵀ with X 208×16 and W 16×16 and 32×16 (double), for X and Y.
void BM_GemmMseShape(benchmark::State& state) {
  const int m = int(state.range(0));
  const Eigen::MatrixXd x = gaussian_input(208, 16, 1.0, 2021, 20, 0), w = gaussian_input(m, 16, 1.0, 2021, 21, 0);
  Eigen::MatrixXd out(208, m);
  for (auto _ : state) {
    out.noalias() = x * w.transpose();
    benchmark::DoNotOptimize(out.data());
  }
  set_flops(state, 2.0 * 208 * 16 * m);
}
BENCHMARK(BM_GemmMseShape)->Arg(16)->Arg(32);

}  // namespace

int main(int argc, char** argv) {
  Eigen::setNbThreads(1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
