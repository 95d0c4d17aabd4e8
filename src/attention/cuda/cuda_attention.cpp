// Host side of the CUDA backend (cuda_attention.hpp): validates like attend(), packs the Eigen heads into row-major
// float arrays, maps the configuration onto the kernels' options and unpacks the result. No CUDA header here: the
// device work is behind cuda_kernels.hpp.
#include "attention/cuda/cuda_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "attention/cuda/cuda_kernels.hpp"
#include "attention/prepared_projection.hpp"
#include "io/half_float.hpp"

namespace favorlab {

namespace {

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Heads stacked row-major: head h's rows×cols block starts at h·rows·cols.
std::vector<float> pack(const Heads<float>& heads) {
  const Eigen::Index rows = heads.front().rows(), cols = heads.front().cols();
  std::vector<float> out(heads.size() * static_cast<std::size_t>(rows * cols));
  for (std::size_t h = 0; h < heads.size(); ++h)
    Eigen::Map<RowMajor<float>>(out.data() + h * static_cast<std::size_t>(rows * cols), rows, cols) = heads[h];
  return out;
}

// The inputs as the device holds them: float32 arrays, or the 16-bit patterns of values already rounded to the
// format (rounded_to), so the narrowing here is exact. `host` points into this object: it is neither copied nor moved.
struct PackedInputs {
  std::vector<float> q, k, v;
  std::vector<std::uint16_t> q16, k16, v16;
  cuda_detail::HostInputs host;

