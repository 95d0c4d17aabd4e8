#include "stats/sufficient_size.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "io/format_number.hpp"

namespace favorlab {

namespace {

std::string bracket_text(const SufficientSize& s) {
  std::ostringstream out;
  out << s.label << ": [" << (s.lower ? std::to_string(s.lower) : "beyond grid") << ", "
      << (s.upper ? std::to_string(s.upper) : "beyond grid") << "]";
  return out.str();
}

// The draws n ≥ from at which a frequency f (successes round(f·n) of n) would establish P ≥ target (above) or
// P < target (below) with Clopper–Pearson at point_alpha: a doubling search, then bisection (the rounding of f·n makes
// the answer approximate, which an estimate of what would settle a bracket can be). kOutOfReach past 1e12 draws.
std::int64_t draws_to_establish(double f, double target, double point_alpha, bool above, std::int64_t from) {
  const auto settles = [&](std::int64_t n) {
    const auto k = std::clamp<std::int64_t>(std::llround(f * static_cast<double>(n)), 0, n);
    const ProportionInterval ci = clopper_pearson(k, n, point_alpha);
    return above ? ci.lower >= target : ci.upper < target;
  };
  if ((above && !(f > target)) || (!above && !(f < target))) return kOutOfReach;
  std::int64_t lo = std::max<std::int64_t>(from, 1), hi = lo;
  if (settles(lo)) return lo;
  while (!settles(hi)) {
    if (hi > 1'000'000'000'000) return kOutOfReach;
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (settles(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

ThresholdCounts threshold_counts(const std::vector<double>& values, double threshold) {
  ThresholdCounts c;
  for (double v : values) {
    const bool finite = std::isfinite(v);
    c.successes += finite && v <= threshold;
    c.unjudged += !finite;
  }
  return c;
}

SufficientSize sufficient_size(const std::vector<int>& sizes, const std::vector<std::int64_t>& successes,
                               std::int64_t trials, double target, double point_alpha,
                               const std::vector<std::int64_t>& unknown) {
  if (sizes.size() != successes.size() || sizes.empty())
    throw std::invalid_argument("sufficient_size: one success count per grid size needed");
  if (!unknown.empty() && unknown.size() != sizes.size())
    throw std::invalid_argument("sufficient_size: one unknown count per grid size needed");
  if (!(target > 0 && target < 1)) throw std::invalid_argument("sufficient_size: target must lie in (0, 1)");
  SufficientSize s;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t open = unknown.empty() ? 0 : unknown[i];
    if (open < 0 || successes[i] < 0 || successes[i] + open > trials)
      throw std::invalid_argument("sufficient_size: counts must lie in [0, trials]");
    const ProportionInterval ci = clopper_pearson(successes[i], trials, point_alpha);
    const ProportionInterval optimistic = open ? clopper_pearson(successes[i] + open, trials, point_alpha) : ci;
    const double p_hat = static_cast<double>(successes[i]) / static_cast<double>(trials);
    if (!s.lower && optimistic.upper >= target) s.lower = sizes[i];
    if (!s.lower) s.excluded = sizes[i];
    if (!s.point && p_hat >= target) s.point = sizes[i];
    if (!s.upper && ci.lower >= target) s.upper = sizes[i];
  }
  // Closing the bracket on its point estimate: P ≥ target at `point`, P < target at each size before it.
  if (!s.point) {
    s.draws_to_close = kOutOfReach;
  } else if (s.lower != s.point || s.upper != s.point) {
    for (std::size_t i = 0; i < sizes.size() && s.draws_to_close != kOutOfReach; ++i) {
      const double f = static_cast<double>(successes[i]) / static_cast<double>(trials);
      const std::int64_t n = draws_to_establish(f, target, point_alpha, sizes[i] == s.point, trials);
      s.draws_to_close = std::max(s.draws_to_close, n);
      if (sizes[i] == s.point) break;
    }
  }
  return s;
}

namespace {

// The needed size along each group either does not grow (rising = false: a later bracket may not lie above an
// earlier one) or does not fall (rising = true: nor below it); `along` names what the group's order runs over.
Check monotone_check(std::string claim, std::string where, const std::vector<std::vector<SufficientSize>>& groups,
                     bool rising, const std::string& along) {
  Check c;
  c.claim = std::move(claim);
  c.where = std::move(where);
  std::ostringstream refuted;
  std::int64_t held = 0, broke = 0, open = 0;
  double worst = 0;  // the largest ratio by which a pair's brackets are separated the wrong way: > 1 refutes
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& group : groups)
    for (std::size_t later = 1; later < group.size(); ++later)
      for (std::size_t earlier = 0; earlier < later; ++earlier) {
        // "Grows" is the wrong way unless rising; then "falls" is: swap the pair's roles.
        const SufficientSize &a = rising ? group[later] : group[earlier], &b = rising ? group[earlier] : group[later];
        // b.lower missing: P < target established at every grid size, so b needs more than the whole grid.
        const double b_lower = b.lower ? b.lower : inf;
        if (a.upper) worst = std::max(worst, b_lower / a.upper);
        if (a.upper && b_lower > a.upper) {
          ++broke;
          refuted << (refuted.tellp() > 0 ? "; " : "") << bracket_text(b) << " lies above " << bracket_text(a);
        } else if (b.upper && a.lower && b.upper <= a.lower) {
          ++held;
        } else {
          ++open;
        }
      }
  set_point_counts(c, held, broke, open);
  c.statistic = worst;
  c.critical = 1;
  if (broke > 0) {
    c.detail = rising ? "needed m falls as " + along + " grows: " + refuted.str() : "needed m grows: " + refuted.str();
  } else if (c.points_total == 0) {
    c.detail = rising ? "no two brackets to compare along " + along + ": nothing is judged"
                      : "no two sizes to compare (one L per group): nothing is judged";
  } else if (open > 0) {
    c.detail = std::to_string(open) + " of " + std::to_string(c.points_total) + " pairs of brackets overlap: " +
               (rising ? "a fall is not refuted, but no fall is not established either"
                       : "growth is not refuted, but non-growth is not established either") +
               " (more draws narrow the brackets; a bracket of one grid size settles a pair)";
  } else {
    c.detail = rising ? "every bracket at a larger " + along + " lies at or above every bracket at a smaller one"
                      : "every later bracket lies at or below every earlier one";
  }
  std::ostringstream all;
  for (const auto& group : groups)
    for (const SufficientSize& s : group) all << " | " << bracket_text(s);
  c.detail += ". Brackets of the needed m:" + all.str();
  return c;
}

}  // namespace

Check size_independence_check(std::string claim, std::string where,
                              const std::vector<std::vector<SufficientSize>>& groups) {
  return monotone_check(std::move(claim), std::move(where), groups, false, "");
}

Check size_nondecreasing_check(std::string claim, std::string where,
                               const std::vector<std::vector<SufficientSize>>& groups, const std::string& along) {
  return monotone_check(std::move(claim), std::move(where), groups, true, along);
}

Check bounded_growth_check(std::string claim, std::string where, const std::vector<std::vector<SufficientSize>>& groups,
                           double factor) {
  if (!(factor >= 1)) throw std::invalid_argument("bounded_growth_check: the factor must be at least 1");
  Check c;
  c.claim = std::move(claim);
  c.where = std::move(where);
  std::ostringstream violated;
  std::int64_t held = 0, grew = 0, open = 0, draws = 0;
  double worst = 0;  // largest lower_last / (factor · upper_first): > 1 means growth beyond the margin
  for (const auto& group : groups) {
    if (group.size() < 2) continue;
    const SufficientSize &a = group.front(), &b = group.back();
    // No lower end at the last L: P < target established at every grid size, so it needs more than `excluded`.
    const bool beyond = a.upper && (b.lower ? b.lower > factor * a.upper : b.excluded >= factor * a.upper);
    if (a.upper) worst = std::max(worst, (b.lower ? b.lower : b.excluded) / (factor * a.upper));
    if (beyond) {
      ++grew;
      violated << (violated.tellp() > 0 ? "; " : "") << bracket_text(b) << " lies above " << format_number(factor, 3)
               << " x " << bracket_text(a);
    } else if (b.upper && a.lower && b.upper <= factor * a.lower) {
      ++held;
    } else {
      ++open;
      draws = std::max({draws, a.draws_to_close, b.draws_to_close});
    }
  }
  set_point_counts(c, held, grew, open);
  c.statistic = worst;
  c.critical = 1;
  c.margin = factor;
  if (open > 0) c.trials_needed = draws;
  if (c.trials_needed == kOutOfReach)
    c.out_of_reach = "a success frequency sits at the target, or no grid size reaches it: more draws do not close "
                     "the bracket";
  const std::string f = format_number(factor, 3);
  if (grew > 0) {
    c.detail = "needed m grows by more than a factor " + f + ": " + violated.str();
  } else if (c.points_total == 0) {
    c.detail = "no group has two sizes to compare: nothing is judged";
  } else if (open > 0) {
    c.detail = std::to_string(open) + " of " + std::to_string(c.points_total) + " groups neither confirm nor refute "
               "growth within a factor " + f + " (their brackets overlap the margin; more draws narrow them)";
  } else {
    c.detail = "in every group the last bracket's upper end is at most " + f + " x the first bracket's lower end";
  }
  std::ostringstream all;
  for (const auto& group : groups)
    for (const SufficientSize& s : group) all << " | " << bracket_text(s);
  c.detail += ". Brackets of the needed m:" + all.str();
  return c;
}

Check proportional_growth_check(std::string claim, std::string where, const std::vector<SufficientSize>& brackets,
                                const std::vector<double>& rate) {
  if (brackets.size() != rate.size()) throw std::invalid_argument("proportional_growth_check: one rate per bracket");
  Check c;
  c.claim = std::move(claim);
  c.where = std::move(where);
  // C·rate lies in (excluded, upper] at every bracket; a missing upper end leaves the bracket open above.
  double c_low = 0, c_high = std::numeric_limits<double>::infinity();
  std::ostringstream all;
  for (std::size_t i = 0; i < brackets.size(); ++i) {
    const SufficientSize& s = brackets[i];
    all << " | " << bracket_text(s) << " (C in (" << format_number(s.excluded / rate[i], 4) << ", "
        << (s.upper ? format_number(s.upper / rate[i], 4) : "inf") << "])";
    c_low = std::max(c_low, s.excluded / rate[i]);
    if (s.upper) c_high = std::min(c_high, s.upper / rate[i]);
  }
  const bool refuted = !brackets.empty() && c_low >= c_high;
  set_point_counts(c, 0, refuted ? 1 : 0, refuted ? 0 : 1);
  c.statistic = std::isfinite(c_high) && c_high > 0 ? c_low / c_high : 0;
  c.critical = 1;
  if (brackets.empty()) {
    c.detail = "no bracket: nothing is judged";
  } else if (refuted) {
    c.detail = "no constant C fits every bracket: C must exceed " + format_number(c_low, 4) + " and be at most " +
               format_number(c_high, 4);
  } else {
    c.detail = "every C in (" + format_number(c_low, 4) + ", " +
               (std::isfinite(c_high) ? format_number(c_high, 4) : std::string("inf")) +
               "] fits every bracket: the growth law is not refuted, which does not establish it";
  }
  c.detail += ". Brackets:" + all.str();
  return c;
}

}  // namespace favorlab
