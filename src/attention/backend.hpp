#pragma once
// Where attention runs: the CPU engine (attend.hpp) or the optional CUDA backend (attention/cuda/, built when
// FAVORLAB_CUDA is ON). This header and its source exist in every build, so `--backend` can always be parsed and
// asking for CUDA where it cannot run fails with one clear message instead of a link error.
#include <Eigen/Dense>

#include <string>
#include <string_view>

#include "attention/attend.hpp"
#include "attention/attention_config.hpp"

namespace favorlab {

enum class Backend { cpu, cuda };

std::string_view backend_name(Backend backend);
Backend parse_backend(std::string_view name);  // "cpu" or "cuda"; throws std::invalid_argument naming --backend

struct CudaAvailability {
  bool available = false;
  std::string reason;  // why not ("favorlab was built without CUDA (nvcc not found)", "no CUDA device present …"),
                       // or which device is used
};

// Built with CUDA AND a device present (cudaGetDeviceCount > 0).
CudaAvailability cuda_available();

// attend<float>(q, k, v, w, config, threads) on the CPU, or attend_cuda<float>(q, k, v, w, config) on the GPU (threads
// unused there). Both use the given W (drawn on the host). Asking for cuda where cuda_available() is false throws
// std::invalid_argument("--backend cuda: " + reason).
Heads<float> attend_on_backend(Backend backend, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                               const Eigen::MatrixXd& w, const AttentionConfig& config, int threads = 1);

}  // namespace favorlab