  PackedInputs(const Heads<float>& qh, const Heads<float>& kh, const Heads<float>& vh, HalfInputs half)
      : q(pack(qh)), k(pack(kh)), v(pack(vh)) {
    if (half == HalfInputs::off) {
      host = {cuda_detail::InputFormat::float32, q.data(), k.data(), v.data()};
      return;
    }
    const auto bits = [half](std::vector<float>& x) {
      std::vector<std::uint16_t> out(x.size());
      for (std::size_t i = 0; i < x.size(); ++i)
        out[i] = half == HalfInputs::float16 ? float_to_float16(x[i]) : float_to_bfloat16(x[i]);
      std::vector<float>().swap(x);  // only the 16-bit copy stays on the host
      return out;
    };
    q16 = bits(q);
    k16 = bits(k);
    v16 = bits(v);
    host = {half == HalfInputs::float16 ? cuda_detail::InputFormat::float16 : cuda_detail::InputFormat::bfloat16,
            q16.data(), k16.data(), v16.data()};
  }
  PackedInputs(const PackedInputs&) = delete;
  PackedInputs& operator=(const PackedInputs&) = delete;
};

// The kernels index with int rows and columns and batch heads on a grid dimension (≤ 65535).
void check_cuda_shapes(const Heads<float>& q, const Heads<float>& k, const Heads<float>& v) {
  const auto same = [](const Heads<float>& x) {
    for (const auto& head : x)
      if (head.rows() != x.front().rows() || head.cols() != x.front().cols()) return false;
    return true;
  };
  if (!same(q) || !same(k) || !same(v))
    throw std::invalid_argument("the CUDA backend needs every head to have the same shapes (heads are batched)");
  if (q.size() > 65535) throw std::invalid_argument("the CUDA backend takes at most 65535 heads");
  constexpr Eigen::Index kMax = std::numeric_limits<int>::max();
  for (const Heads<float>* x : {&q, &k, &v})
    if (x->front().size() > kMax / 4)
      throw std::invalid_argument("the CUDA backend takes at most 2^29 entries per head");
  // The feature kernel runs one block per row of every head (a grid of heads × rows blocks, at most 2^31 − 1).
  const Eigen::Index rows = std::max(q.front().rows(), k.front().rows());
  if (rows > 0 && Eigen::Index(q.size()) > kMax / rows)
    throw std::invalid_argument("the CUDA backend takes at most 2^31 - 1 rows over all heads (heads x L)");
}

// The kernels' view of the heads (check_cuda_shapes has made them equal).
cuda_detail::Shape shape_of(const Heads<float>& q, const Heads<float>& k, const Heads<float>& v) {
  cuda_detail::Shape shape;
  shape.heads = static_cast<int>(q.size());
  shape.lq = static_cast<int>(q.front().rows());
  shape.lk = static_cast<int>(k.front().rows());
  shape.d = static_cast<int>(q.front().cols());
  shape.dv = static_cast<int>(v.front().cols());
  return shape;
}

float exact_logit_scale(int d) { return float(1 / std::sqrt(double(d))); }  // exact_attention.cpp's scale

cuda_detail::ProductFormat product_format(ProductPrecision precision) {
  switch (precision) {
    case ProductPrecision::tf32: return cuda_detail::ProductFormat::tf32;
    case ProductPrecision::bfloat16: return cuda_detail::ProductFormat::bfloat16;
    case ProductPrecision::float32: break;
  }
  return cuda_detail::ProductFormat::float32;
}

cuda_detail::FavorOptions favor_options(const AttentionConfig& config, int d) {
  cuda_detail::FavorOptions options;
  options.feature = family_info(config.features).map->code;
  options.softmax = estimates_softmax(config.features);
  options.m = projection_rows(config);
  options.columns = feature_columns(config, d);
  options.causal = config.causal;
  options.renormalize = config.renormalize;
  options.stabilizer = config.stabilizer;
  options.chunk = config.chunk;
  options.kernel_epsilon = float(config.kernel_epsilon);  // the CPU adds T(config.kernel_epsilon)
  options.input_scale = float(1 / std::sqrt(std::sqrt(double(d))));  // attention_features_of_rows
  options.products = product_format(config.precision);
  return options;
}

// The projection the device gets: W rounded to float (m×d) as w.cast<float>() does, or for the shifted positive map
// (gerf, oprf, sderf) each head's prepared W' (heads×m×d) and offsets (heads×m), from the same
// prepared_projection<float> the CPU engine uses, so both compute with the same numbers.
struct DeviceProjection {
  std::vector<float> w, offsets;
  bool per_head = false;
  const float* offsets_or_null() const { return offsets.empty() ? nullptr : offsets.data(); }
};

DeviceProjection device_projection(const Heads<float>& q, const Heads<float>& k, const Eigen::MatrixXd& w,
                                   const AttentionConfig& config) {
  DeviceProjection out;
  if (!needs_prepared_projection(config)) {
    const RowMajor<float> wf = w.cast<float>();
    out.w.assign(wf.data(), wf.data() + wf.size());
    return out;
  }
  out.per_head = true;
  const Eigen::Index m = w.rows(), d = w.cols();
  for (std::size_t h = 0; h < q.size(); ++h) {
    const Matrix<float> prepared = prepared_projection<float>(q[h], k[h], w, config);
    const RowMajor<float> wp = prepared.leftCols(d);
    out.w.insert(out.w.end(), wp.data(), wp.data() + wp.size());
    for (Eigen::Index i = 0; i < m; ++i) out.offsets.push_back(prepared(i, d));
  }
  return out;
}

// Exact attention in bfloat16 runs through cuDNN's fused attention: refused, naming why, in a build without it, and
// for the estimate of A V (cuDNN's kernel always divides by the row sums).
void require_cudnn_exact(const AttentionConfig& config) {
  std::string reason;
  if (!cuda_detail::cudnn_attention_built(reason))
    throw std::invalid_argument("--precision bfloat16 with --mechanism exact needs cuDNN's fused attention, which "
                                "this build has not: " + reason);
  if (!config.renormalize)
    throw std::invalid_argument("--precision bfloat16 with --mechanism exact: cuDNN's fused attention always "
                                "normalizes (drop --no-renormalize)");
}

// Validation shared by attend_cuda and time_cuda.
// inputs_checked: the caller holds AttentionInputs for exactly these arguments.
cuda_detail::Shape checked_shape(const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                                 const Eigen::MatrixXd& w, const AttentionConfig& config, const char* caller,
                                 bool inputs_checked = false) {
  if (!inputs_checked) check_attention_inputs(q, k, v, w, config);
  check_cuda_shapes(q, k, v);
  std::string reason;
  if (!cuda_detail::cuda_device_present(reason)) throw std::runtime_error(std::string(caller) + ": " + reason);
  return shape_of(q, k, v);
}

}  // namespace

bool cuda_device_present(std::string& reason) { return cuda_detail::cuda_device_present(reason); }

namespace {

// attend_cuda on inputs already rounded to `half` (or float32 ones for off).
Heads<float> attend_cuda_rounded(const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                                 const Eigen::MatrixXd& w, const AttentionConfig& config, HalfInputs half,
                                 bool inputs_checked = false) {
  const cuda_detail::Shape shape = checked_shape(q, k, v, w, config, "attend_cuda", inputs_checked);
  const PackedInputs in(q, k, v, half);
  std::vector<float> out(static_cast<std::size_t>(shape.heads) * static_cast<std::size_t>(shape.lq) *
                         static_cast<std::size_t>(shape.dv));

  if (config.mechanism == Mechanism::exact && config.precision == ProductPrecision::bfloat16) {
    require_cudnn_exact(config);
    cuda_detail::exact_attention_cudnn(shape, config.causal, exact_logit_scale(shape.d), in.host, out.data());
  } else if (config.mechanism == Mechanism::exact) {
    cuda_detail::exact_attention_device(shape, config.causal, config.renormalize, exact_logit_scale(shape.d), in.host,
                                        out.data());
  } else {
    // The same W as the CPU: drawn on the host, rounded to float (or prepared per head) as the CPU does.
    const DeviceProjection projection = device_projection(q, k, w, config);
    cuda_detail::FavorOptions options = favor_options(config, shape.d);
    options.per_head_projection = projection.per_head;
    cuda_detail::favor_attention_device(shape, options, in.host, projection.w.data(), out.data(),
                                        projection.offsets_or_null());
  }

  Heads<float> result(q.size());
  const std::size_t per_head = static_cast<std::size_t>(shape.lq) * static_cast<std::size_t>(shape.dv);
  for (std::size_t h = 0; h < q.size(); ++h)
    result[h] = Eigen::Map<const RowMajor<float>>(out.data() + h * per_head, shape.lq, shape.dv);
  return result;
}

}  // namespace

template <class T>
Heads<T> attend_cuda(const Heads<T>& q, const Heads<T>& k, const Heads<T>& v, const Eigen::MatrixXd& w,
                     const AttentionConfig& config, HalfInputs half) {
  static_assert(std::is_same_v<T, float>, "the CUDA backend computes in float32 only");
  if (half == HalfInputs::off) return attend_cuda_rounded(q, k, v, w, config, half);
  return attend_cuda_rounded(rounded_to(half, q, "Q"), rounded_to(half, k, "K"), rounded_to(half, v, "V"), w, config,
                             half);
}

template Heads<float> attend_cuda(const Heads<float>&, const Heads<float>&, const Heads<float>&,
                                  const Eigen::MatrixXd&, const AttentionConfig&, HalfInputs);

Heads<float> attend_cuda(const AttentionInputs<float>& in, HalfInputs half) {
  return attend_cuda_rounded(in.q, in.k, in.v, in.w, in.config, half, true);
}

namespace {

cuda_detail::DeviceTiming time_favor(const cuda_detail::Shape& shape, const AttentionConfig& config,
                                     const Heads<float>& q, const Heads<float>& k, const PackedInputs& in,
                                     const Eigen::MatrixXd& w, int repeats) {
  const DeviceProjection projection = device_projection(q, k, w, config);
  cuda_detail::FavorOptions options = favor_options(config, shape.d);
  options.per_head_projection = projection.per_head;
  return cuda_detail::time_favor_device(shape, options, in.host, projection.w.data(), repeats,
                                        projection.offsets_or_null());
}

CudaTiming time_cuda_rounded(CudaWork work, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                             const Eigen::MatrixXd& w, const AttentionConfig& config, int repeats, HalfInputs half) {
  AttentionConfig checked = config;
  if (work == CudaWork::favor_products) {  // validated as the bidirectional positive-feature FAVOR it is the floor of
    checked.mechanism = Mechanism::favor;
    checked.features = Family::positive;
    checked.causal = false;
    checked.project = true;
  }
  const cuda_detail::Shape shape = checked_shape(q, k, v, w, checked, "time_on_cuda");
  const PackedInputs in(q, k, v, half);
  cuda_detail::DeviceTiming timing;
  switch (work) {
    case CudaWork::attention:
      if (config.mechanism == Mechanism::exact && config.precision == ProductPrecision::bfloat16) {
        require_cudnn_exact(config);
        timing = cuda_detail::time_exact_cudnn(shape, config.causal, exact_logit_scale(shape.d), in.host, repeats);
      } else if (config.mechanism == Mechanism::exact) {
        timing = cuda_detail::time_exact_device(shape, config.causal, config.renormalize, exact_logit_scale(shape.d),
                                                in.host, repeats);
      } else {
        timing = time_favor(shape, config, q, k, in, w, repeats);
      }
      break;
    case CudaWork::favor_products: {
      const RowMajor<float> wf = w.cast<float>();
      timing = cuda_detail::time_favor_products_device(shape, projection_rows(checked), in.q.data(), in.k.data(),
                                                       in.v.data(), wf.data(), repeats,
                                                       product_format(config.precision));
      break;
    }
    case CudaWork::copy:
      timing = cuda_detail::time_copy_device(shape, in.v.data(), repeats);
      break;
  }
  return {timing.seconds, static_cast<std::int64_t>(timing.peak_bytes), double(timing.first)};
}

}  // namespace

CudaTiming time_cuda(CudaWork work, const Heads<float>& q, const Heads<float>& k, const Heads<float>& v,
                     const Eigen::MatrixXd& w, const AttentionConfig& config, int repeats, HalfInputs half) {
  if (half == HalfInputs::off) return time_cuda_rounded(work, q, k, v, w, config, repeats, half);
  return time_cuda_rounded(work, rounded_to(half, q, "Q"), rounded_to(half, k, "K"), rounded_to(half, v, "V"), w,
                           config, repeats, half);
}

}  // namespace favorlab

extern "C" const favorlab::CudaModule* favorlab_cuda_module() {
  using namespace favorlab;
  static const CudaModule table{
      &cuda_device_present,
      &cuda_detail::cudnn_attention_built,
      [](const Heads<float>& q, const Heads<float>& k, const Heads<float>& v, const Eigen::MatrixXd& w,
         const AttentionConfig& config, HalfInputs half) { return attend_cuda<float>(q, k, v, w, config, half); },
      [](const AttentionInputs<float>& in, HalfInputs half) { return attend_cuda(in, half); },
      &time_cuda};
  return &table;
}
