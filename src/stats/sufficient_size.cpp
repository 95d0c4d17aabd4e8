#include "stats/sufficient_size.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace favorlab {

namespace {

std::string bracket_text(const SufficientSize& s) {
  std::ostringstream out;
  out << s.label << ": [" << (s.lower ? std::to_string(s.lower) : "beyond grid") << ", "
      << (s.upper ? std::to_string(s.upper) : "beyond grid") << "]";
  return out.str();
}

}  // namespace

SufficientSize sufficient_size(const std::vector<int>& sizes, const std::vector<std::int64_t>& successes,
                               std::int64_t trials, double target, double point_alpha) {
  if (sizes.size() != successes.size() || sizes.empty())
    throw std::invalid_argument("sufficient_size: one success count per grid size needed");
  if (!(target > 0 && target < 1)) throw std::invalid_argument("sufficient_size: target must lie in (0, 1)");
  SufficientSize s;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const ProportionInterval ci = clopper_pearson(successes[i], trials, point_alpha);
    const double p_hat = static_cast<double>(successes[i]) / static_cast<double>(trials);
    if (!s.lower && ci.upper >= target) s.lower = sizes[i];
    if (!s.point && p_hat >= target) s.point = sizes[i];
    if (!s.upper && ci.lower >= target) s.upper = sizes[i];
  }
  return s;
}

Check size_independence_check(std::string claim, std::string where,
                              const std::vector<std::vector<SufficientSize>>& groups) {
  Check c{std::move(claim), std::move(where), "holds", 0, ""};
  std::ostringstream violated, open;
  double worst = 1;  // largest lower_later / upper_earlier: > 1 means separated brackets
  for (const auto& group : groups)
    for (std::size_t later = 1; later < group.size(); ++later)
      for (std::size_t earlier = 0; earlier < later; ++earlier) {
        const SufficientSize &a = group[earlier], &b = group[later];
        // b.lower missing: P < target established at every grid size, so b needs more than the whole grid.
        const double b_lower = b.lower ? b.lower : std::numeric_limits<double>::infinity();
        if (a.upper && b_lower > a.upper) {
          worst = std::max(worst, b_lower / a.upper);
          violated << (violated.tellp() > 0 ? "; " : "") << bracket_text(b) << " lies above " << bracket_text(a);
        }
      }
  for (const auto& group : groups)
    for (const SufficientSize& s : group)
      if (!s.upper) open << (open.tellp() > 0 ? "; " : "") << bracket_text(s);
  c.statistic = worst;
  if (violated.tellp() > 0) {
    c.status = "violated";
    c.detail = "needed m grows: " + violated.str();
  } else if (open.tellp() > 0) {
    c.status = "inconclusive";
    c.detail = "no separated brackets, but P >= target is not established on the grid at " + open.str();
  } else {
    c.detail = "every later bracket overlaps or lies below the earlier ones";
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
  Check c{std::move(claim), std::move(where), "holds", 0, ""};
  double c_low = 0, c_high = std::numeric_limits<double>::infinity();
  bool open = false;
  std::ostringstream all;
  for (std::size_t i = 0; i < brackets.size(); ++i) {
    const SufficientSize& s = brackets[i];
    all << " | " << bracket_text(s) << " (m/rate in [" << (s.lower ? s.lower / rate[i] : 0.0) << ", "
        << (s.upper ? std::to_string(s.upper / rate[i]) : "inf") << "])";
    // A missing lower end: the needed m exceeds the grid, C > grid max/rate (the upper end alone is then open).
    c_low = std::max(c_low, s.lower ? s.lower / rate[i] : 0.0);
    if (s.upper) c_high = std::min(c_high, s.upper / rate[i]);
    else open = true;
    if (!s.lower) open = true;
  }
  c.statistic = c_high > 0 && c_high < std::numeric_limits<double>::infinity() ? c_low / c_high : 0;
  if (c_low > c_high) {
    c.status = "violated";
    c.detail = "no constant C fits every bracket: max lower/rate = " + std::to_string(c_low) +
               " > min upper/rate = " + std::to_string(c_high);
  } else if (open) {
    c.status = "inconclusive";
    c.detail = "some bracket is open (P >= target not established on the grid)";
  } else {
    c.detail = "C in [" + std::to_string(c_low) + ", " + std::to_string(c_high) + "] fits every bracket";
  }
  c.detail += ". Brackets:" + all.str();
  return c;
}

}  // namespace favorlab
