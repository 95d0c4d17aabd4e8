// FAVOR attention on the GPU (cuda_kernels.hpp): the same arithmetic as the CPU engine in float32 — feature maps
// with the stabilizer's log scales (features/feature_maps.cpp), bidirectional FAVOR (bidirectional_favor_attention.cpp)
// and chunked causal FAVOR with the running-max stabilizer (causal_favor_attention.cpp) — so that, with the same W,
// the outputs agree with the CPU's to rounding. The matrix products go to cuBLAS (one strided-batched call over
// heads); the element-wise steps are small kernels. Every step runs on the default stream, in order.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "attention/cuda/cuda_kernels.hpp"
#include "attention/cuda/cuda_support.cuh"

namespace favorlab::cuda_detail {

namespace {

constexpr unsigned kThreads = 256;     // element-wise kernels
constexpr unsigned kRowThreads = 128;  // one block per row (features) or per head (reductions)
constexpr unsigned kScanThreads = 256; // prefix maximum

// f of a generalized kernel, as features/generalized_kernels.cpp. This function and features_kernel are the only
// device code that names a map: a new map adds its case to one of them (the host side passes its code through).
__device__ float kernel_function(FeatureCode feature, float x) {
  switch (feature) {
    case FeatureCode::relu: return fmaxf(x, 0.0f);
    case FeatureCode::exp: return expf(x);
    case FeatureCode::sigmoid: return 1.0f / (1.0f + expf(-x));
    case FeatureCode::abs: return fabsf(x);
    case FeatureCode::gelu: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));  // float(1/√2), as the CPU
    case FeatureCode::cos: return cosf(x);
    case FeatureCode::tanh: return tanhf(x);
    default: return x;  // identity
  }
}

// One block per row r of U (already times d^{-1/4}): values (columns wide) and the log scale of φ(u_r), exactly the
// cases of attention_features.hpp. proj is U Wᵀ (m wide), or nullptr for a generalized kernel without projection.
__global__ void features_kernel(const float* u, const float* proj, float* values, float* log_scale, int d,
                                FavorOptions o) {
  __shared__ float scratch[33];
  const std::size_t row = blockIdx.x;
  const float* u_row = u + row * std::size_t(d);
  float* out = values + row * std::size_t(o.columns);
  if (!o.softmax) {
    const float* pre = proj != nullptr ? proj + row * std::size_t(o.m) : u_row;
    for (int c = int(threadIdx.x); c < o.columns; c += int(blockDim.x))
      out[c] = kernel_function(o.feature, pre[c]) + o.kernel_epsilon;
    if (threadIdx.x == 0) log_scale[row] = 0.0f;
    return;
  }
  const int m = o.m;
  const float* p = proj + row * std::size_t(m);
  float partial = 0.0f;
  for (int c = int(threadIdx.x); c < d; c += int(blockDim.x)) partial += u_row[c] * u_row[c];
  const float half = block_reduce(partial, SumOp{}, scratch) / 2.0f;  // ‖u‖²/2

  if (o.feature == FeatureCode::trig) {
    const float scale = o.stabilizer ? 1.0f / sqrtf(float(m)) : expf(half) / sqrtf(float(m));
    for (int c = int(threadIdx.x); c < m; c += int(blockDim.x)) {
      out[c] = sinf(p[c]) * scale;
      out[m + c] = cosf(p[c]) * scale;
    }
    if (threadIdx.x == 0) log_scale[row] = o.stabilizer ? half : 0.0f;
    return;
  }
  const bool hyperbolic = o.feature == FeatureCode::hyperbolic;
  float top = 0.0f;
  if (o.stabilizer) {
    float local = -INFINITY;
    for (int c = int(threadIdx.x); c < m; c += int(blockDim.x))
      local = fmaxf(local, hyperbolic ? fabsf(p[c]) : p[c]);
    top = block_reduce(local, MaxOp{}, scratch);
  }
  if (hyperbolic) {
    if (o.stabilizer) {  // exp(±Wu − max|Wu|)/√(2m), log scale max|Wu| − ‖u‖²/2
      const float scale = 1.0f / sqrtf(float(2 * m));
      for (int c = int(threadIdx.x); c < m; c += int(blockDim.x)) {
        out[c] = expf(p[c] - top) * scale;
        out[m + c] = expf(-p[c] - top) * scale;
      }
    } else {  // exp(±Wu − ‖u‖²/2)/√(2m)
      const float norm = sqrtf(float(2 * m));
      for (int c = int(threadIdx.x); c < m; c += int(blockDim.x)) {
        out[c] = expf(p[c] - half) / norm;
        out[m + c] = expf(-p[c] - half) / norm;
      }
    }
  } else {  // positive, regularized: exp(Wu − max Wu)/√m with log scale max Wu − ‖u‖²/2; or exp(Wu − ‖u‖²/2)/√m
    const float shift = o.stabilizer ? top : half;
    for (int c = int(threadIdx.x); c < m; c += int(blockDim.x)) out[c] = expf(p[c] - shift) / sqrtf(float(m));
  }
  if (threadIdx.x == 0) log_scale[row] = o.stabilizer ? top - half : 0.0f;
}

