// One look cell judged by several checks (mc/joint_verdict.hpp): the cell settles only when every check has, it draws
// on while any open check would, and it gives up for the reason run_looks would give for that check alone.
#include <catch2/catch.hpp>

#include "mc/joint_verdict.hpp"
#include "mc/sequential_looks.hpp"

using namespace favorlab;

namespace {

PointVerdict settled(Verdict v) {
  PointVerdict p;
  p.status = v;
  p.reliable = true;
  return p;
}
PointVerdict open(bool reliable, std::int64_t trials_needed) {
  PointVerdict p;
  p.reliable = reliable;
  p.trials_needed = trials_needed;
  return p;
}

}  // namespace

TEST_CASE("joint verdict of a look cell", "[looks]") {
  const std::int64_t last = 64000;
  CHECK(joint_verdict({settled(Verdict::holds), settled(Verdict::holds)}, last).status == Verdict::holds);
  CHECK(joint_verdict({settled(Verdict::holds), settled(Verdict::violated)}, last).status == Verdict::violated);
  // One check open and drawing on: the cell draws on, whatever the other says.
  const PointVerdict draws = open(true, 5000);
  CHECK(joint_verdict({settled(Verdict::violated), draws}, last).trials_needed == 5000);
  CHECK(joint_verdict({draws, settled(Verdict::holds)}, last).status == Verdict::inconclusive);
  // Given up on one check, drawing on for the other: draws on.
  const PointVerdict skewed = open(false, 10 * last), helpless = open(true, kOutOfReach);
  CHECK(joint_verdict({skewed, draws}, last).trials_needed == 5000);
  CHECK(joint_verdict({helpless, draws}, last).trials_needed == 5000);
  // Both given up: skewed beyond the last look is reported before "no trial count helps".
  const PointVerdict both = joint_verdict({helpless, skewed}, last);
  CHECK_FALSE(both.reliable);
  CHECK(both.trials_needed == 10 * last);
  // A z test that becomes reliable within the last look draws on.
  CHECK(joint_verdict({skewed, open(false, last / 2)}, last).trials_needed == last / 2);
  CHECK_THROWS_AS(joint_verdict({}, last), std::invalid_argument);

  // Read by run_looks: one cell, two checks; the second settles only at look 2.
  int judged = 0;
  const LookRecord r = run_looks(
      1, 100, 0, LookPlan{6},
      [&](std::size_t, int look) {
        ++judged;
        return joint_verdict({settled(Verdict::holds), look < 2 ? draws : settled(Verdict::holds)}, last);
      },
      [](const std::vector<std::size_t>&, std::int64_t) {});
  CHECK(r.looks_reached == 3);
  CHECK(r.stopped_by == "settled");
  CHECK(judged == 3);
}
