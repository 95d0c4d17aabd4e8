#include "stats/counted_check.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

namespace favorlab {

void CountedCheck::add(double badness, const std::string& label) {
  ++points;
  if (badness > 1) ++failed;
  if (badness > worst || where.empty()) {
    worst = std::max(worst, badness);
    where = label;
  }
}

Check CountedCheck::check(std::string claim, std::string scope, const std::string& what) const {
  std::ostringstream s;
  s << points - failed << " of " << points << " points hold, " << failed << " violated; worst " << what << " = "
    << worst << " at " << where;
  return exact_check(std::move(claim), std::move(scope), points - failed, failed, worst, s.str());
}

}  // namespace favorlab
