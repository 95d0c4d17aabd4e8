#pragma once
// One table of feature families: every property of a family that some part of favorlab needs lives in its row of
// kFamilies (feature_family.cpp), and everything else — the CLI choices and help strings, the JSON names, which
// experiments accept it, the plot colours (plotting/families.json, written by `favorlab families --json`), the
// feature map both engines call, its theory, the CUDA map — is derived from the table. Adding a family:
// docs/adding-a-family.md.
//
// A family is one way of building random features φ(u) from projections W (rows ω_i):
//   trig, positive, hyperbolic   Lemma 1's estimators of SM(x, y) = exp(xᵀy), Gaussian rows (chi norms)
//   regularized                  positive features over rows of norm √d: unbiased for SMREG (Theorem 1)
//   gerf                         generalized exponential features D·exp(A‖ω‖² + Bωᵀu − ‖u‖²/2), a fixed A < 1/8
//   oprf                         gerf with the A that minimises the variance, chosen from the data (FAVOR++)
//   sderf                        dense-exponential features with a matrix A chosen from the data (FAVOR#)
//   relu … identity              generalized kernels f(Wu) + ε_k (not estimators of SM)
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "features/feature_map.hpp"
#include "features/shifted_projection.hpp"
#include "features/projection.hpp"
#include "kernels/error_moments.hpp"
#include "kernels/geometry.hpp"
#include "kernels/pair_gerf.hpp"

namespace favorlab {

// `smreg` is the name of `regularized` in the estimator (Monte Carlo) experiments: one family, two spellings.
enum class Family : int {
  trig, positive, hyperbolic, regularized, gerf, oprf, sderf,
  relu, exp, sigmoid, abs, gelu, cos, tanh, identity,
  smreg = regularized,
};

// What E[φ(x)ᵀφ(y)] is.
enum class KernelTarget { softmax, regularized_softmax, generalized };

// Parameters a family may take from the user (the others take none or choose theirs from the data).
struct FeatureParameters {
  double gerf_a = -0.0625;  // A of gerf; any A < 1/8 is unbiased, A = 0 is the positive map
};

// Exact MSE of the family's estimate of its target with m iid rows, at a pair with geometry g in dimension d.
using IidMseFn = double (*)(const Geometry& g, int d, int m, const FeatureParameters& params);
// Exact MSE with m rows coupled by c (orthogonal, simplex, …) in blocks of d, or std::nullopt where there is none;
// `pair` is the row's pair_gerf at the pair ({} for a family without one). Functions: features/family_theory.hpp.
using CoupledMseFn = std::optional<double> (*)(Coupling c, const Geometry& g, int d, int m, const PairGerf& pair);
// The shifted positive map's projection, from W (m×d as drawn) and, for data-dependent families, the statistics.
using PrepareFn = ShiftedProjection (*)(const Eigen::MatrixXd& w, const PairStatistics& stats,
                                        const FeatureParameters& params);
// One pair's features as isotropic gerf features: A and the dimension they act in, for φ = ‖x + y‖².
using PairGerfFn = PairGerf (*)(double phi, int d, const FeatureParameters& params);
// φ(x_p)ᵀφ(y_p) for every row p of X and Y (L×d) when the features depend on the pair (its own statistics).
using PairEstimatesFn = Eigen::VectorXd (*)(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y,
                                            const Eigen::MatrixXd& w);

// A row of the table; docs/adding-a-family.md explains every field. The function pointers that default to nullptr
// are the optional ones: a row names each field it sets.
struct FamilyInfo {
  // Names and presentation.
  Family family;
  std::string_view name;            // CLI --features and the JSON "features"/"estimator" fields
  std::string_view estimator_name;  // its name in estimator experiments (differs for regularized only: smreg)
  std::string_view description;     // one line for help text and `favorlab families`
  std::string_view color;           // matplotlib colour of its series
  // The features.
  KernelTarget target;              // what E[φ(x)ᵀφ(y)] is
  bool positive;                    // φ > 0 (generalized kernels: once ε_k > 0 is added)
  const FeatureMap* map;            // the feature map both engines call (features/feature_map.hpp)
  int columns_per_row;              // feature columns per projection row: 1 (m columns) or 2 (2m), as its map's
  RowNorms norms;                   // row norms of W as drawn (data-dependent families then transform W)
  bool data_dependent;              // its projection is prepared from statistics of the inputs
  PrepareFn prepare = nullptr;               // maps with a prepared projection: [W' | c] from W
  PairEstimatesFn pair_estimates = nullptr;  // data-dependent families in the estimator engine
  // Its theory (kernels/).
  PairGerfFn pair_gerf = nullptr;   // families that are isotropic gerf at a pair (positive: A = 0)
  IidMseFn iid_mse = nullptr;       // closed form with iid rows
  std::string_view mse_source = ""; // where iid_mse comes from (claim names)
  CoupledMseFn coupled_mse = nullptr;      // closed forms with coupled rows
  ErrorMomentsFn error_moments = nullptr;  // its model of one feature: the error's moments with m iid rows
};

const std::vector<FamilyInfo>& families();
const FamilyInfo& family_info(Family f);

// Softmax-kernel estimators (target softmax or regularized softmax): everything but the generalized kernels, and the
// families the estimator (Monte Carlo) engine runs.
bool estimates_softmax(Family f);

std::string_view family_name(Family f);
std::string_view estimator_name(Family f);
// Accepts name and estimator_name; throws std::invalid_argument("unknown <what> 'x' (expected a, b or c)") listing
// the names of the families `admit` accepts.
Family parse_family(std::string_view name, std::string_view what, bool (*admit)(Family),
                    bool estimator_spelling = false);
std::vector<std::string> family_names(bool (*admit)(Family), bool estimator_spelling = false);
// "a, b, c or d": the names `admit` accepts, for help strings and errors.
std::string family_list(bool (*admit)(Family), bool estimator_spelling = false);

// The table as JSON text (name, estimator name, colour, properties): plotting/families.json is this output.
std::string families_json();

}  // namespace favorlab
