#include "perf/ratio_checks.hpp"

#include <sstream>

#include "io/format_number.hpp"

namespace favorlab {

Check ratio_check(const std::string& claim, const std::string& where, const Ratios& r, double limit, bool at_least,
                  bool timing, const std::string& note, const std::string& missing) {
  Check c;
  c.claim = claim;
  c.where = where;
  if (r.values.empty()) {
    c.detail = note + missing;
    return c;
  }
  std::size_t worst = 0, bad = 0;
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    const bool fails = at_least ? r.values[i] < limit : r.values[i] > limit;
    bad += fails;
    if (at_least ? r.values[i] < r.values[worst] : r.values[i] > r.values[worst]) worst = i;
  }
  if (timing) {
    c.status = Verdict::measured;
    c.value = r.values[worst];
    c.target = limit;
  } else {
    set_point_counts(c, static_cast<std::int64_t>(r.values.size() - bad), static_cast<std::int64_t>(bad), 0);
  }
  c.statistic = r.values[worst];
  std::ostringstream d;
  d << r.values.size() - bad << " of " << r.values.size() << " points within the target; " << note << "target "
    << (at_least ? ">= " : "<= ") << limit << "; worst " << format_number(r.values[worst], 4) << " at "
    << r.labels[worst] << " (margin "
    << format_number(at_least ? r.values[worst] - limit : limit - r.values[worst], 3) << ", load "
    << format_number(r.loads[worst], 3) << "); all:";
  for (std::size_t i = 0; i < r.values.size(); ++i) d << " " << r.labels[i] << "=" << format_number(r.values[i], 3);
  c.detail = d.str();
  return c;
}

Check memory_target_check(const std::string& claim, const std::string& where, const Ratios& at_target,
                          const Ratios& smaller, int target_length, int max_length, double limit) {
  std::string missing = "no peak measured (--no-memory, or causal FAVOR dropped)";
  if (!smaller.values.empty()) {
    std::ostringstream m;
    m << "the target is stated at L = " << target_length << "; this run's largest L is " << max_length
      << ", where the fixed buffers (window features, chunk states) weigh more than inputs + outputs, so nothing "
         "is judged (run --max-L "
      << target_length << "); measured there:";
    for (std::size_t i = 0; i < smaller.values.size(); ++i)
      m << " " << smaller.labels[i] << "=" << format_number(smaller.values[i], 3);
    missing = m.str();
  }
  return ratio_check(claim, where, at_target, limit, false, false, "", missing);
}

}  // namespace favorlab
