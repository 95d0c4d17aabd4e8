// Exact attention in bfloat16 through cuDNN's fused attention (attention/cuda/cudnn_attention.cu, --mechanism exact
// --precision bfloat16 --backend cuda): every output entry within the GPU's rounding bound
// (reduced_precision_exact.hpp with gpu_rounding_of, one rescale per key at most) of softmax attention in long double
// on the unrounded inputs, bidirectional (L_q ≠ L) and causal; and the check's power on the device's own outputs: its
// numbers held to float32's bound, a causal mask one key ahead and no mask at all fail it. Skips (with a WARN) where
// there is no GPU or the build has no cuDNN; scripts/gpu-check.sh runs it on a GPU.
#include <catch2/catch.hpp>

#include "attention/backend.hpp"
#include "attention/reduced_precision_exact.hpp"
#include "long_double_references.hpp"

using namespace favorlab;
using test::exact_long_double;
using test::kLongDoubleRounding;
using test::outside;

namespace {

bool cudnn_or_skip() {
  const CudaAvailability cudnn = cudnn_available();
  if (!cudnn.available) WARN("SKIPPED: cuDNN's fused attention unavailable: " << cudnn.reason);
  return cudnn.available;
}

Eigen::MatrixXf cudnn_exact(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v,
                            bool causal) {
  AttentionConfig c;
  c.mechanism = Mechanism::exact;
  c.causal = causal;
  c.precision = ProductPrecision::bfloat16;
  return attend_on_backend(Backend::cuda, {q}, {k}, {v}, Eigen::MatrixXd(0, q.cols()), c).front();
}

Eigen::MatrixXd gpu_bound(const Eigen::MatrixXf& q, const Eigen::MatrixXf& k, const Eigen::MatrixXf& v, bool causal,
                          ProductPrecision p = ProductPrecision::bfloat16) {
  return exact_precision_bound(q, k, v, gpu_rounding_of(p), causal, static_cast<int>(k.rows()));
}

}  // namespace

TEST_CASE("cuDNN exact attention in bfloat16: every entry within the GPU's rounding bound", "[cuda][precision]") {
  if (!cudnn_or_skip()) return;
  // d = 64 (cuDNN's kernels want a multiple of 8); lengths that are no multiple of a tile.
  const test::PrecisionHead h = test::random_precision_head(200, 64, 8, 1.0, 21);
  for (bool causal : {false, true}) {
    INFO((causal ? "causal" : "bidirectional, 150 queries"));
    const Eigen::MatrixXf q = causal ? h.q : Eigen::MatrixXf(h.q.topRows(150));
    const Eigen::MatrixXf gpu = cudnn_exact(q, h.k, h.v, causal);
    const Eigen::MatrixXd bound = gpu_bound(q, h.k, h.v, causal);
    REQUIRE(bound.allFinite());
    double worst = 0;
    CHECK(outside(gpu, exact_long_double(q, h.k, h.v, causal), bound,
                  exact_precision_bound(q, h.k, h.v, kLongDoubleRounding, causal), &worst) == 0);
    INFO("largest error / bound " << worst);
    // bfloat16 took place: the float32 kernel's numbers differ.
    AttentionConfig f32;
    f32.mechanism = Mechanism::exact;
    f32.causal = causal;
    const Eigen::MatrixXf tiled =
        attend_on_backend(Backend::cuda, {q}, {h.k}, {h.v}, Eigen::MatrixXd(0, q.cols()), f32).front();
    CHECK((gpu - tiled).cwiseAbs().maxCoeff() > 0);
  }
}

TEST_CASE("cuDNN exact attention in bfloat16: the bound's check fails a wrong format and wrong masks",
          "[cuda][precision]") {
  if (!cudnn_or_skip()) return;
  const test::PrecisionHead h = test::random_precision_head(96, 64, 8, 1.0, 9);
  const Eigen::Index l = h.k.rows();
  const Eigen::MatrixXd reference = exact_long_double(h.q, h.k, h.v);
  const Eigen::MatrixXd reference_bound = exact_precision_bound(h.q, h.k, h.v, kLongDoubleRounding);
  const Eigen::MatrixXf bidirectional = cudnn_exact(h.q, h.k, h.v, false);
  CHECK(outside(bidirectional, reference, gpu_bound(h.q, h.k, h.v, false, ProductPrecision::float32),
                reference_bound) > 0);
  const Eigen::MatrixXd causal = exact_long_double(h.q, h.k, h.v, true);
  const Eigen::MatrixXd causal_reference_bound = exact_precision_bound(h.q, h.k, h.v, kLongDoubleRounding, true);
  Eigen::MatrixXf shifted(l, h.q.cols());
  shifted << h.q.topRows(1), h.q.topRows(l - 1);
  const Eigen::MatrixXf ahead = cudnn_exact(shifted, h.k, h.v, true);
  CHECK(outside(ahead.bottomRows(l - 1), causal.topRows(l - 1), gpu_bound(h.q, h.k, h.v, true).topRows(l - 1),
                causal_reference_bound.topRows(l - 1)) > 0);
  CHECK(outside(bidirectional, causal, gpu_bound(h.q, h.k, h.v, true), causal_reference_bound) > 0);
  // The estimate of A V has no cuDNN path: refused, not computed otherwise.
  AttentionConfig unnormalized;
  unnormalized.mechanism = Mechanism::exact;
  unnormalized.renormalize = false;
  unnormalized.precision = ProductPrecision::bfloat16;
  CHECK_THROWS_WITH(
      attend_on_backend(Backend::cuda, {h.q}, {h.k}, {h.v}, Eigen::MatrixXd(0, h.q.cols()), unnormalized),
      Catch::Contains("cuDNN's fused attention always normalizes"));
}

TEST_CASE("the GPU's exact-attention bound has the power the device checks need, on any machine", "[precision]") {
  // The checks above on the CPU's own reference in bfloat16: with the GPU's looser model (one rescale per key), a
  // mask one key ahead and no mask at all still fall outside at d = 64, the shape the device tests use.
  const test::PrecisionHead h = test::random_precision_head(96, 64, 8, 1.0, 9);
  const Eigen::Index l = h.k.rows();
  const Eigen::MatrixXd causal = exact_long_double(h.q, h.k, h.v, true);
  const Eigen::MatrixXd causal_reference_bound = exact_precision_bound(h.q, h.k, h.v, kLongDoubleRounding, true);
  Eigen::MatrixXf shifted(l, h.q.cols());
  shifted << h.q.topRows(1), h.q.topRows(l - 1);
  const Eigen::MatrixXf ahead = exact_in_precision(shifted, h.k, h.v, ProductPrecision::bfloat16, true);
  CHECK(outside(ahead.bottomRows(l - 1), causal.topRows(l - 1), gpu_bound(h.q, h.k, h.v, true).topRows(l - 1),
                causal_reference_bound.topRows(l - 1)) > 0);
  const Eigen::MatrixXf none = exact_in_precision(h.q, h.k, h.v, ProductPrecision::bfloat16, false);
  CHECK(outside(none, causal, gpu_bound(h.q, h.k, h.v, true), causal_reference_bound) > 0);
  const Eigen::MatrixXf computed = exact_in_precision(h.q, h.k, h.v, ProductPrecision::bfloat16, true);
  CHECK(outside(computed, causal, gpu_bound(h.q, h.k, h.v, true), causal_reference_bound) == 0);
}
