// FAVOR+ on the GPU with its products in tf32 and bfloat16 (attention/cuda/product_gemm.cu, --precision): every
// output entry within the GPU's rounding bound (reduced_precision_favor.hpp: gpu_rounding_of; docs/gpu.md) of FAVOR+
// in long double with the same W, bidirectional and causal in chunks; the format's rounding took place; and the
// check's power on the device's own outputs: bfloat16 held to float32's bound, a causal mask one key ahead and no
// mask at all fail it. Skips (with a WARN) where the GPU cannot run; scripts/gpu-check.sh runs it on a GPU.
#include <catch2/catch.hpp>

#include <vector>

#include "attention/backend.hpp"
#include "attention/reduced_precision_favor.hpp"
#include "long_double_references.hpp"

using namespace favorlab;
using test::favor_long_double;
using test::kLongDoubleRounding;
using test::outside;

namespace {

bool gpu_or_skip() {
  const CudaAvailability cuda = cuda_available();
  if (!cuda.available) WARN("SKIPPED: CUDA backend unavailable: " << cuda.reason);
  return cuda.available;
}

// FAVOR+ (positive features, stabilized, renormalized) of one head on the GPU with W = h.w (already float: the device
// uses exactly these values).
Eigen::MatrixXf gpu_favor(const test::PrecisionHead& h, ProductPrecision p, int causal_chunk) {
  AttentionConfig c;
  c.m = static_cast<int>(h.w.rows());
  c.causal = causal_chunk > 0;
  if (c.causal) c.chunk = causal_chunk;
  c.precision = p;
  return attend_on_backend(Backend::cuda, {h.q}, {h.k}, {h.v}, h.w.cast<double>(), c).front();
}

}  // namespace

TEST_CASE("GPU FAVOR+ in float32, tf32 and bfloat16: every entry within the GPU's rounding bound",
          "[cuda][precision]") {
  if (!gpu_or_skip()) return;
  // A length that is no multiple of a tile or of 8, chunks of one row, ragged, the CPU's default and the GPU's.
  const test::PrecisionHead h = test::random_precision_head(200, 16, 64, 1.0, 11);
  for (ProductPrecision p : {ProductPrecision::float32, ProductPrecision::tf32, ProductPrecision::bfloat16})
    for (int chunk : {0, 1, 7, 48, 512}) {
      INFO(product_precision_name(p)
           << (chunk > 0 ? ", causal chunks of " + std::to_string(chunk) : std::string(", bidirectional")));
      const Eigen::MatrixXf gpu = gpu_favor(h, p, chunk);
      const Eigen::MatrixXd bound = favor_precision_bound(h.q, h.k, h.v, h.w, gpu_rounding_of(p), chunk);
      REQUIRE(bound.allFinite());
      double worst = 0;
      CHECK(outside(gpu, favor_long_double(h.q, h.k, h.v, h.w, chunk > 0), bound,
                    favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding, chunk), &worst) == 0);
      INFO("largest error / bound " << worst);
      if (p != ProductPrecision::float32)  // the tensor cores' format was used: not float32's numbers
        CHECK((gpu - gpu_favor(h, ProductPrecision::float32, chunk)).cwiseAbs().maxCoeff() > 0);
    }
}

TEST_CASE("GPU FAVOR+ in reduced precision: the bound's check fails a wrong format and wrong masks",
          "[cuda][precision]") {
  if (!gpu_or_skip()) return;
  const test::PrecisionHead h = test::random_precision_head(96, 16, 64, 1.0, 7);
  const Eigen::Index l = h.k.rows();
  const Eigen::MatrixXd reference = favor_long_double(h.q, h.k, h.v, h.w);
  const Eigen::MatrixXd reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding);
  const auto bound = [&](ProductPrecision p, int chunk) {
    return favor_precision_bound(h.q, h.k, h.v, h.w, gpu_rounding_of(p), chunk);
  };
  // bfloat16's products judged by float32's bound (a theory of the wrong format).
  const Eigen::MatrixXf bf16 = gpu_favor(h, ProductPrecision::bfloat16, 0);
  CHECK(outside(bf16, reference, bound(ProductPrecision::float32, 0), reference_bound) > 0);
  // A causal mask one key ahead (query i computed at position i + 1) in float32, and none at all in bfloat16.
  const Eigen::MatrixXd causal = favor_long_double(h.q, h.k, h.v, h.w, true);
  const Eigen::MatrixXd causal_reference_bound = favor_precision_bound(h.q, h.k, h.v, h.w, kLongDoubleRounding, 16);
  test::PrecisionHead shifted = h;
  shifted.q << h.q.topRows(1), h.q.topRows(l - 1);
  const Eigen::MatrixXf ahead = gpu_favor(shifted, ProductPrecision::float32, 16);
  CHECK(outside(ahead.bottomRows(l - 1), causal.topRows(l - 1), bound(ProductPrecision::float32, 16).topRows(l - 1),
                causal_reference_bound.topRows(l - 1)) > 0);
  CHECK(outside(bf16, causal, bound(ProductPrecision::bfloat16, 16), causal_reference_bound) > 0);
}