// One block per head: the largest log scale of the head's keys.
__global__ void head_max_kernel(const float* log_scale, float* top, int length) {
  __shared__ float scratch[33];
  const float* x = log_scale + std::size_t(blockIdx.x) * length;
  float local = -INFINITY;
  for (int j = int(threadIdx.x); j < length; j += int(blockDim.x)) local = fmaxf(local, x[j]);
  const float result = block_reduce(local, MaxOp{}, scratch);
  if (threadIdx.x == 0) top[blockIdx.x] = result;
}

// The chunk [first, first + rows) of a causal head. Arrays indexed by (head, position) have `length` positions
// per head; chunk buffers (a chunk's features and log scales: rows per head; num: rows×(dv+1), scores: rows×rows)
// have a fixed stride per head.
struct Chunk {
  int first, rows, length;
};

// One block of kScanThreads per head: running[h, first + r] = max(running[h, first − 1], max_{r' ≤ r} log_scale[h, r'])
// for the chunk's log scales (rows per head), i.e. M_j = max_{j' ≤ j} of the keys' log scales (the M_j of
// causal_favor_attention), carried from chunk to chunk.
__global__ void prefix_max_kernel(const float* log_scale, float* running, Chunk chunk) {
  __shared__ float tile[kScanThreads];
  __shared__ float carry;
  const float* x = log_scale + std::size_t(blockIdx.x) * chunk.rows;
  float* y = running + std::size_t(blockIdx.x) * chunk.length + std::size_t(chunk.first);
  const int t = int(threadIdx.x);
  if (t == 0) carry = chunk.first > 0 ? y[-1] : -INFINITY;
  __syncthreads();
  for (int base = 0; base < chunk.rows; base += int(kScanThreads)) {
    const int j = base + t;
    float value = j < chunk.rows ? x[j] : -INFINITY;
    tile[t] = value;
    __syncthreads();
    for (int offset = 1; offset < int(kScanThreads); offset *= 2) {  // Hillis–Steele inclusive scan
      const float other = t >= offset ? tile[t - offset] : -INFINITY;
      __syncthreads();
      value = fmaxf(value, other);
      tile[t] = value;
      __syncthreads();
    }
    value = fmaxf(value, carry);
    if (j < chunk.rows) y[j] = value;
    __syncthreads();  // every thread has read carry
    if (t == int(kScanThreads) - 1) carry = value;
    __syncthreads();
  }
}

// values[h, j, :] *= exp(log_scale[h, j] − top[h]) for heads × length rows of `columns` entries.
__global__ void scale_by_head_top_kernel(float* values, const float* log_scale, const float* top, int length,
                                         int columns, std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) {
    const std::size_t row = i / std::size_t(columns);
    values[i] *= expf(log_scale[row] - top[row / std::size_t(length)]);
  }
}

// The chunk's key features (rows×columns per head) relative to their running maxima: × exp(s_j − M_j).
__global__ void keys_to_running_kernel(float* key_values, const float* log_scale, const float* running, Chunk chunk,
                                       int columns, std::size_t count) {
  for (std::size_t t = first_index(); t < count; t += grid_stride()) {
    const std::size_t row = t / std::size_t(columns);  // h · rows + j
    const std::size_t h = row / std::size_t(chunk.rows), j = row % std::size_t(chunk.rows);
    key_values[t] *= expf(log_scale[row] - running[h * std::size_t(chunk.length) + std::size_t(chunk.first) + j]);
  }
}

