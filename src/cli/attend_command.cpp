#include "cli/attend_command.hpp"

#include <chrono>
#include <limits>
#include <utility>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/backend.hpp"
#include "attention/half_inputs.hpp"
#include "cli/run_experiment.hpp"
#include "perf/memory_estimate.hpp"
#include "io/atomic_file.hpp"
#include "io/input_file.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"
#include "runtime/memory_budget.hpp"

namespace favorlab {

namespace {

// The largest L for --matrix: an (H, L, L) float64 matrix at L = 8192 is already 512 MB per head.
constexpr Eigen::Index kMatrixMaxLength = 8192;

AttentionConfig config_from(const AttendOptions& o) {
  AttentionConfig c;
  c.mechanism = parse_mechanism(o.mechanism);
  c.features = parse_feature_kind(o.features);
  c.coupling = parse_coupling(o.coupling);
  c.m = o.m;
  c.chunk = o.chunk_given ? o.chunk : default_chunk(parse_backend(o.backend));
  c.kernel_epsilon = o.kernel_epsilon;
  c.parameters.gerf_a = o.gerf_a;
  c.causal = o.causal;
  c.renormalize = !o.no_renormalize;
  c.stabilizer = !o.no_stabilizer;
  c.project = !o.no_projection;
  c.precision = parse_product_precision(o.precision);
  return c;
}

Eigen::MatrixXd read_projection(const std::string& path, AttentionConfig& config, int d) {
  const NpyArray w = read_npy(path);
  if (w.shape.size() != 2)
    throw std::invalid_argument(path + ": W must have shape (m, d), got " + npy_shape_string(w.shape));
  if (w.shape[1] != d)
    throw std::invalid_argument(path + ": W has " + std::to_string(w.shape[1]) + " columns but Q and K have d = " +
                                std::to_string(d));
  if (projection_rows(config) == 0)
    throw std::invalid_argument("--w: this mechanism uses no projection (" + std::string(mechanism_name(config.mechanism)) +
                                (config.mechanism == Mechanism::favor ? ", --no-projection" : "") + ")");
  config.m = static_cast<int>(w.shape[0]);  // W decides m
  Eigen::MatrixXd out(w.shape[0], w.shape[1]);
  for (Eigen::Index i = 0; i < out.rows(); ++i)
    for (Eigen::Index j = 0; j < out.cols(); ++j) out(i, j) = w.values[std::size_t(i * out.cols() + j)];
  return out;
}

template <class T>
std::pair<std::filesystem::path, std::string> encoded_heads(const std::string& path, const Heads<T>& heads,
                                                            bool head_axis, NpyDtype dtype) {
  const NpyArray array = heads_to_npy(heads, !head_axis);
  return {path, encode_npy(array.shape, array.values, dtype, path)};
}

std::int64_t nonfinite_count(const auto& heads) {
  std::int64_t n = 0;
  for (const auto& h : heads) n += (!h.array().isFinite()).count();
  return n;
}

template <class T>
void run_typed(const AttendOptions& o, const NpyArray& qa, const NpyArray& ka, const NpyArray& va,
               AttentionConfig config, NpyDtype out_dtype, int threads) {
  // With --half-inputs the heads are rounded to the 16-bit format here, so the output and the attention matrix see
  // the same values; the CUDA backend then also holds them in it. They are rounded from the file's values (doubles).
  const HalfInputs half = parse_half_inputs(o.half_inputs);
  const auto heads_of = [&](const NpyArray& a, const std::string& what) {
    return half == HalfInputs::off ? npy_to_heads<T>(a, what)
                                   : rounded_as<T>(half, npy_to_heads<double>(a, what), what);
  };
  const Heads<T> q = heads_of(qa, "--q " + o.q), k = heads_of(ka, "--k " + o.k), v = heads_of(va, "--v " + o.v);
  const int d = static_cast<int>(q.front().cols());
  // Every output path is checked before any work, so a typo in the last one does not waste the run.
  for (const std::string& path : {o.out, o.matrix, o.save_w})
    if (!path.empty()) AtomicFileWriter probe(path);
  // The inputs (shapes: checked from the headers; values: by read_npy) before W is read or drawn.
  Eigen::MatrixXd w = o.w.empty() ? Eigen::MatrixXd() : read_projection(o.w, config, d);
  if (o.w.empty()) w = draw_attention_projection(config, d, o.seed, o.draw);
  const bool head_axis = qa.shape.size() == 3;

  const auto start = std::chrono::steady_clock::now();
  // The engine's one check of the heads as they will be used (float32 or a 16-bit format can overflow where the
  // file's values did not), named by the files; nothing below checks them again.
  const auto checked = [&] {
    try {
      return AttentionInputs<T>(q, k, v, w, config);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(o.q + ", " + o.k + ", " + o.v + ": " + e.what());
    }
  };
  const AttentionInputs<T> in = checked();
  Heads<T> out;
  if constexpr (std::is_same_v<T, float>)
    out = attend_on_backend(parse_backend(o.backend), in, threads, half);
  else
    out = attend(in, threads);
  Heads<T> matrices;
  if (!o.matrix.empty())
    for (std::size_t h = 0; h < q.size(); ++h) matrices.push_back(attention_matrix(in, h, threads));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::int64_t bad = nonfinite_count(out) + nonfinite_count(matrices);
  if (bad > 0 && config.mechanism == Mechanism::exact)
    // Finite inputs, and V's range is handled (exact_attention.cpp): only the logits q·k/√d can have overflowed the
    // arithmetic's type. There is no right answer to write in that type: refuse, before anything is written.
    throw std::invalid_argument(std::string("exact attention cannot run in ") +
                                (std::is_same_v<T, float> ? "float32" : "float64") +
                                " at these input magnitudes: the logits q·k/sqrt(d) overflow it; rescale Q and K" +
                                (std::is_same_v<T, float> ? " or pass --dtype float64" : ""));
  // Every file encoded before any is written, and all published together: a failure on the way (memory, a full
  // disk) leaves none of them half-done or alone.
  std::vector<std::pair<std::filesystem::path, std::string>> files{encoded_heads(o.out, out, head_axis, out_dtype)};
  if (!o.matrix.empty()) files.push_back(encoded_heads(o.matrix, matrices, head_axis, out_dtype));
  if (!o.save_w.empty()) files.push_back(encoded_heads(o.save_w, Heads<double>{w}, false, NpyDtype::float64));
  commit_files(files);

  if (bad > 0)
    std::fprintf(stderr,
                 "favorlab: warning: the output has %lld NaN/Inf values: the estimated row sums D̂ vanished or "
                 "overflowed (%s features%s)\n",
                 static_cast<long long>(bad), o.features.c_str(), o.no_stabilizer ? ", stabilizer off" : "");
  if (!o.quiet)
    std::fprintf(stderr, "attend: %s%s%s, %s, %zu head(s) × L = %lld × d = %d (%s%s) in %.3f s → %s\n",
                 o.mechanism.c_str(), config.mechanism == Mechanism::favor ? (" " + o.features).c_str() : "",
                 config.mechanism == Mechanism::favor && w.rows() ? (" m = " + std::to_string(w.rows())).c_str() : "",
                 config.causal ? "causal" : "bidirectional", q.size(), static_cast<long long>(q.front().rows()), d,
                 out_dtype == NpyDtype::float32 ? "float32" : "float64",
                 (std::string(half == HalfInputs::off ? "" : ", inputs rounded to " + o.half_inputs) +
                  (config.precision == ProductPrecision::float32 ? "" : ", products in " + o.precision))
                     .c_str(),
                 seconds,
                 printable(o.out).c_str());
}

}  // namespace

void add_attend_options(CLI::App& app, AttendOptions& o) {
  app.add_option("--q", o.q, "Queries .npy, shape (L, d) or (H, L, d), float16/float32/float64")->required();
  app.add_option("--k", o.k, "Keys .npy, same shape as --q")->required();
  app.add_option("--v", o.v, "Values .npy, shape (L, dv) or (H, L, dv)")->required();
  app.add_option("--w", o.w, "Projection .npy, shape (m, d), rows are the ω_i (default: drawn from --seed/--draw)");
  app.add_option("--out", o.out, "Output .npy (same layout as --v)")->required();
  app.add_option("--matrix", o.matrix, "Also write the attention matrix .npy, (L, L) or (H, L, L)");
  app.add_option("--save-w", o.save_w, "Also write the projection used, (m, d) float64");
  app.add_option("--mechanism", o.mechanism, "exact or favor")->capture_default_str();
  app.add_option("--features", o.features,
                 family_list(estimates_softmax) + ", or a generalized kernel: " +
                     family_list([](Family f) { return !estimates_softmax(f); }))
      ->capture_default_str();
  app.add_option("--gerf-a", o.gerf_a, "A of --features gerf (any A < 1/8; 0 is positive)")->capture_default_str();
  app.add_option("--m", o.m, "Number of random features (rows of W)")->capture_default_str();
  app.add_option("--coupling", o.coupling, "iid, orthogonal, hadamard, givens or simplex")->capture_default_str();
  app.add_flag("--causal", o.causal, "Causal (unidirectional) attention: query i sees keys j ≤ i");
  app.add_flag("--no-renormalize", o.no_renormalize, "Return the estimate of A V, not D⁻¹ A V");
  app.add_flag("--no-stabilizer", o.no_stabilizer, "Plain exp(·) in softmax features (may overflow)");
  app.add_flag("--no-projection", o.no_projection, "Generalized kernels: f(u) instead of f(Wu)");
  app.add_option("--kernel-epsilon", o.kernel_epsilon, "ε_k added to generalized-kernel features")->capture_default_str();
  app.add_option_function<int>(
      "--chunk",
      [&o](int chunk) {
        o.chunk = chunk;
        o.chunk_given = true;
      },
      "Causal FAVOR: rows per chunk (1 = plain prefix sums; default 48 on cpu, 512 on cuda)");
  app.add_option("--dtype", o.dtype,
                 "float32 or float64 (default: float64 if any input is float64; float16 inputs run in float32)");
  app.add_option("--seed", o.seed, "Seed of the projection draw")->capture_default_str();
  app.add_option("--draw", o.draw, "Draw number (feature redraw: 0, 1, 2, …)")->capture_default_str();
  app.add_option("--threads", o.threads, "OpenMP threads (default: all processors)");
  app.add_option("--max-memory", o.max_memory,
                 "Refuse to start when the predicted peak memory exceeds this (e.g. 8G; default: the memory available)");
  app.add_option("--backend", o.backend, "cpu, or cuda (float32; needs a CUDA build and a GPU)")->capture_default_str();
  app.add_option("--half-inputs", o.half_inputs,
                 "off, float16 or bfloat16: round Q, K, V to this 16-bit format first (nearest even); the arithmetic "
                 "stays float32/float64, and the cuda backend holds the inputs in 16 bits on the device")
      ->capture_default_str();
  app.add_option("--precision", o.precision,
                 "float32, tf32 or bfloat16: the format the products multiply in on the GPU (cuda backend; sums stay "
                 "float32): FAVOR's in tf32 or bfloat16, exact attention's in bfloat16 through cuDNN's fused "
                 "attention; error bounds in docs/gpu.md")
      ->capture_default_str();
  app.add_flag("--quiet", o.quiet, "No summary line");
}

namespace {

// One input's (heads, rows, columns) from its header, refusing a rank other than 2 or 3 and an empty shape.
struct InputShape {
  double heads = 1, rows = 0, cols = 0;
  std::size_t rank = 2;
};

InputShape input_shape(const NpyHeader& h, const std::string& what) {
  const auto& s = h.shape;
  if (s.size() != 2 && s.size() != 3)
    throw std::invalid_argument(what + ": expected shape (L, d) or (H, L, d), got " + npy_shape_string(s));
  for (const std::int64_t dim : s)
    if (dim == 0)
      throw std::invalid_argument(what + ": shape " + npy_shape_string(s) +
                                  " is empty: at least one head, one row and one column are needed");
  const std::size_t r = s.size();
  return {r == 3 ? static_cast<double>(s[0]) : 1.0, static_cast<double>(s[r - 2]), static_cast<double>(s[r - 1]), r};
}

std::string dims(const InputShape& s) {
  return "(" + std::to_string(static_cast<long long>(s.rows)) + ", " + std::to_string(static_cast<long long>(s.cols)) +
         ")";
}

// Q, K and V's shapes against each other: a head axis on all three or none, the same heads, Q's d = K's d, K's L =
// V's L, as many queries as keys for causal attention, and d within the supported 1e6.
void check_input_shapes(const AttendOptions& o, const AttentionConfig& config, const InputShape& q,
                        const InputShape& k, const InputShape& v) {
  if (q.rank != k.rank || q.rank != v.rank)
    throw std::invalid_argument("--q " + o.q + ", --k " + o.k + ", --v " + o.v +
                                ": all three need a head axis, or none");
  const std::string inputs = o.q + ", " + o.k + ", " + o.v + ": ";
  if (q.heads != k.heads || q.heads != v.heads)
    throw std::invalid_argument(inputs + "Q, K and V have different numbers of heads");
  if (q.cols != k.cols)
    throw std::invalid_argument(inputs + "Q is " + dims(q) + " but K is " + dims(k) +
                                ": Q and K need the same dimension d");
  if (k.rows != v.rows)
    throw std::invalid_argument(inputs + "K is " + dims(k) + " but V is " + dims(v) +
                                ": K and V need the same length L");
  if (config.causal && q.rows != k.rows)
    throw std::invalid_argument(inputs + "causal attention needs as many queries as keys");
  if (q.cols > 1e6)
    throw std::invalid_argument(inputs + "d = " + std::to_string(static_cast<long long>(q.cols)) +
                                " is beyond the supported 1e6");
}

// The projection as the memory prediction sees it: m (W's rows) and how a W file stores its values.
struct ProjectionHeader {
  double rows = 0;
  NpyDtype dtype = NpyDtype::float64;
};

// A W file decides m: its header is checked and its rows enter the memory prediction (not --m). Without --w: --m, or
// 0 for a mechanism with no projection. d: Q's and K's columns.
ProjectionHeader projection_header(const AttendOptions& o, const AttentionConfig& config, double d) {
  ProjectionHeader w;
  w.rows = projection_rows(config) > 0 ? config.m : 0;
  if (o.w.empty()) return w;
  const NpyHeader wh = read_npy_header(o.w);
  if (wh.shape.size() != 2 || wh.shape[0] == 0 || wh.shape[1] == 0)
    throw std::invalid_argument("--w " + o.w + ": W must have shape (m, d) with m, d >= 1, got " +
                                npy_shape_string(wh.shape));
  if (static_cast<double>(wh.shape[1]) != d)
    throw std::invalid_argument("--w " + o.w + ": W has " + std::to_string(wh.shape[1]) +
                                " columns but Q and K have d = " + std::to_string(static_cast<long long>(d)));
  if (projection_rows(config) == 0)
    throw std::invalid_argument("--w: this mechanism uses no projection (" +
                                std::string(mechanism_name(config.mechanism)) +
                                (config.mechanism == Mechanism::favor ? ", --no-projection" : "") + ")");
  if (wh.shape[0] > std::numeric_limits<int>::max())
    throw std::invalid_argument("--w " + o.w + ": " + std::to_string(wh.shape[0]) + " rows, more than m can be");
  w.rows = static_cast<double>(wh.shape[0]);
  w.dtype = wh.dtype;
  return w;
}

// The run's predicted peak memory in bytes, from the headers alone (before any data is read or any W drawn).
// Memory (bytes per value): the inputs as read (raw ≤ 8, float64 values, converted heads); the outputs kept, as
// float64 for the writer and encoded (scalar each); per head in turn, an attention matrix's one-hot values and
// output; the engine and the projection (perf/memory_estimate.hpp, the model the experiments use).
double predicted_attend_bytes(const AttendOptions& o, const AttentionConfig& config, const InputShape& q,
                              const InputShape& k, const InputShape& v, const ProjectionHeader& w, NpyDtype dtype,
                              HalfInputs half, int threads) {
  const double scalar = dtype == NpyDtype::float32 ? memory::kFloat : memory::kDouble;
  const double in_values = q.heads * (q.rows * q.cols + k.rows * k.cols + v.rows * v.cols);
  const double out_values = q.heads * q.rows * v.cols;
  const double matrix_values = o.matrix.empty() ? 0 : q.heads * q.rows * k.rows;
  memory::AttendShape engine;
  engine.heads = q.heads;
  engine.lq = q.rows;
  engine.lk = k.rows;
  engine.d = q.cols;
  engine.dv = v.cols;
  engine.m = w.rows;
  engine.columns = memory::feature_columns_of(config.features, engine.m, q.cols, config.project);
  engine.exact = config.mechanism == Mechanism::exact;
  engine.causal = config.causal;
  engine.generalized = !estimates_softmax(config.features);
  engine.chunk = std::min<double>(config.chunk, std::max(1.0, k.rows));  // a chunk longer than L is one of L rows
  engine.scalar = scalar;
  // A file's W: its raw bytes, the values as doubles, and the matrix made of them.
  const double projection = o.w.empty() ? memory::projection_bytes(config.coupling, engine.m, q.cols)
                                        : (static_cast<double>(npy_item_size(w.dtype)) + 2 * memory::kDouble) *
                                              engine.m * q.cols;
  // (--half-inputs: the heads as doubles and rounded, 16 bytes a value, and on the GPU their 16-bit packing.)
  const double rounded_copy = half == HalfInputs::off ? 0 : in_values * (16 + 2);
  const double bytes = in_values * (8 + 8 + scalar) + rounded_copy + (out_values + matrix_values) * (2 * scalar + 8) +
                       (o.matrix.empty() ? 0 : 2 * scalar * q.rows * k.rows) + memory::attend_bytes(engine, threads) +
                       projection;
  return bytes;
}

}  // namespace

void run_attend(const AttendOptions& o) {
  AttentionConfig config = config_from(o);
  const int threads = resolve_threads(o.threads);
  check_distinct_paths({{"--q", o.q}, {"--k", o.k}, {"--v", o.v}, {"--w", o.w}},
                       {{"--out", o.out}, {"--matrix", o.matrix}, {"--save-w", o.save_w}});
  for (const auto& [option, path] : {std::pair{"--q", &o.q}, {"--k", &o.k}, {"--v", &o.v}, {"--w", &o.w}})
    if (option != std::string("--w") || !path->empty()) check_input_file(*path, option);
  // The headers first: shapes are checked and the memory predicted before any data is read or any W drawn.
  const NpyHeader qh = read_npy_header(o.q), kh = read_npy_header(o.k), vh = read_npy_header(o.v);
  const InputShape q = input_shape(qh, "--q " + o.q), k = input_shape(kh, "--k " + o.k), v = input_shape(vh, "--v " + o.v);
  check_input_shapes(o, config, q, k, v);
  validate_attention_config(config, static_cast<int>(q.cols));
  const ProjectionHeader w = projection_header(o, config, q.cols);

  NpyDtype dtype = (qh.dtype == NpyDtype::float64 || kh.dtype == NpyDtype::float64 || vh.dtype == NpyDtype::float64)
                       ? NpyDtype::float64
                       : NpyDtype::float32;
  if (o.dtype == "float32") dtype = NpyDtype::float32;
  else if (o.dtype == "float64") dtype = NpyDtype::float64;
  else if (!o.dtype.empty()) throw std::invalid_argument("--dtype must be float32 or float64, got '" + o.dtype + "'");
  const Backend backend = parse_backend(o.backend);
  const HalfInputs half = parse_half_inputs(o.half_inputs);
  if (backend == Backend::cpu) require_cpu_precision(config);
  if (backend == Backend::cuda && dtype == NpyDtype::float64) {
    if (!o.dtype.empty()) throw std::invalid_argument("--backend cuda computes in float32; --dtype float64 needs --backend cpu");
    dtype = NpyDtype::float32;  // float64 inputs, computed in float32 on the GPU
  }
  if (backend == Backend::cuda && !o.matrix.empty())
    throw std::invalid_argument("--matrix is computed on the CPU only; drop --backend cuda or --matrix");
  if (!o.matrix.empty() && k.rows > kMatrixMaxLength)
    throw std::invalid_argument("--matrix: L = " + std::to_string(static_cast<long long>(k.rows)) +
                                " keys would give an L×L matrix per head; the limit is L = " +
                                std::to_string(kMatrixMaxLength));

  const double bytes = predicted_attend_bytes(o, config, q, k, v, w, dtype, half, threads);
  check_memory_budget("attend", bytes, "--m, --threads or the input sizes", o.max_memory);

  const NpyArray qa = read_npy(o.q), ka = read_npy(o.k), va = read_npy(o.v);
  if (dtype == NpyDtype::float32) run_typed<float>(o, qa, ka, va, config, dtype, threads);
  else run_typed<double>(o, qa, ka, va, config, dtype, threads);
}

}  // namespace favorlab
