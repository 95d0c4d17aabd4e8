#include "kernels/chi_moments.hpp"

#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

namespace favorlab {

namespace {

void require_chi_dimension(int d) {
  if (d < 1) throw std::invalid_argument("chi moments need dimension d >= 1, got " + std::to_string(d));
}

void require_parts(const std::vector<int>& parts) {
  for (int p : parts)
    if (p < 0) throw std::invalid_argument("tau needs non-negative parts, got " + std::to_string(p));
}

using BigInt = boost::multiprecision::cpp_int;

// μ_d(2a) = d (d+2) ⋯ (d+2a−2), exactly.
BigInt even_chi_moment(int d, int a) {
  BigInt out = 1;
  for (int i = 0; i < a; ++i) out *= d + 2 * i;
  return out;
}

}  // namespace

double log_chi_moment(int d, double j) {
  require_chi_dimension(d);
  if (!(j >= 0)) throw std::invalid_argument("chi moment order must be >= 0");
  if (j == 0) return 0.0;  // exactly, so that zero parts cost no rounding
  return j / 2 * std::log(2.0) + std::lgamma((d + j) / 2) - std::lgamma(d / 2.0);
}

double chi_moment(int d, double j) { return std::exp(log_chi_moment(d, j)); }

double log_chi_mgf(int d, double t) {
  require_chi_dimension(d);
  if (!(t >= 0) || !std::isfinite(t)) throw std::invalid_argument("chi MGF needs a finite t >= 0");
  if (t == 0) return 0.0;
  // log of term j, t^j μ_d(j)/j!; the ratio of consecutive terms falls like t/√j, so past the peak they vanish fast.
  auto log_term = [&](int j) { return j * std::log(t) + log_chi_moment(d, j) - std::lgamma(j + 1.0); };
  double top = 0, sum = 1;  // term 0 is 1; the sum is kept relative to exp(top)
  for (int j = 1;; ++j) {
    const double lt = log_term(j);
    if (lt > top) {
      sum = sum * std::exp(top - lt) + 1;
      top = lt;
    } else {
      sum += std::exp(lt - top);
    }
    if (lt < top && lt - top < std::log(1e-17 * sum) && lt < log_term(j - 1)) break;
  }
  return top + std::log(sum);
}

double log_tau(int d, const std::vector<int>& parts) {
  require_chi_dimension(d);
  require_parts(parts);
  double log_num = 0;
  int total = 0;
  for (int p : parts) {
    log_num += log_chi_moment(d, p);
    total += p;
  }
  return log_num - log_chi_moment(d, total);
}

double tau(int d, const std::vector<int>& parts) { return std::exp(log_tau(d, parts)); }

double lemma6_bound(int d) {
  require_chi_dimension(d);
  return d / (d + 2.0);
}

int exact_tau_vs_lemma6_bound(int d, const std::vector<int>& parts) {
  require_chi_dimension(d);
  require_parts(parts);
  // τ ≤ d/(d+2)  ⇔  (d+2) Π μ(d_i) ≤ d μ(Σ d_i), all positive integers.
  BigInt lhs = d + 2;
  int total = 0;
  for (int p : parts) {
    if (p % 2 != 0) throw std::invalid_argument("exact tau comparison needs even parts, got " + std::to_string(p));
    lhs *= even_chi_moment(d, p / 2);
    total += p;
  }
  const BigInt rhs = d * even_chi_moment(d, total / 2);
  return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
}

}  // namespace favorlab
