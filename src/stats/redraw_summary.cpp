#include "stats/redraw_summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stats/edgeworth.hpp"
#include "stats/running_moments.hpp"
#include "stats/sample_quantile.hpp"
#include "stats/skewness_bound.hpp"

namespace favorlab {

MseSummary summarize_mse(const std::vector<double>& values, int blocks) {
  RunningMoments mom;
  MseSummary s;
  std::vector<double> finite;
  for (double v : values) {
    if (std::isfinite(v)) {
      mom.add(v);
      finite.push_back(v);
    } else {
      ++s.nonfinite;
    }
  }
  s.skewness_bound = skewness_upper_bound(finite, blocks);
  s.count = mom.count();
  s.mean = mom.mean();
  s.stderr_ = mom.count() > 1 ? mom.standard_error() : NAN;
  s.skewness = mom.count() > 2 && mom.central_moment(2) > 0 ? mom.skewness() : 0.0;
  return s;
}

DrawDistribution draw_distribution(const std::vector<double>& values, double unlucky_factor, double alpha) {
  if (values.empty()) throw std::invalid_argument("draw distribution: no values");
  std::vector<double> sorted;
  for (double v : values)
    if (std::isfinite(v)) sorted.push_back(v);
  std::sort(sorted.begin(), sorted.end());
  DrawDistribution dist;
  dist.draws = static_cast<std::int64_t>(values.size());
  dist.nonfinite = dist.draws - static_cast<std::int64_t>(sorted.size());
  const bool have = !sorted.empty();
  dist.median = have ? sample_quantile(sorted, 0.5) : NAN;
  dist.q90 = have ? sample_quantile(sorted, 0.9) : NAN;
  dist.q99 = have ? sample_quantile(sorted, 0.99) : NAN;
  dist.best = have ? sorted.front() : NAN;
  dist.worst = have ? sorted.back() : NAN;
  dist.unlucky_threshold = unlucky_factor * dist.median;
  for (double v : values) dist.unlucky += !(v <= dist.unlucky_threshold);  // non-finite values count as unlucky
  dist.unlucky_fraction = static_cast<double>(dist.unlucky) / static_cast<double>(dist.draws);
  dist.unlucky_interval = clopper_pearson(dist.unlucky, dist.draws, alpha);
  return dist;
}

BiasVarianceFigures bias_variance_figures(const std::vector<ErrorBlock>& blocks) {
  const BiasVariance bv = bias_variance(blocks);
  return {bv.bias_sq, jackknife_standard_error(blocks, [](const BiasVariance& x) { return x.bias_sq; }), bv.variance,
          jackknife_standard_error(blocks, [](const BiasVariance& x) { return x.variance; }), bv.draws};
}

MsePrediction averaged_mse_prediction(const std::vector<ErrorBlock>& blocks, int k) {
  const BiasVariance bv = bias_variance(blocks);
  return {bv.bias_sq + bv.variance / k,
          jackknife_standard_error(blocks, [k](const BiasVariance& x) { return x.bias_sq + x.variance / k; })};
}

RedrawGap one_over_k_gap(const std::vector<double>& cross, int k, int blocks) {
  std::vector<double> scaled;
  RedrawGap gap;
  for (double u : cross) {
    if (std::isfinite(u)) scaled.push_back((k - 1) * u);
    else ++gap.nonfinite;
  }
  const MseSummary s = summarize_mse(scaled, blocks);
  gap.value = s.mean;
  gap.stderr_ = s.stderr_;
  gap.skewness_bound = s.skewness_bound;
  gap.count = s.count;
  return gap;
}

RedrawGap law_gap(const std::vector<double>& cross, int k, int blocks, const BiasVarianceFigures& singles,
                  int jackknife_blocks) {
  RedrawGap u = one_over_k_gap(cross, k, blocks);  // (k − 1)·U: scale back to (k − 1)/k · U below
  const double f = 1.0 / k;
  RedrawGap gap = u;
  gap.value = f * u.value - (k - 1) * f * singles.bias_sq;
  const double su = f * u.stderr_, sb = (k - 1) * f * singles.bias_sq_stderr;
  gap.stderr_ = std::hypot(su, sb);
  // Welch–Satterthwaite: the group mean has count − 1 degrees of freedom, the jackknife SE J − 1.
  const double du = static_cast<double>(u.count - 1), db = jackknife_blocks - 1.0;
  const double denominator = (du > 0 ? su * su * su * su / du : 0) + (db > 0 ? sb * sb * sb * sb / db : 0);
  gap.degrees_of_freedom = denominator > 0 ? (su * su + sb * sb) * (su * su + sb * sb) / denominator : 0;
  return gap;
}

Check unreachable_check(std::string claim, std::string where, std::size_t points, const std::string& reason) {
  Check c;
  c.claim = std::move(claim);
  c.where = std::move(where);
  set_point_counts(c, 0, 0, static_cast<std::int64_t>(points));
  c.trials_needed = kOutOfReach;
  c.out_of_reach = reason;
  c.detail = "0 points hold, 0 violated, " + std::to_string(points) + " inconclusive: out of reach at any number of "
             "draws, " + reason;
  return c;
}

std::int64_t reliable_size_for_difference(const MseSummary& a, const MseSummary& b, double z, double tail_alpha) {
  const double need_a = static_cast<double>(trials_for_reliable_z_test(a.skewness_bound, z, tail_alpha));
  const double need_b = static_cast<double>(trials_for_reliable_z_test(b.skewness_bound, z, tail_alpha));
  const double scale = std::max(need_a / static_cast<double>(a.count), need_b / static_cast<double>(b.count));
  return static_cast<std::int64_t>(std::min(9.0e18, std::ceil(scale * static_cast<double>(a.count))));
}

}  // namespace favorlab
