#include "evaluation/kernel_checks.hpp"

#include <algorithm>
#include <cmath>

#include "io/format_number.hpp"

namespace favorlab {

std::string KernelCase::label() const {
  return std::string(feature_kind_name(kind)) + (estimates_softmax(kind) || project ? "" : " (no projection)");
}

bool KernelChecks::positive_softmax(Family k) { return estimates_softmax(k) && family_info(k).positive; }

KernelChecks::KernelChecks(const std::vector<KernelCase>& cases, std::size_t scales) : kernels_(cases.size()) {
  for (const KernelCase& c : cases) {
    softmax_points_ += positive_softmax(c.kind);
    trig_points_ += c.kind == Family::trig;
  }
  softmax_points_ *= scales;
}

void KernelChecks::add(const KernelCase& c, double s, std::int64_t draws, const DenominatorStats& st) {
  const std::string where = c.label() + " at s=" + format_number(s);
  if (positive_softmax(c.kind)) {
    positive_bad_ += st.nonpositive;
    positive_nonfinite_ += st.nonfinite_denominators;
    if (st.denominators) positive_min_ = std::min(positive_min_, st.min_denominator);
    if (st.nonpositive || st.nonfinite_denominators)
      positive_detail_ << "; " << where << ": " << st.nonpositive << " non-positive, " << st.nonfinite_denominators
                       << " NaN/Inf";
  }
  if (c.kind == Family::trig) {
    trig_nonpositive_ += st.nonpositive;
    trig_total_ += st.denominators + st.nonfinite_denominators;
    trig_detail_ << (trig_detail_.tellp() > 0 ? "; " : "") << "s=" << s << ": " << st.nonpositive << " of "
                 << st.denominators + st.nonfinite_denominators << " (min D_hat " << st.min_denominator << ")";
  }
  if (st.nonfinite_outputs || st.nonfinite_denominators) {
    ++nonfinite_kernels_;
    nonfinite_detail_ << (nonfinite_detail_.tellp() > 0 ? "; " : "") << where << ": " << st.nonfinite_outputs
                      << " NaN/Inf output entries in " << st.nonfinite_draws << " of " << draws << " draws, "
                      << st.nonfinite_denominators << " NaN/Inf denominators";
  }
}

// Positive denominators hold by construction (sums of exponentials): measured, and violated only by a
// counterexample.
Check KernelChecks::positive(const std::string& setting) const {
  Check c = measured_check(
      "FAVOR+: positive (and hyperbolic, regularized) features give denominators D_hat > 0 everywhere", "", 0, 0, "");
  c.where = setting + ", " + std::to_string(softmax_points_) + " (kernel, scale) points";
  c.statistic = std::isfinite(positive_min_) ? positive_min_ : 0;
  c.value = c.statistic;
  if (softmax_points_ == 0) {
    c.status = Verdict::inconclusive;
    c.detail = "no positive, hyperbolic or regularized kernel was run: nothing measured";
  } else if (positive_bad_ > 0) {
    c.status = Verdict::violated;
    set_point_counts(c, 0, positive_bad_, 0);
    c.detail = std::to_string(positive_bad_) + " non-positive denominators" + positive_detail_.str();
  } else if (positive_nonfinite_ > 0) {
    c.status = Verdict::inconclusive;
    c.detail = std::to_string(positive_nonfinite_) + " NaN/Inf denominators" + positive_detail_.str();
  } else {
    c.detail = "every denominator > 0; smallest " + format_number(positive_min_) +
               " (value); true by construction, so measured";
  }
  return c;
}

// "Trig can give D_hat <= 0" is an existence claim: one example confirms it.
Check KernelChecks::trig(const std::string& setting) const {
  Check c;
  c.claim = "Trig features can give non-positive denominators (the paper's warning against trig features)";
  c.where = setting;
  c.statistic = trig_total_ ? static_cast<double>(trig_nonpositive_) / static_cast<double>(trig_total_) : 0;
  if (trig_points_ == 0) {
    c.detail = "trig was not run: nothing judged";
  } else if (trig_nonpositive_ == 0) {
    set_point_counts(c, 0, 0, 1);
    c.detail = "no non-positive denominator seen at these scales (not evidence that none can occur): " +
               trig_detail_.str();
  } else {
    set_point_counts(c, 1, 0, 0);
    c.detail = "an example confirms 'can'; fraction of non-positive denominators (statistic) over all scales; "
               "by scale: " + trig_detail_.str();
  }
  return c;
}

// Finite outputs hold by construction too: measured.
Check KernelChecks::finite(const std::string& setting) const {
  Check c = measured_check(
      "FAVOR outputs and denominators free of NaN/Inf, every kernel (Fig. 16 reports NaN in training)",
      setting + ", " + std::to_string(kernels_) + " kernels", static_cast<double>(nonfinite_kernels_), 0, "");
  if (nonfinite_kernels_ > 0) {
    set_point_counts(c, 0, nonfinite_kernels_, 0);
    c.detail = std::to_string(nonfinite_kernels_) + " (kernel, scale) points with NaN/Inf: " +
               nonfinite_detail_.str();
  } else {
    c.detail = "every output entry and denominator finite (value: kernels with NaN/Inf); measured: finitely "
               "many draws cannot establish it for every input";
  }
  return c;
}

}  // namespace favorlab
