#include "perf/memory_estimate.hpp"

#include <exception>

#include "io/npy.hpp"

namespace favorlab::memory {

double feature_columns_of(Family f, double m, double d, bool project) {
  if (!estimates_softmax(f)) return project ? m : d;
  return family_info(f).columns_per_row * m;
}

double widest_columns_per_row(const std::vector<std::string>& names) {
  double widest = 1;
  for (const std::string& name : names) {
    try {
      widest = std::max<double>(widest, family_info(parse_family(name, "feature map", [](Family) { return true; },
                                                                 true)).columns_per_row);
    } catch (const std::exception&) {
      widest = 2;
    }
  }
  return widest;
}

bool any_generalized(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    try {
      if (!estimates_softmax(parse_family(name, "feature map", [](Family) { return true; }, true))) return true;
    } catch (const std::exception&) {
    }
  }
  return false;
}

double projection_bytes(Coupling coupling, double m, double d) {
  const double w = m * d * kDouble, blocks = std::ceil(m / std::max(d, 1.0)), rows = std::max(m, d);
  switch (coupling) {
    case Coupling::iid: return w;
    case Coupling::orthogonal: return (rows * d + 2 * d * d) * kDouble;
    case Coupling::simplex: return (rows * d + 4 * d * d) * kDouble;
    case Coupling::hadamard: return w + (3 * blocks * d + m + d) * kDouble;
    case Coupling::givens:
      return w + (d * d + m + d) * kDouble + blocks * d * std::ceil(std::log2(std::max(d, 2.0))) * 24;
  }
  return (rows * d + 4 * d * d) * kDouble;
}

double widest_projection_bytes(const std::vector<std::string>& couplings, double m, double d) {
  double widest = 0;
  for (const std::string& name : couplings) {
    Coupling c = Coupling::simplex;
    try {
      c = parse_coupling(name);
    } catch (const std::exception&) {
    }
    widest = std::max(widest, projection_bytes(c, m, d));
  }
  return widest;
}

std::optional<NpyHeads> npy_heads(const std::string& path) {
  try {
    const NpyHeader h = read_npy_header(path);
    if (h.shape.size() == 2) return NpyHeads{1, static_cast<double>(h.shape[0]), static_cast<double>(h.shape[1])};
    if (h.shape.size() == 3)
      return NpyHeads{static_cast<double>(h.shape[0]), static_cast<double>(h.shape[1]),
                      static_cast<double>(h.shape[2])};
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

double attend_head_working_bytes(const AttendShape& a, double workers) {
  const double c = a.columns, dv1 = a.dv + 1, block_features = (a.generalized ? 3 : 1.5) * c;
  double entries = 0;
  if (a.exact) {
    entries = workers * 128 * (std::min(a.lk, 256.0) + a.d + 2 * a.dv + 8);
  } else if (!a.causal) {
    entries = (std::ceil(a.lk / 512) + 1) * c * dv1 +
              workers * 512 * (a.d + block_features + 2 * dv1 + (a.permute ? 2 * c : 0));
  } else {
    const double chunk = std::max(1.0, a.chunk), block = chunk * std::max(1.0, std::floor(256 / chunk));
    const double window = std::min(block * std::max(1.0, std::floor(512 / block)), std::ceil(a.lk / chunk) * chunk);
    entries = (std::ceil(window / chunk) + 1) * c * dv1 + window * (c + dv1 + 2) +
              workers * (block * (a.d + (a.generalized ? 5 : 3) * c + 2 * dv1) +
                         chunk * (chunk + 2 * dv1 + (a.permute ? 2 * c : 0)));
  }
  return entries * a.scalar;
}

double attend_bytes(const AttendShape& a, double threads) {
  const double outputs = a.heads * a.lq * a.dv * a.scalar;
  const double projection = a.exact ? 0 : a.m * (a.d + 1) * (a.scalar + kDouble);
  const double working = a.heads >= threads ? std::min(threads, a.heads) * attend_head_working_bytes(a, 1)
                                            : attend_head_working_bytes(a, threads);
  return outputs + projection + working;
}

double permute_long_run_bytes(double L, double d, double m, double columns, double chunk, bool generalized) {
  AttendShape a{1, L, L, d, 1, m, columns};
  a.causal = a.permute = true;
  a.generalized = generalized;
  a.chunk = chunk;
  a.scalar = kFloat;
  const double inputs = L * d * (2 * kDouble + 2 * kFloat) + L * (kFloat + 2 * kDouble);  // Q, K; 1, norms
  return projection_bytes(Coupling::orthogonal, m, d) + inputs + attend_bytes(a, 1) + 3 * 4096 * columns * kDouble;
}

double report_layer_bytes(const ReportLayerSize& l, double max_m, double columns, bool any_causal,
                          double matrix_max_L, const std::vector<std::string>& couplings, double tasks, double threads,
                          double square) {
  const double head = (l.lq * l.d + l.lk * l.d + l.lk * l.dv) * kDouble;
  const bool matrix = l.lk <= matrix_max_L;
  AttendShape favor{1, l.lq, l.lk, l.d, l.dv, max_m, columns};
  double forward = attend_bytes(favor, 1);
  favor.causal = true;
  if (any_causal) forward = std::max(forward, attend_bytes(favor, 1));
  AttendShape favor_matrix{1, l.lq, l.lk, l.d, l.lk, max_m, columns};
  AttendShape exact{1, l.lq, l.lk, l.d, l.dv};
  exact.exact = true;
  AttendShape exact_matrix = exact;
  exact_matrix.dv = l.lk;
  const double projection = widest_projection_bytes(couplings, max_m, l.d);
  const double one_hot = 2 * l.lk * l.lk * kDouble;  // I_L: an initializer list's copy and the vector's
  const double a = matrix ? l.lq * l.lk * kDouble : 0;
  double task = projection + braced_heads_bytes(favor) + forward + l.lq * l.dv * kDouble;
  if (matrix)  // Â: the one-hot V, a FAVOR forward with dv = L (Â is its output)
    task = std::max(task, projection + one_hot + braced_heads_bytes(favor) + attend_bytes(favor_matrix, 1));
  // One after another: the exact outputs, A (one-hot V, exact attention with dv = L), A's BDCSVD (a copy, the
  // bidiagonal form and an L × L work matrix), the tasks (A kept).
  const double exact_outputs = braced_heads_bytes(exact) + attend_bytes(exact, threads);
  const double exact_matrix_bytes =
      matrix ? one_hot + braced_heads_bytes(exact) + attend_bytes(exact_matrix, threads) : 0;
  const double phases = std::max({exact_outputs, exact_matrix_bytes, 5 * a, a + task_workers(tasks, threads) * task});
  // Float32 copies of Q, K, V and their bfloat16-rounded ones (half the doubles' bytes each), made through two
  // transient double copies of one matrix.
  const double copies = head + 2 * std::max(l.lq, l.lk) * std::max(l.d, l.dv) * kDouble;
  const double per_head = copies + 4 * l.lq * l.dv * kDouble + phases;
  return 2 * l.heads * head + std::max(square, per_head);
}

}  // namespace favorlab::memory
