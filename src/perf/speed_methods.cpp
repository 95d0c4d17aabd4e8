#include "perf/speed_methods.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "attention/attention_projection.hpp"
#include "attention/exact_attention_reference.hpp"
#include "attention/head_parallel.hpp"
#include "attention/permute_attention.hpp"
#include "attention/random_inputs.hpp"
#include "perf/favor_products.hpp"
#include "perf/memory_estimate.hpp"

namespace favorlab {

namespace {

using Real = float;

double first_entry(const Heads<Real>& out) { return double(out.front()(0, 0)); }

AttentionConfig with(AttentionConfig c, Mechanism mechanism, bool causal) {
  c.mechanism = mechanism;
  c.causal = causal;
  return c;
}

// A device timing of `work` with the configuration `with(favor, mechanism, causal)` (features: the run's, or `family`),
// the inputs held in `half` on the device, FAVOR's products in `products` (given) or the run's format.
auto on_cuda(CudaWork work, Mechanism mechanism, bool causal, std::optional<Family> family = std::nullopt,
             HalfInputs half = HalfInputs::off, std::optional<ProductPrecision> products = std::nullopt) {
  return [=](const SpeedInputs& in, const AttentionConfig& c, int repeats) {
    const Eigen::MatrixXd w = mechanism == Mechanism::exact ? Eigen::MatrixXd(0, in.w.cols()) : in.w;
    AttentionConfig config = with(c, mechanism, causal);
    if (family) config.features = *family;
    if (products) config.precision = *products;
    return time_on_cuda(work, in.q, in.k, in.v, w, config, repeats, half);
  };
}

// FAVOR (attention, or its bare products) on the device with its products on the tensor cores in `products`; the
// name is the float32 method's with the format appended (no CPU method: the CPU multiplies in float32).
SpeedMethod in_format_on_cuda(const std::string& float32_name, CudaWork work, bool causal, ProductPrecision products) {
  return {float32_name + "_" + std::string(product_precision_name(products)), false, {},
          on_cuda(work, Mechanism::favor, causal, std::nullopt, HalfInputs::off, products)};
}

// Exact attention in bfloat16 through cuDNN's fused attention (device only, in builds that have cuDNN).
SpeedMethod exact_cudnn_on_cuda(const std::string& name, bool causal) {
  SpeedMethod m{name, true, {},
                on_cuda(CudaWork::attention, Mechanism::exact, causal, std::nullopt, HalfInputs::off,
                        ProductPrecision::bfloat16)};
  m.needs_cudnn = true;
  return m;
}

// FAVOR on the device with its inputs held in a 16-bit format (no CPU method: rounding the inputs changes nothing of
// the CPU's work).
SpeedMethod favor_half_on_cuda(const std::string& name, bool causal, HalfInputs half) {
  return {name, false, {}, on_cuda(CudaWork::attention, Mechanism::favor, causal, std::nullopt, half), half};
}

// Exact attention (the tiled kernel) with or without the causal mask.
auto exact_with(bool causal) {
  return [=](const SpeedInputs& in, const AttentionConfig& c, int threads) {
    return first_entry(
        attend<Real>(in.q, in.k, in.v, Eigen::MatrixXd(0, in.w.cols()), with(c, Mechanism::exact, causal), threads));
  };
}

// FAVOR with the run's features, bidirectional or causal.
auto favor_with(bool causal) {
  return [=](const SpeedInputs& in, const AttentionConfig& c, int threads) {
    return first_entry(attend<Real>(in.q, in.k, in.v, in.w, with(c, Mechanism::favor, causal), threads));
  };
}

// Bidirectional FAVOR with the features of `family` (a data-dependent family prepares its projection per head).
auto favor_with(Family family) {
  return [=](const SpeedInputs& in, const AttentionConfig& c, int threads) {
    AttentionConfig config = with(c, Mechanism::favor, false);
    config.features = family;
    return first_entry(attend<Real>(in.q, in.k, in.v, in.w, config, threads));
  };
}

// PermuteFormer (1-D, r = 1, a random π per head), bidirectional or causal.
auto permute_with(bool causal) {
  return [=](const SpeedInputs& in, const AttentionConfig& c, int threads) {
    const AttentionConfig favor = with(c, Mechanism::favor, causal);
    std::vector<PermuteHead> heads;
    for (std::size_t h = 0; h < in.q.size(); ++h)
      heads.push_back({random_permutation(feature_columns(favor, int(in.w.cols())), 2021, 0x5EED, h), {}, 1.0});
    return first_entry(permute_attend<Real>(in.q, in.k, in.v, in.w, favor, heads, PermuteLayout{}, threads));
  };
}

// The naive exact kernel (a 128 × L logits block at once), head by head.
double exact_reference_forward(const SpeedInputs& in, const AttentionConfig&, int threads) {
  Heads<Real> out(in.q.size());
  for_each_head(int(in.q.size()), threads, [&](int h, int inner_threads) {
    const std::size_t s = std::size_t(h);
    out[s] = exact_attention_reference(in.q[s], in.k[s], in.v[s], false, true, inner_threads);
  });
  return first_entry(out);
}

double identity_forward(const SpeedInputs& in, const AttentionConfig&, int) {
  const Heads<Real> out = in.v;  // X(OPT): the layer that returns V
  return first_entry(out);
}

double gemm_forward(const SpeedInputs& in, const AttentionConfig&, int threads) {
  const Matrix<Real> w = in.w.cast<Real>();  // attend casts W too
  return first_entry(favor_bare_products<Real>(in.q, in.k, in.v, w, threads));
}

}  // namespace

SpeedInputs make_speed_inputs(int heads, int l, int d, int m, std::uint64_t seed) {
  SpeedInputs in;
  for (int h = 0; h < heads; ++h) {
    const auto index = static_cast<std::uint64_t>(h);
    in.q.push_back(gaussian_input(l, d, 1.0, seed, 0x5EED'0001, index).cast<Real>());
    in.k.push_back(gaussian_input(l, d, 1.0, seed, 0x5EED'0002, index).cast<Real>());
    in.v.push_back(gaussian_input(l, d, 1.0, seed, 0x5EED'0003, index).cast<Real>());
  }
  AttentionConfig c;
  c.m = m;
  in.w = draw_attention_projection(c, d, seed, 0);
  return in;
}

const std::vector<SpeedMethod>& speed_methods() {
  static const std::vector<SpeedMethod> table{
      {"exact", true, exact_with(false), on_cuda(CudaWork::attention, Mechanism::exact, false)},
      // The tiled kernel with the causal mask (the baseline of causal FAVOR's speed-up).
      {"exact_causal", true, exact_with(true), on_cuda(CudaWork::attention, Mechanism::exact, true)},
      // The naive kernel beside the tiled one: the gain of the online-softmax tiles, measured in the same run.
      {"exact_reference", true, exact_reference_forward, {}},
      {"favor_bidirectional", false, favor_with(false), on_cuda(CudaWork::attention, Mechanism::favor, false)},
      {"favor_causal", false, favor_with(true), on_cuda(CudaWork::attention, Mechanism::favor, true)},
      // oprf and sderf: positive features after a prepared projection (their statistics of Q and K, and for sderf
      // one d×d eigendecomposition per head): what they cost over positive features.
      {"favor_oprf", false, favor_with(Family::oprf), on_cuda(CudaWork::attention, Mechanism::favor, false, Family::oprf)},
      {"favor_sderf", false, favor_with(Family::sderf),
       on_cuda(CudaWork::attention, Mechanism::favor, false, Family::sderf)},
      // PermuteFormer: FAVOR plus the position permutations of the features.
      {"permuteformer", false, permute_with(false), {}},
      {"permuteformer_causal", false, permute_with(true), {}},
      // Inputs held on the device as float16 or bfloat16 (half the input bytes; everything after the first kernels
      // is float32): what 16-bit storage saves in time and device memory.
      favor_half_on_cuda("favor_bidirectional_bfloat16_inputs", false, HalfInputs::bfloat16),
      favor_half_on_cuda("favor_causal_float16_inputs", true, HalfInputs::float16),
      favor_half_on_cuda("favor_causal_bfloat16_inputs", true, HalfInputs::bfloat16),
      {"identity", false, identity_forward, on_cuda(CudaWork::copy, Mechanism::favor, false)},
      {"gemm", false, gemm_forward, on_cuda(CudaWork::favor_products, Mechanism::favor, false)},
      // FAVOR's products on the tensor cores (attention/cuda/product_gemm.cu), against the float32 rows above and
      // their own floor in the same format.
      in_format_on_cuda("favor_bidirectional", CudaWork::attention, false, ProductPrecision::tf32),
      in_format_on_cuda("favor_causal", CudaWork::attention, true, ProductPrecision::tf32),
      in_format_on_cuda("gemm", CudaWork::favor_products, false, ProductPrecision::tf32),
      in_format_on_cuda("favor_bidirectional", CudaWork::attention, false, ProductPrecision::bfloat16),
      in_format_on_cuda("favor_causal", CudaWork::attention, true, ProductPrecision::bfloat16),
      in_format_on_cuda("gemm", CudaWork::favor_products, false, ProductPrecision::bfloat16),
      // The exact baseline at library speed: cuDNN's fused (flash) attention in bfloat16.
      exact_cudnn_on_cuda("exact_bfloat16", false),
      exact_cudnn_on_cuda("exact_causal_bfloat16", true),
  };
  return table;
}

const SpeedMethod& speed_method_named(const std::string& name) {
  for (const SpeedMethod& m : speed_methods())
    if (m.name == name) return m;
  throw std::invalid_argument("speed: no method named '" + name + "'");
}

double speed_input_bytes(int heads, int l, int d, HalfInputs half) {
  return 3.0 * heads * l * d * (half == HalfInputs::off ? sizeof(Real) : 2);
}

double speed_output_bytes(int heads, int l, int d) { return 1.0 * heads * l * d * sizeof(Real); }

double speed_forward_bytes(double heads, double l, double d, double m, double chunk, double threads) {
  using namespace memory;
  AttendShape a{heads, l, l, d, d, m, m};
  a.scalar = kFloat;
  a.exact = true;
  double forward = attend_bytes(a, threads);
  a.exact = false;
  forward = std::max(forward, attend_bytes(a, threads));
  a.permute = true;
  forward = std::max(forward, attend_bytes(a, threads));
  a.causal = true;
  a.chunk = chunk;
  forward = std::max(forward, attend_bytes(a, threads));  // causal PermuteFormer
  a.permute = false;
  forward = std::max(forward, attend_bytes(a, threads));
  // The naive exact kernel: per thread a 128 × L logits block and its product temporary.
  return std::max(forward, heads * l * d * kFloat + threads * 128 * (2 * l + 2 * d + 4) * kFloat);
}

}  // namespace favorlab