// Bidirectional output: num (heads×lq×(dv+1)) → out (heads×lq×dv), dividing by the last column (renormalize) or
// multiplying the query's and the keys' log scales back (the estimate of A V).
__global__ void bidirectional_output_kernel(const float* num, const float* query_log_scale, const float* key_top,
                                            float* out, int lq, int dv, bool renormalize, std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) {
    const std::size_t row = i / std::size_t(dv), c = i % std::size_t(dv);
    const float* n = num + row * std::size_t(dv + 1);
    out[i] = renormalize ? n[c] / n[dv] : n[c] * expf(query_log_scale[row] + key_top[row / std::size_t(lq)]);
  }
}

// num[h, i, :] *= exp(M[h, first − 1] − M[h, first + i]): the carried state's factor for query i (≤ 1).
__global__ void carry_factor_kernel(float* num, long long num_stride, const float* running, Chunk chunk, int width,
                                    std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) {
    const std::size_t per_head = std::size_t(chunk.rows) * width;
    const std::size_t h = i / per_head, r = (i % per_head) / std::size_t(width);
    const float* m = running + h * std::size_t(chunk.length) + std::size_t(chunk.first);
    num[h * std::size_t(num_stride) + (i % per_head)] *= expf(m[-1] - m[r]);
  }
}

// scores[h, i, j] (rows×rows): × exp(M_j − M_i) below the diagonal, unchanged on it, 0 above it (later keys).
__global__ void causal_mask_kernel(float* scores, long long scores_stride, const float* running, Chunk chunk,
                                   std::size_t count) {
  for (std::size_t t = first_index(); t < count; t += grid_stride()) {
    const std::size_t per_head = std::size_t(chunk.rows) * std::size_t(chunk.rows);
    const std::size_t h = t / per_head, e = t % per_head;
    const std::size_t i = e / std::size_t(chunk.rows), j = e % std::size_t(chunk.rows);
    float& s = scores[h * std::size_t(scores_stride) + e];
    if (j > i) {
      s = 0.0f;
    } else if (j < i) {
      const float* m = running + h * std::size_t(chunk.length) + std::size_t(chunk.first);
      s *= expf(m[j] - m[i]);
    }
  }
}

// Causal output rows of the chunk: num (rows×(dv+1) per head) → out[h, first + i, :]; query_log_scale holds the
// chunk's queries (rows per head).
__global__ void causal_output_kernel(const float* num, long long num_stride, const float* query_log_scale,
                                     const float* running, float* out, Chunk chunk, int dv, bool renormalize,
                                     std::size_t count) {
  for (std::size_t t = first_index(); t < count; t += grid_stride()) {
    const std::size_t per_head = std::size_t(chunk.rows) * std::size_t(dv);
    const std::size_t h = t / per_head, i = (t % per_head) / std::size_t(dv), c = t % std::size_t(dv);
    const float* n = num + h * std::size_t(num_stride) + i * std::size_t(dv + 1);
    const std::size_t position = h * std::size_t(chunk.length) + std::size_t(chunk.first) + i;
    out[position * std::size_t(dv) + c] =
        renormalize ? n[c] / n[dv]
                    : n[c] * expf(query_log_scale[h * std::size_t(chunk.rows) + i] + running[position]);
  }
}

// Key features of the chunk (rows×columns per head), relative to the chunk's last running maximum: × exp(M_j − M_last).
__global__ void chunk_keys_to_last_kernel(float* key_values, const float* running, Chunk chunk, int columns,
                                          std::size_t count) {
  for (std::size_t t = first_index(); t < count; t += grid_stride()) {
    const std::size_t per_head = std::size_t(chunk.rows) * std::size_t(columns);
    const std::size_t h = t / per_head, j = (t % per_head) / std::size_t(columns);
    const float* m = running + h * std::size_t(chunk.length) + std::size_t(chunk.first);
    key_values[t] *= expf(m[j] - m[chunk.rows - 1]);
  }
}

// The carried state of every head, from the previous chunk's last maximum to this chunk's: × exp(M_old − M_last).
__global__ void state_to_last_kernel(float* state, std::size_t per_head, const float* running, Chunk chunk,
                                     std::size_t count) {
  for (std::size_t t = first_index(); t < count; t += grid_stride()) {
    const std::size_t h = t / per_head;
    const float* m = running + h * std::size_t(chunk.length) + std::size_t(chunk.first);
    state[t] *= expf(m[-1] - m[chunk.rows - 1]);
  }
}

