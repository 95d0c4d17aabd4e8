#pragma once
// `--backend cpu|cuda` for the experiments that run attention forward passes (attention-error, redraw, kernels,
// layers, speed): the option, the backend checked before any work, and its provenance. (attention-matrix, uniform
// and permute-properties form matrices or PermuteFormer outputs the CUDA backend does not compute: CPU only.)
#include <CLI/CLI.hpp>

#include <string>

#include "attention/backend.hpp"
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

  // Provenance: params.backend, for cuda the device it ran on, and provenance.backend ("cpu-openmp" or "cuda").
  static void record(Result& result, Backend backend) {
    result.params["backend"] = std::string(backend_name(backend));
    if (backend == Backend::cuda) {
      result.params["cuda_device"] = cuda_available().reason;
      result.measurements["backend"] = "cuda";
    }
  }

 private:
  std::string name_ = "cpu";
};

// The help text of the experiments that compute in double on the CPU.
inline const char* kDoubleBackendHelp =
    "Where attention runs: cpu (float64), or cuda (the GPU in float32; needs a CUDA build and a device)";

}  // namespace favorlab
