#pragma once
// The law of the norms of a projection's rows ω_i, which the closed forms depend on
// (docs/theory.md#projection-distributions): chi — each norm ~ chi_d independently, so every row is marginally
// N(0, I_d); sqrt_d — every row has norm √d (positive features over such rows estimate SMREG, Theorem 1).
namespace favorlab {

enum class RowNorms { chi, sqrt_d };

}  // namespace favorlab
