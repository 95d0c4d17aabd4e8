#pragma once
// `--backend cpu|cuda` for the experiments that run attention forward passes (attention-error, redraw, kernels,
// layers, speed): the option, the backend checked before any work, and its provenance. (attention-matrix, uniform
// and permute-properties form matrices or PermuteFormer outputs the CUDA backend does not compute: CPU only.)
#include <CLI/CLI.hpp>

#include <optional>
#include <stdexcept>
#include <string>

#include "attention/backend.hpp"
#include "attention/product_precision.hpp"
#include "results/result.hpp"

namespace favorlab {

class BackendOption {
 public:
  void add_to(CLI::App& app, const std::string& help) {
    app.add_option("--backend", name_, help)->capture_default_str();
  }

  // The parsed backend (std::invalid_argument names a bad value); not yet checked for use.
  Backend parsed() const { return parse_backend(name_); }

  // The parsed backend, usable here: std::invalid_argument (exit 2) names a bad value, or why CUDA cannot run
  // ("--backend cuda: no CUDA device present …"). Call it before any work.
  Backend checked() const {
    const Backend backend = parsed();
    require_backend(backend);
    return backend;
  }

  // `--precision float32|tf32|bfloat16`: the format FAVOR's products multiply in on the GPU (the experiments that
  // offer it: attention-error; exact attention stays float32; speed times every format as its own methods).
  void add_precision_to(CLI::App& app) {
    app.add_option("--precision", precision_,
                   "float32, tf32 or bfloat16: the format FAVOR's products multiply in (cuda backend; sums and "
                   "exact attention stay float32; error bound in docs/gpu.md)")
        ->capture_default_str();
  }

  // The parsed precision; std::invalid_argument names a bad value, or a reduced one without --backend cuda.
  ProductPrecision precision(Backend backend) const {
    const ProductPrecision p = parse_product_precision(precision_);
    if (p != ProductPrecision::float32 && backend != Backend::cuda)
      throw std::invalid_argument("--precision " + precision_ + " is a GPU format: it needs --backend cuda (the cpu "
                                  "backend multiplies in float64 here)");
    return p;
  }

  // Provenance: params.backend, for cuda the device it ran on (and, given, the format of FAVOR's products:
  // params.product_precision), and provenance.backend ("cpu-openmp" or "cuda").
  static void record(Result& result, Backend backend, std::optional<ProductPrecision> products = std::nullopt) {
    result.params["backend"] = std::string(backend_name(backend));
    if (backend == Backend::cuda) {
      result.params["cuda_device"] = cuda_available().reason;
      if (products) result.params["product_precision"] = std::string(product_precision_name(*products));
      result.measurements["backend"] = "cuda";
    }
  }

 private:
  std::string name_ = "cpu";
  std::string precision_ = "float32";
};

// The help text of the experiments that compute in double on the CPU.
inline const char* kDoubleBackendHelp =
    "Where attention runs: cpu (float64), or cuda (the GPU in float32; needs a CUDA build and a device)";

}  // namespace favorlab
