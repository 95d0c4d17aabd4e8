#pragma once
// The α a sequential check spends at each look (docs/judging.md#looks-until-conclusive).
// A point judged at looks 0, 1, 2, … with more trials each time may be declared violated (or held) at any of them; to
// keep the family-wise false-failure rate at α over all looks, look k is judged at level
//   α_k = α · 6 / (π² (k + 1)²),   so that Σ_{k ≥ 0} α_k = α   (Σ 1/(k+1)² = π²/6),
// a union bound over the looks (Bonferroni with unequal shares). The share of a look does not depend on how many looks
// follow, so a run stopped at look K by a clock and a rerun told to stop there (--max-looks K + 1) judge every point
// at the same level and agree. The pilot keeps 61 % of α.
namespace favorlab {

double look_alpha(double family_alpha, int look);  // throws std::invalid_argument on look < 0 or α outside (0, 1)

}  // namespace favorlab
