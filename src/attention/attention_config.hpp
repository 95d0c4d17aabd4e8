#pragma once
// What one attention call computes (docs/theory.md#attention): the mechanism (exact softmax or FAVOR), FAVOR's feature
// map — a family of features/feature_family.hpp: a softmax-kernel estimator (trig, positive, hyperbolic, regularized,
// gerf, oprf, sderf) or a generalized kernel φ(u) = f(Wu) + ε_k (relu, exp, sigmoid, abs, gelu, cos, tanh, identity;
// f(u) + ε_k without projection) — and the options of the reference implementation: causal masking,
// renormalization, the numerical stabilizer.
#include <string>
#include <string_view>
#include <vector>

#include "attention/product_precision.hpp"
#include "features/feature_family.hpp"
#include "features/projection.hpp"

namespace favorlab {

enum class Mechanism { exact, favor };

struct AttentionConfig {
  Mechanism mechanism = Mechanism::favor;
  Family features = Family::positive;
  int m = 256;                          // number of random projections ω_i (rows of W)
  Coupling coupling = Coupling::orthogonal;
  bool project = true;                  // generalized kernels: f(Wu) (true) or f(u), which has m = d features
  double kernel_epsilon = 1e-3;         // ε_k added to generalized-kernel features (never to softmax features)
  bool causal = false;
  bool renormalize = true;              // divide by the estimated row sums D̂ (off: the estimate of A V itself)
  bool stabilizer = true;               // softmax features: compute exp(· − max) and carry the max as a log scale
  int chunk = 48;                       // causal FAVOR: rows per chunk (1 = plain prefix sums); 48 measured fastest
  FeatureParameters parameters;         // gerf's A
  // The format the products multiply in on the GPU (tensor cores, float32 sums either way): FAVOR's in tf32 or
  // bfloat16; exact attention's in bfloat16 through cuDNN's fused attention. The CPU engine multiplies in its own type
  // and refuses anything but float32 here (require_cpu_precision).
  ProductPrecision precision = ProductPrecision::float32;
};

std::string_view mechanism_name(Mechanism mechanism);
Mechanism parse_mechanism(std::string_view name);       // throws std::invalid_argument naming the bad value
std::string_view feature_kind_name(Family kind);
Family parse_feature_kind(std::string_view name);  // throws std::invalid_argument naming the bad value
std::vector<std::string> feature_kind_names();

// Rows of W the mechanism needs (0 for exact attention and for generalized kernels without projection).
int projection_rows(const AttentionConfig& config);
// Columns of the feature matrix φ(U) for inputs of dimension d.
int feature_columns(const AttentionConfig& config, int d);

// Throws std::invalid_argument naming the offending option (m ≤ 0, chunk ≤ 0, ε_k < 0 or non-finite, a structured
// coupling that needs d a power of 2, gerf's A ≥ 1/8, causal masking with a data-dependent family, …).
void validate_attention_config(const AttentionConfig& config, int d);

}  // namespace favorlab
