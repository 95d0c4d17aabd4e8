#pragma once
// The generalized kernels' maps φ(u) = f(Wu) + ε_k (or f(u) + ε_k without projection), one descriptor per f
// (features/feature_map.hpp): relu, exp, sigmoid, abs, gelu (the exact x Φ(x)), cos, tanh, identity. Each applies f
// entry-wise; the attention engine projects and adds ε_k.
namespace favorlab {

struct FeatureMap;
extern const FeatureMap kReluMap, kExpMap, kSigmoidMap, kAbsMap, kGeluMap, kCosMap, kTanhMap, kIdentityMap;

}  // namespace favorlab