// Row-major products through column-major cuBLAS: a row-major R×C matrix is the column-major C×R matrix (its
// transpose) with leading dimension C. Each helper says which product it forms.

// P = U Wᵀ (rows×m per head) for U rows×d per head, one W for all heads (stride 0) or one per head.
void project(ProductFormat format, const float* u, const float* w, float* p, int rows, int d, int m, int heads,
             bool per_head_w = false) {
  gemm_heads(format, CUBLAS_OP_T, CUBLAS_OP_N, m, rows, d, w, d, per_head_w ? (long long)m * d : 0, u, d,
             (long long)rows * d, 0.0f, p, m, (long long)rows * m, heads);
}

// p[h, r, c] += offsets[h, c]: the shifted positive map's c_i, added before the positive map (as the CPU's projected()).
__global__ void add_offsets_kernel(float* p, const float* offsets, int rows, int m, std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) {
    const std::size_t h = i / (std::size_t(rows) * m), c = i % std::size_t(m);
    p[i] += offsets[h * std::size_t(m) + c];
  }
}

// S = K̃ᵀ [V, 1] (F×(dv+1) per head), then N = Q' S (lq×(dv+1) per head): the two products of bidirectional FAVOR.
DeviceBuffer state_and_numerator(const Shape& s, int F, const float* v_ext, const float* fq, const float* fk,
                                 ProductFormat format) {
  const int dv1 = s.dv + 1;
  // Column-major Sᵀ = [V, 1]ᵀ K̃.
  DeviceBuffer state(std::size_t(s.heads) * F * dv1);
  gemm_heads(format, CUBLAS_OP_N, CUBLAS_OP_T, dv1, F, s.lk, v_ext, dv1, (long long)s.lk * dv1, fk, F,
             (long long)s.lk * F, 0.0f, state.get(), dv1, (long long)F * dv1, s.heads);
  // Column-major Nᵀ = Sᵀ Q'ᵀ.
  DeviceBuffer num(std::size_t(s.heads) * s.lq * dv1);
  gemm_heads(format, CUBLAS_OP_N, CUBLAS_OP_N, dv1, s.lq, F, state.get(), dv1, (long long)F * dv1, fq, F,
             (long long)s.lq * F, 0.0f, num.get(), dv1, (long long)s.lq * dv1, s.heads);
  return num;
}

void bidirectional(const Shape& s, const FavorOptions& o, const DeviceBuffer& v_ext, DeviceBuffer& fq,
                   const DeviceBuffer& sq, DeviceBuffer& fk, const DeviceBuffer& sk, DeviceBuffer& out) {
  const int F = o.columns;
  DeviceBuffer top(std::size_t(s.heads));
  head_max_kernel<<<unsigned(s.heads), kRowThreads>>>(sk.get(), top.get(), s.lk);
  check_launch("head_max_kernel");
  scale_by_head_top_kernel<<<blocks_for(fk.size(), kThreads), kThreads>>>(fk.get(), sk.get(), top.get(), s.lk, F,
                                                                          fk.size());
  check_launch("scale_by_head_top_kernel");
  const DeviceBuffer num = state_and_numerator(s, F, v_ext.get(), fq.get(), fk.get(), o.products);
  bidirectional_output_kernel<<<blocks_for(out.size(), kThreads), kThreads>>>(
      num.get(), sq.get(), top.get(), out.get(), s.lq, s.dv, o.renormalize, out.size());
  check_launch("bidirectional_output_kernel");
}

// [V, 1] (heads·lk rows of dv + 1): one product gives the numerator and the denominator D̂ (values_with_ones.hpp).
template <class In>
__global__ void append_ones_kernel(const In* v, float* v_ext, int dv, std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) {
    const std::size_t row = i / std::size_t(dv + 1), c = i % std::size_t(dv + 1);
    v_ext[i] = c == std::size_t(dv) ? 1.0f : widened(v[row * std::size_t(dv) + c]);
  }
}

