#include "stats/check.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "io/format_number.hpp"

namespace favorlab {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::violated: return "violated";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::measured: return "measured";
  }
  return "inconclusive";
}

Verdict verdict_from_counts(std::int64_t held, std::int64_t violated, std::int64_t inconclusive) {
  if (violated > 0) return Verdict::violated;
  if (inconclusive > 0 || held == 0) return Verdict::inconclusive;
  return Verdict::holds;
}

Check measured_check(std::string claim, std::string where, double value, double target, std::string detail) {
  Check c;
  c.claim = std::move(claim);
  c.where = std::move(where);
  c.status = Verdict::measured;
  c.statistic = value;
  c.value = value;
  c.target = target;
  c.detail = std::move(detail);
  return c;
}

Check exact_check(std::string claim, std::string where, std::int64_t held, std::int64_t violated, double statistic,
                  std::string detail, double power) {
  Check c;
  c.power = power;
  c.claim = std::move(claim);
  c.where = std::move(where);
  set_point_counts(c, held, violated, 0);
  c.statistic = statistic;
  c.detail = std::move(detail);
  return c;
}

const char* verdict_legend() {
  return "verdicts: holds = the data confirm the claim (its interval lies on the claim's side, or inside the stated\n"
         "          margin of an equality); violated = the data refute it; inconclusive = neither, or nothing judged\n"
         "          (the detail says how many trials would likely settle it); measured = a timing or a quantity true\n"
         "          by construction, reported against its target, never judged\n";
}

std::string check_summary(const Check& c) {
  std::ostringstream s;
  if (c.status == Verdict::measured) {
    s << "value " << format_number(c.value, 4);
    if (std::isfinite(c.target)) s << " (target " << format_number(c.target, 4) << ")";
    return s.str();
  }
  s << c.points_held << " of " << c.points_total << " points hold, " << c.points_violated << " violated, "
    << c.points_inconclusive << " inconclusive";
  if (c.points_total == 0) s << " (nothing judged)";
  if (c.status == Verdict::inconclusive && c.trials_needed > 0) {
    if (c.trials_needed == std::numeric_limits<std::int64_t>::max()) s << "; out of reach at any trial count";
    else s << "; about " << format_number(static_cast<double>(c.trials_needed), 3) << " trials per point to settle";
  }
  return s.str();
}

void set_point_counts(Check& c, std::int64_t held, std::int64_t violated, std::int64_t inconclusive) {
  c.points_held = held;
  c.points_violated = violated;
  c.points_inconclusive = inconclusive;
  c.points_total = held + violated + inconclusive;
  c.status = verdict_from_counts(held, violated, inconclusive);
}

}  // namespace favorlab
