// The three checks of `favorlab kernels` (evaluation/kernel_checks.hpp) on tallies made up to land on each side:
// a non-positive or NaN denominator of a positive family refutes or opens the FAVOR+ line, one non-positive trig
// denominator confirms the paper's warning, a NaN output refutes finiteness.
#include <catch2/catch.hpp>

#include <vector>

#include "evaluation/kernel_checks.hpp"

using namespace favorlab;

namespace {

DenominatorStats clean(double min_denominator) {
  DenominatorStats st;
  st.min_denominator = min_denominator;
  st.denominators = 100;
  return st;
}

}  // namespace

TEST_CASE("kernel checks: each verdict follows the tallies, and a counterexample refutes", "[evaluation][kernels]") {
  const std::vector<KernelCase> cases{{Family::positive, true}, {Family::trig, true}, {Family::relu, false}};
  CHECK(KernelCase{Family::relu, false}.label() == "relu (no projection)");
  CHECK(KernelCase{Family::positive, false}.label() == "positive");

  KernelChecks fine(cases, 1);
  fine.add(cases[0], 1.0, 3, clean(0.25));
  fine.add(cases[1], 1.0, 3, clean(0.5));
  fine.add(cases[2], 1.0, 1, clean(1.0));
  CHECK(fine.positive("s").status == Verdict::measured);
  CHECK(fine.positive("s").value == 0.25);
  CHECK(fine.trig("s").status == Verdict::inconclusive);  // none seen is not evidence that none can occur
  CHECK(fine.finite("s").status == Verdict::measured);

  KernelChecks broken(cases, 1);  // the power case: one bad figure each
  DenominatorStats bad = clean(0.25);
  bad.nonpositive = 1;
  broken.add(cases[0], 1.0, 3, bad);
  broken.add(cases[1], 1.0, 3, bad);  // one non-positive trig denominator confirms "can"
  DenominatorStats nan_output = clean(1.0);
  nan_output.nonfinite_outputs = 4;
  nan_output.nonfinite_draws = 1;
  broken.add(cases[2], 1.0, 1, nan_output);
  CHECK(broken.positive("s").status == Verdict::violated);
  CHECK(broken.trig("s").status == Verdict::holds);
  CHECK(broken.finite("s").status == Verdict::violated);

  KernelChecks open(cases, 1);
  DenominatorStats nan_denominator = clean(0.25);
  nan_denominator.nonfinite_denominators = 2;
  open.add(cases[0], 1.0, 3, nan_denominator);
  CHECK(open.positive("s").status == Verdict::inconclusive);
  CHECK(KernelChecks({{Family::relu, true}}, 2).positive("s").status == Verdict::inconclusive);  // nothing run
}