// y[h, r, :] = x[h, first + r, :] · factor for the rows [first, first + rows) of every head of x (heads×length×d),
// x widened to float first (exact).
template <class In>
__global__ void scaled_rows_kernel(const In* x, float* y, int length, int first, int rows, int d, float factor,
                                   std::size_t count) {
  for (std::size_t i = first_index(); i < count; i += grid_stride()) {
    const std::size_t per_head = std::size_t(rows) * std::size_t(d);
    const std::size_t h = i / per_head;
    y[i] = widened(x[(h * std::size_t(length) + std::size_t(first)) * std::size_t(d) + i % per_head]) * factor;
  }
}

DeviceBuffer with_ones(const Shape& s, const DeviceInput& v) {
  DeviceBuffer v_ext(std::size_t(s.heads) * s.lk * (s.dv + 1));
  v.visit([&](const auto* values) {
    append_ones_kernel<<<blocks_for(v_ext.size(), kThreads), kThreads>>>(values, v_ext.get(), s.dv, v_ext.size());
  });
  check_launch("append_ones_kernel");
  return v_ext;
}

// The raw inputs on the device: q heads×lq×d, k heads×lk×d, v heads×lk×dv in their format, w m×d (heads×m×d and
// offsets heads×m for a per-head projection).
struct DeviceInputs : DeviceQkv {
  DeviceBuffer w, offsets;
  DeviceInputs(const Shape& s, int m, const HostInputs& h, const float* wh, bool per_head = false,
               const float* oh = nullptr)
      : DeviceQkv(s, h),
        w(uploaded(wh, std::size_t(per_head ? s.heads : 1) * m * s.d)),
        offsets(oh != nullptr ? uploaded(oh, std::size_t(s.heads) * m) : DeviceBuffer(0)) {}
};

// φ of the raw rows [first, first + rows) of every head of X (heads × length × d) and their log scales, heads·rows
// of each: U = X d^{-1/4} first, then U Wᵀ (the CPU's order of rounding), then the feature map. U and U Wᵀ are freed
// on return, so a forward never holds two projections at once.
struct Features {
  DeviceBuffer values, log_scale;  // heads·rows × columns, heads·rows
};

Features features_of(const Shape& s, const FavorOptions& o, const DeviceInput& x, const DeviceInputs& in,
                     int length, int first, int rows) {
  const std::size_t n = std::size_t(s.heads) * rows;
  DeviceBuffer u(n * s.d);
  x.visit([&](const auto* values) {
    scaled_rows_kernel<<<blocks_for(u.size(), kThreads), kThreads>>>(values, u.get(), length, first, rows, s.d,
                                                                     o.input_scale, u.size());
  });
  check_launch("scaled_rows_kernel");
  DeviceBuffer p(o.m > 0 ? n * o.m : 0);
  if (o.m > 0) project(o.products, u.get(), in.w.get(), p.get(), rows, s.d, o.m, s.heads, o.per_head_projection);
  if (o.m > 0 && in.offsets.size() > 0) {
    add_offsets_kernel<<<blocks_for(n * o.m, kThreads), kThreads>>>(p.get(), in.offsets.get(), rows, o.m, n * o.m);
    check_launch("add_offsets_kernel");
  }
  Features f{DeviceBuffer(n * o.columns), DeviceBuffer(n)};
  features_kernel<<<unsigned(n), kRowThreads>>>(u.get(), o.m > 0 ? p.get() : nullptr, f.values.get(),
                                                f.log_scale.get(), s.d, o);
  check_launch("features_kernel");
  return f;
}

