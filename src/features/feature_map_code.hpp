#pragma once
// The feature maps the attention kernels implement, one code per map (not per family: regularized features use the
// positive map with √d-norm rows; gerf, oprf and sderf all use the shifted positive map with a prepared projection).
// Plain C++ with no Eigen and no other favorlab header, so that the CUDA sources can include it: each map's
// descriptor (feature_map.hpp) carries its code, and the GPU engine, which cannot call the descriptor's host
// functions, switches on it (attention/cuda/favor_attention.cu); the CPU engines call the descriptor.
namespace favorlab {

enum class FeatureMapCode : int {
  trig,              // exp(‖u‖²/2)/√m · [sin Wu, cos Wu]
  positive,          // exp(Wu − ‖u‖²/2)/√m
  hyperbolic,        // exp(±Wu − ‖u‖²/2)/√(2m)
  relu, exp, sigmoid, abs, gelu, cos, tanh, identity,  // generalized kernels: f(Wu) + ε_k, or f(u) + ε_k
  shifted_positive,  // exp(W'u + c − ‖u‖²/2)/√m with a prepared W' and per-row offsets c (features/gerf_projection.hpp)
};

}  // namespace favorlab