// Chunked causal FAVOR, chunk by chunk of C rows: the chunk's query and key features are formed when the chunk is
// reached and freed after it, so no feature matrix of all L rows exists. The running maxima M_j of the keys' log
// scales are carried from chunk to chunk (prefix_max_kernel), which is all the stabilizer needs of earlier chunks.
// Per chunk: K̃_j = K'_j relative to exp(M_j); num = exp(M_old − M_i) Q'_c G (the keys of earlier chunks) plus the
// masked scores Q'_c K̃_cᵀ scaled by exp(M_j − M_i) times [V_c, 1]; then G ← exp(M_old − M_last) G + K̂_cᵀ [V_c, 1].
void causal(const Shape& s, const FavorOptions& o, const DeviceInputs& in, const DeviceBuffer& v_ext,
            DeviceBuffer& out) {
  const int F = o.columns, dv1 = s.dv + 1, L = s.lk, C = std::min(o.chunk, L);
  DeviceBuffer running(std::size_t(s.heads) * L);
  const std::size_t state_per_head = std::size_t(F) * dv1;
  DeviceBuffer state(std::size_t(s.heads) * state_per_head);  // G, relative to exp(M at the previous chunk's end)
  state.zero();
  const long long num_stride = (long long)C * dv1, scores_stride = (long long)C * C;
  DeviceBuffer num(std::size_t(s.heads) * std::size_t(num_stride));
  DeviceBuffer scores(std::size_t(s.heads) * std::size_t(scores_stride));
  const long long v_stride = (long long)L * dv1;
  for (int first = 0; first < L; first += C) {
    const Chunk chunk{first, std::min(C, L - first), L};
    const int rows = chunk.rows;
    const Features fq = features_of(s, o, in.q, in, s.lq, first, rows);
    const Features fk = features_of(s, o, in.k, in, L, first, rows);
    const long long f_stride = (long long)rows * F;  // the chunk's features, per head
    const float* q_chunk = fq.values.get();
    float* k_chunk = fk.values.get();
    const float* v_chunk = v_ext.get() + std::size_t(first) * dv1;
    prefix_max_kernel<<<unsigned(s.heads), kScanThreads>>>(fk.log_scale.get(), running.get(), chunk);
    check_launch("prefix_max_kernel");
    keys_to_running_kernel<<<blocks_for(fk.values.size(), kThreads), kThreads>>>(
        k_chunk, fk.log_scale.get(), running.get(), chunk, F, fk.values.size());
    check_launch("keys_to_running_kernel");
    const std::size_t num_count = std::size_t(s.heads) * rows * dv1;
    if (first > 0) {  // num = exp(M_old − M_i) · Q'_c G: the keys of earlier chunks
      gemm_heads(o.products, CUBLAS_OP_N, CUBLAS_OP_N, dv1, rows, F, state.get(), dv1, (long long)state_per_head,
                 q_chunk, F, f_stride, 0.0f, num.get(), dv1, num_stride, s.heads);
      carry_factor_kernel<<<blocks_for(num_count, kThreads), kThreads>>>(num.get(), num_stride, running.get(), chunk,
                                                                         dv1, num_count);
      check_launch("carry_factor_kernel");
    }
    // scores = Q'_c K̃_cᵀ (rows×rows): column-major scoresᵀ = K̃_c Q'_cᵀ; then the mask and exp(M_j − M_i).
    gemm_heads(o.products, CUBLAS_OP_T, CUBLAS_OP_N, rows, rows, F, k_chunk, F, f_stride, q_chunk, F, f_stride, 0.0f,
               scores.get(), rows, scores_stride, s.heads);
    const std::size_t score_count = std::size_t(s.heads) * rows * rows;
    causal_mask_kernel<<<blocks_for(score_count, kThreads), kThreads>>>(scores.get(), scores_stride, running.get(),
                                                                        chunk, score_count);
    check_launch("causal_mask_kernel");
    // num += scores [V_c, 1]: column-major numᵀ = [V_c, 1]ᵀ scoresᵀ.
    gemm_heads(o.products, CUBLAS_OP_N, CUBLAS_OP_N, dv1, rows, rows, v_chunk, dv1, v_stride, scores.get(), rows,
               scores_stride, first > 0 ? 1.0f : 0.0f, num.get(), dv1, num_stride, s.heads);
    const std::size_t out_count = std::size_t(s.heads) * rows * s.dv;
    causal_output_kernel<<<blocks_for(out_count, kThreads), kThreads>>>(num.get(), num_stride, fq.log_scale.get(),
                                                                        running.get(), out.get(), chunk, s.dv,
                                                                        o.renormalize, out_count);
    check_launch("causal_output_kernel");
    // G ← exp(M_old − M_last) G + K̂_cᵀ [V_c, 1] with K̂_j = K̃_j exp(M_j − M_last).
    chunk_keys_to_last_kernel<<<blocks_for(fk.values.size(), kThreads), kThreads>>>(k_chunk, running.get(), chunk, F,
                                                                                    fk.values.size());
    check_launch("chunk_keys_to_last_kernel");
    if (first > 0) {
      state_to_last_kernel<<<blocks_for(state.size(), kThreads), kThreads>>>(state.get(), state_per_head,
                                                                             running.get(), chunk, state.size());
      check_launch("state_to_last_kernel");
    }
    gemm_heads(o.products, CUBLAS_OP_N, CUBLAS_OP_T, dv1, F, rows, v_chunk, dv1, v_stride, k_chunk, F, f_stride, 1.0f,
               state.get(), dv1, (long long)state_per_head, s.heads);
  }
}

// The whole forward on device-resident inputs; returns the output (heads×lq×dv). Device memory it holds at most,
// in floats per head (the [cuda] tests check these counts):
//   bidirectional: [V, 1] L(dv+1) and both feature sets 2L(F+1) throughout; while the keys' features are formed also
//   U_K (L d) and U_K Wᵀ (L m); afterwards the output L dv, the state F(dv+1), the numerator L(dv+1) and one maximum;
//   causal: [V, 1] L(dv+1), the output L dv, the running maxima L, the state F(dv+1), a chunk's numerator C(dv+1) and
//   scores C² throughout; then per chunk of C rows its queries' and keys' features 2C(F+1), and while the keys' are
//   formed also U (C d) and U Wᵀ (C m). The causal peak therefore grows with L only through L(2 dv + 2): at
//   L = 65536, d = dv = 64, m = 256 and C = 48 that is 131 floats per row and head, a memory ratio
//   (inputs + peak)/(inputs + outputs) of (192 + 131)/256 ≈ 1.26.
DeviceBuffer favor_forward(const Shape& s, const FavorOptions& o, const DeviceInputs& in) {
  const DeviceBuffer v_ext = with_ones(s, in.v);
  if (o.causal) {
    DeviceBuffer result(std::size_t(s.heads) * s.lq * s.dv);
    causal(s, o, in, v_ext, result);
    return result;
  }
  Features fq = features_of(s, o, in.q, in, s.lq, 0, s.lq);
  Features fk = features_of(s, o, in.k, in, s.lk, 0, s.lk);
  DeviceBuffer result(std::size_t(s.heads) * s.lq * s.dv);
  bidirectional(s, o, v_ext, fq.values, fq.log_scale, fk.values, fk.log_scale, result);
  return result;
}

}  // namespace

void favor_attention_device(const Shape& s, const FavorOptions& o, const HostInputs& inputs, const float* w,
                            float* out, const float* offsets) {
  const DeviceInputs in(s, o.m, inputs, w, o.per_head_projection, offsets);
  favor_forward(s, o, in).download(out);  // synchronizes: a failed kernel reports here
  check_cuda(cudaGetLastError(), "favor_attention_device");
}

DeviceTiming time_favor_device(const Shape& s, const FavorOptions& o, const HostInputs& inputs, const float* w,
                               int repeats, const float* offsets) {
  const DeviceInputs in(s, o.m, inputs, w, o.per_head_projection, offsets);
  return time_forward(repeats, [&] { return favor_forward(s, o, in); });
}

DeviceTiming time_favor_products_device(const Shape& s, int m, const float* q, const float* k, const float* v,
                                        const float* w, int repeats, ProductFormat format) {
  const DeviceInputs in(s, m, HostInputs{InputFormat::float32, q, k, v}, w);
  const DeviceBuffer v_ext = with_ones(s, in.v);
  const std::size_t heads = std::size_t(s.heads);
  return time_forward(repeats, [&] {
    DeviceBuffer pq(heads * s.lq * m), pk(heads * s.lk * m);
    project(format, in.q.data<float>(), in.w.get(), pq.get(), s.lq, s.d, m, s.heads);
    project(format, in.k.data<float>(), in.w.get(), pk.get(), s.lk, s.d, m, s.heads);
    return state_and_numerator(s, m, v_ext.get(), pq.get(), pk.get(), format);
  });
}

DeviceTiming time_copy_device(const Shape& s, const float* v, int repeats) {
  const DeviceBuffer dv = uploaded(v, std::size_t(s.heads) * s.lk * s.dv);
  return time_forward(repeats, [&] {
    DeviceBuffer out(dv.size());
    check_cuda(cudaMemcpyAsync(out.get(), dv.get(), dv.size() * sizeof(float), cudaMemcpyDeviceToDevice),
               "cudaMemcpyAsync");
    return out;
  });
}

}  // namespace favorlab::cuda_detail
