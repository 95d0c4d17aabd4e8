#include "ledger/claim_sources.hpp"

#include <array>
#include <stdexcept>

namespace favorlab {

namespace {

using K = ClaimKind;

// Sources, spelled once. The papers: Choromanski et al. 2021 (Performers), Chen 2021 (PermuteFormer), Likhosherstov
// et al. 2022 (FAVOR++), Likhosherstov et al. 2023 (FAVOR#), Reid et al. 2023 (simplex random features).
constexpr std::string_view kLemma1 = "Performers, Lemma 1";
constexpr std::string_view kLemma2 = "Performers, Lemma 2";
constexpr std::string_view kLemma3 = "Performers, Lemma 3";
constexpr std::string_view kLemma6 = "Performers, Lemma 6";
constexpr std::string_view kTheorem1 = "Performers, Theorem 1";
constexpr std::string_view kTheorem2 = "Performers, Theorem 2";
constexpr std::string_view kTheorem3 = "Performers, Theorem 3";
constexpr std::string_view kTheorem4 = "Performers, Theorem 4";
constexpr std::string_view kSection23 = "Performers, Section 2.3";
constexpr std::string_view kStructured = "Performers, Section B.2";
constexpr std::string_view kFig4 = "Performers, Fig. 4";
constexpr std::string_view kFig14 = "Performers, Fig. 14";
constexpr std::string_view kFig16 = "Performers, Fig. 16";
constexpr std::string_view kPermuteFormer = "PermuteFormer, Section 3";
constexpr std::string_view kProperty1 = "PermuteFormer, Property 1";
constexpr std::string_view kProperty2 = "PermuteFormer, Property 2";
constexpr std::string_view kProperty3 = "PermuteFormer, Property 3";
constexpr std::string_view kPermuteCost = "PermuteFormer, Section 4 (cost)";
constexpr std::string_view kGerf = "FAVOR++ (Likhosherstov et al. 2022), GERF";
constexpr std::string_view kOprf = "FAVOR++ (Likhosherstov et al. 2022), OPRF optimality";
constexpr std::string_view kSderf = "FAVOR# (2023)";
constexpr std::string_view kSimplex = "Simplex RFs (Reid et al. 2023)";
constexpr std::string_view kFavorlab = "favorlab";

// The sentences the claims formalize, quoted from the papers (formulas in ASCII; "[...]" marks an elision).
constexpr std::string_view kSection3 = "Section 3";
constexpr std::string_view kPrintedT1 =
    "Assume that the L_inf-norm of the attention matrix for the softmax-kernel satisfies: ||A||_inf <= C for some "
    "constant C >= 1. [...] The following holds: inf_{i,j} A_reg(i,j)/A(i,j) >= 1 - 2/d + o(1/d)";
constexpr std::string_view kPrintedT1Sup =
    "the latter holds for d >= 2 even if L_inf-norm condition is not satisfied, i.e. the regularized softmax-kernel "
    "is a universal lower bound for the softmax-kernel";
constexpr std::string_view kPrintedT2 =
    "If SM^ort+_m(x, y) stands for the modification of SM^+_m(x, y) with orthogonal random features (and thus for "
    "m <= d), then the following holds for any d > 0: MSE(SM^ort+_m(x, y)) <= MSE(SM^+_m(x, y)) - (1 - 1/m) "
    "2/(d + 2) SM^2(x, y)";
constexpr std::string_view kPrintedT2Smreg =
    "Furthermore, completely analogous result holds for the regularized softmax-kernel SMREG";
constexpr std::string_view kPrintedT3Iid =
    "The following holds for any a > SMREG(x, y) and m <= d: P[SMREG^+_m(x, y) > a] <= exp(-m L_X(a))";
constexpr std::string_view kPrintedT3Ort =
    "The following holds for any a > SMREG(x, y) and m <= d: [...] P[SMREG^ort+_m(x, y) > a] <= d/(d + 2) "
    "exp(-m L_X(a))";
constexpr std::string_view kPrintedT4 =
    "In general, m depends on the dimensionality d of the embeddings, radius R of the ball where all queries/keys "
    "live and precision parameter eps [...], but does not depend on input sequence length L";
constexpr std::string_view kPrintedF6 =
    "with a larger dimensionality d we need more random projeections [sic] (on the order of magnitude d log(d)) to get "
    "an approximation within eps error";
constexpr std::string_view kPrintedB2 =
    "(2) Hadamard/Givens ORFs [H/G-ORFs]: [...] Gives small bias (tending to 0 with d -> inf)";
constexpr std::string_view kPrintedFig4Orthogonal =
    "Orthogonal features produce lower error than unstructured (IID) features";
constexpr std::string_view kPrintedFig4Positive =
    "Positive features produce lower error than trigonometric sin/cos features";
constexpr std::string_view kPrintedPermuteOrder =
    "PermuteFormer can encode relative positions up to the order of the permutation pi";
constexpr std::string_view kPrintedAverageOrder =
    "the dimension of queries / keys per attention head is 64, corresponding to an average order of over 3000";
constexpr std::string_view kPrintedLcm =
    "the longest distance PermuteFormer can encode is the least common multiple of all permutations' orders, which "
    "can be up to 1e27 for a model with head size of 64";

// One row per claim an experiment emits; a claim string with parameters in it (m, C, a family name) is matched by the
// prefix before them. Rows of one source stay together: the ledger prints sources in the order they first appear.
const std::vector<ClaimSource> kSources{
    // Performers: estimators and their errors.
    {"unbiased", "Lemma 1: E[", kLemma1, K::paper, {}, "unbiased.png"},
    {"unbiased", "Theorem 1 (setup): E[smreg estimate] = SMREG", kTheorem1, K::paper, {}, "unbiased.png"},
    {"mse", "Lemma 1: E[", kLemma1, K::paper, {}, "mse.png"},  // result files of earlier versions
    {"structured", "Lemma 1 (control): E[", kLemma1, K::control, {}, "structured_bias.png"},
    {"mse", "Lemma 2: MSE(", kLemma2, K::paper, {}, "mse.png"},
    {"mse", "Lemma 2: MSE(trig)/MSE(positive) grows as SM -> 0", kLemma2, K::paper, {}, "mse_ratio.png"},
    {.experiment = "mse",
     .claim_prefix = "Lemma 2: hyperbolic with m beats positive with 2m",
     .source = kLemma2,
     .kind = K::paper,
     .figure = "mse.png",
     .rests_on = {"Lemma 2: MSE(positive) closed form", "Lemma 2: MSE(hyperbolic) closed form"}},
    {"orthogonal", "Lemma 2: MSE(positive) closed form", kLemma2, K::paper, {}, "orthogonal_positive.png"},
    {"estimators", "Lemma 2: MSE(", kLemma2, K::paper},
    {"moments", "Lemma 3 / eq. 22: E[u1^2k]", kLemma3, K::paper, {}, "moments.png"},
    {"moments", "Lemma 3: odd moments of u1 vanish", kLemma3, K::paper, {}, "moments.png"},
    {"moments", "Lemma 6: tau(d_1..d_m) <= d/(d+2)", kLemma6, K::paper, {}, "moments_tau.png"},
    {"moments", "Lemma 6 proof: tau is maximised by (2, 2, 0, ...)", kLemma6, K::paper, {}, "moments_tau.png"},
    {"smreg", "eq. 30: the Poisson series of SMREG/SM equals the Bessel closed form", kTheorem1, K::paper, {},
     "smreg_ratio.png"},
    {"smreg", "Theorem 1 (setup): E[smreg estimate] = SMREG", kTheorem1, K::paper, {}, "smreg_ratio.png"},
    {"smreg", "Theorem 1: SMREG <= SM", kTheorem1, K::paper, {}, "smreg_ratio.png", kPrintedT1Sup,
     "Section 3, Theorem 1"},
    {"smreg", "Theorem 1: inf SMREG/SM >= 1 - 2/d + o(1/d)", kTheorem1, K::paper, "Theorem 1 corrected: ",
     "smreg_bound.png", kPrintedT1, "Section 3, Theorem 1"},
    {"orthogonal", "Theorem 2 (positive): ", kTheorem2, K::paper, "Theorem 2 corrected (positive)",
     "orthogonal_gap.png", kPrintedT2, "Section 3, Theorem 2"},
    {"orthogonal", "Theorem 2 (smreg): ", kTheorem2, K::paper, "Theorem 2 corrected (smreg)", "orthogonal_gap.png",
     kPrintedT2Smreg, "Section 3, after Theorem 2"},
    {"tails", "Theorem 3: P[SMREG+_m > a] <= exp(-m L_X(a))", kTheorem3, K::paper, {}, {}, kPrintedT3Iid,
     "Section 3, Theorem 3"},
    {"tails", "Theorem 3: P[SMREG-ort+_m > a] <= d/(d+2) exp(-m L_X(a))", kTheorem3, K::paper,
     "Theorem 3 proof step: P[SMREG-ort+_m > a] <= exp(-m L_X(a))", {}, kPrintedT3Ort, "Section 3, Theorem 3"},
    {"uniform", "Theorem 4: the m needed for max|A_hat - A| <= eps", kTheorem4, K::derived, {}, {}, kPrintedT4,
     "Section 3, before Theorem 4"},
    {"uniform", "F.6: with a larger d more random projections are needed", "Performers, Section F.6", K::paper, {},
     "uniform_needed_m.png", kPrintedF6, "Appendix F.6"},
    // The order of magnitude F.6 adds, read as one constant C for every d: stronger than the printed sentence.
    {"uniform", "F.6: the needed m grows like d log d", "Performers, Section F.6", K::derived, {},
     "uniform_needed_m.png", kPrintedF6, "Appendix F.6"},
    // "E = SM" is the null whose violation detects a bias. B.2 says only that the bias tends to 0 as d grows; "no
    // larger at d = 256 than at d = 4" at a fixed geometry is favorlab's finite-d reading of it, a stronger statement.
    {"structured", "Structured features (B.2): E[", kStructured, K::derived, {}, "structured_bias.png"},
    {"structured", "Structured features (B.2): |relative bias of ", kStructured, K::derived, {}, "structured_bias.png",
     kPrintedB2, "Appendix B.2"},
    // Performers: attention.
    {"attention-error", "Fig. 4: orthogonal features give lower output MSE than iid", kFig4, K::paper, {}, {},
     kPrintedFig4Orthogonal, "Section 4.2"},
    {"attention-error", "Fig. 4: positive features give lower output MSE than trig", kFig4, K::paper, {}, {},
     kPrintedFig4Positive, "Section 4.2"},
    {"redraw", "Positive features give lower output MSE than trig (paired over the same draws W)", kFig4, K::paper, {},
     {}, kPrintedFig4Positive, "Section 4.2"},
    {"attention-matrix", "Trig-feature attention matrices can have negative entries", kSection23, K::paper},
    {"kernels", "Trig features can give non-positive denominators", kSection23, K::paper},
    {"attention-matrix", "Positive-feature attention matrices have no negative entries", kSection23, K::property},
    {"kernels", "FAVOR+: positive (and hyperbolic, regularized) features give denominators D_hat > 0", kSection23,
     K::property},
    {"kernels", "FAVOR outputs and denominators free of NaN/Inf", kFig16, K::property},
    {"layers", "Fig. 14 (qualitative): the output error grows with the number of layers", kFig14, K::paper},
    // PermuteFormer.
    {"permute-properties", "PF property 1: ", kProperty1, K::paper, {}, "permute_offsets.png"},
    {"permute-properties", "PF property 2: ", kProperty2, K::paper, {}, "permute_offsets.png"},
    {"permute-properties", "PF property 3: sim > 0", kProperty3, K::paper, {}, "permute_offsets.png"},
    {"permute-properties", "PF: offsets delta and delta + order(pi) give the same sim", kPermuteFormer, K::property,
     {}, "permute_offsets.png"},
    // "Can encode relative positions up to the order" is about what the encoding can distinguish; "every pair of
    // offsets below the order gives different sims for every (q, k)" is favorlab's stronger reading of it.
    {"permute-properties", "PF: offsets below order(pi) give different sims", kPermuteFormer, K::derived, {},
     "permute_offsets.png", kPrintedPermuteOrder, kSection3},
    {"permute-properties", "PF 2-D: the row wrap", kPermuteFormer, K::paper, {}, "permute_wrap.png"},
    {"permute-properties", "PF 1-D flattened: the row wrap", kPermuteFormer, K::property, {}, "permute_wrap.png"},
    {"perm-order", "PermuteFormer: the average order of a random permutation of 64 elements is over 3000",
     kPermuteFormer, K::paper, {}, {}, kPrintedAverageOrder, kSection3},
    {"perm-order", "PermuteFormer: the lcm of the heads' orders can be up to 1e27", kPermuteFormer, K::paper, {},
     "perm_order_heads.png", kPrintedLcm, kSection3},
    {"permute-properties", "Target: PermuteFormer as fast as Performer", kPermuteCost, K::target, {},
     "permute_overhead.png"},
    // FAVOR++, FAVOR#, simplex random features.
    {"unbiased", "Lemma 1: E[gerf estimate]", kGerf, K::paper, {}, "unbiased.png"},
    {"unbiased", "Lemma 1: E[oprf estimate]", kGerf, K::paper, {}, "unbiased.png"},
    {"unbiased", "Lemma 1: E[sderf estimate]", kSderf, K::paper, {}, "unbiased.png"},
    {"mse", "FAVOR++ GERF variance: ", kGerf, K::paper},
    {"mse", "FAVOR++ OPRF variance: ", kOprf, K::paper},
    {"mse", "FAVOR# SDERF variance: ", kSderf, K::paper},
    {"estimators", "Exact MSE (gerf, iid) = Monte Carlo", kGerf, K::paper},
    {"estimators", "Exact MSE (oprf, iid) = Monte Carlo", kOprf, K::paper},
    {"estimators", "FAVOR++: MSE(oprf) <= MSE(positive)", kOprf, K::paper},
    {"estimators", "Exact MSE (sderf, iid) = Monte Carlo", kSderf, K::paper},
    {"estimators", "FAVOR#: MSE(sderf) <= MSE(oprf)", kSderf, K::paper},
    {"estimators", "Exact simplex MSE (positive, Reid et al. 2023) = Monte Carlo", kSimplex, K::paper},
    {"estimators", "Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal)", kSimplex, K::paper},
    {"orthogonal", "Exact simplex MSE (positive, Reid et al. 2023) = Monte Carlo", kSimplex, K::paper, {},
     "orthogonal_positive.png"},
    {"orthogonal", "Simplex RFs (positive): MSE(simplex) <= MSE(orthogonal)", kSimplex, K::paper, {},
     "orthogonal_positive.png"},
    // favorlab's own statements: corrections, derivations, baselines, targets, measurements.
    {"smreg", "Theorem 1 corrected: ", kFavorlab, K::corrected, {}, "smreg_bound.png"},
    {"orthogonal", "Theorem 2 corrected (", kFavorlab, K::corrected, {}, "orthogonal_gap.png"},
    {"tails", "Theorem 3 proof step: P[SMREG-ort+_m > a] <= exp(-m L_X(a))", kFavorlab, K::corrected},
    {"orthogonal", "Theorem 2 (", kFavorlab, K::derived, {}, "orthogonal_gap.png"},  // structured couplings
    {"orthogonal", "Exact orthogonal MSE (", kFavorlab, K::derived, {}, "orthogonal_positive.png"},
    {"orthogonal", "Exact iid MSE (smreg, sphere MGF) = Monte Carlo", kFavorlab, K::derived, {},
     "orthogonal_smreg.png"},
    {"estimators", "Exact MSE (", kFavorlab, K::derived},  // coupled rows of every family
    {"estimators", "Simplex RFs (", kFavorlab, K::derived},  // simplex rows for the other families
    {"unbiased", "Identity: under the zero-variance proposal every weighted ", kFavorlab, K::identity, {},
     "unbiased.png"},
    {"perm-order", "E[order] of a uniform permutation of S_n", kFavorlab, K::derived},
    {"perm-order", "E[ln order] = its exact value", kFavorlab, K::derived},
    {"redraw", "Redrawing: averaging k redrawn outputs cuts the output MSE like 1/k", kFavorlab, K::derived},
    {"redraw", "Redrawing: MSE of the k-average = bias^2 + variance/k", kFavorlab, K::derived},
    {"redraw", "Redrawing: no bias remains after averaging", kFavorlab, K::derived},
    {"redraw", "Redrawing: fraction of unlucky draws", kFavorlab, K::measurement},
    {"attention-matrix", "Rows of the exact and renormalized FAVOR attention matrices sum to 1", kFavorlab,
     K::property},
    {"attention-report", "Output error falls as m grows", kFavorlab, K::derived, {}, "attention_report_error.png"},
    {"attention-report", "FAVOR's output error is no larger than uniform attention's", kFavorlab, K::baseline, {},
     "attention_report_error.png"},
    {"attention-report", "FAVOR's attention-matrix error is within ", kFavorlab, K::baseline, {},
     "attention_report_error.png"},
    {"attention-report", "FAVOR's attention-matrix error is at least the best rank-r matrix's", kFavorlab,
     K::property, {}, "attention_report_error.png"},
    {"speed", "Target: ", kFavorlab, K::target},
    {"speed", "Measured: ", kFavorlab, K::measurement},
    {"peer-speed", "Target: ", kFavorlab, K::target},
    {"peer-speed", "performer-pytorch agrees with favorlab", kFavorlab, K::control},
};

struct FigureList {
  std::string_view experiment;
  std::vector<std::string_view> figures;
};

// plotting/plot_*.py: what each experiment's figure script writes under results/figures/.
const std::vector<FigureList> kFigures{
    {"mse", {"mse.png", "mse_ratio.png"}},
    {"smreg", {"smreg_ratio.png", "smreg_bound.png"}},
    {"orthogonal", {"orthogonal_gap.png", "orthogonal_positive.png", "orthogonal_smreg.png"}},
    {"estimators", {"estimators.png"}},
    {"tails", {"tails_d1.png", "tails_d2.png", "tails_d16.png"}},
    {"moments", {"moments.png", "moments_tau.png"}},
    {"unbiased", {"unbiased.png", "unbiased_bias.png"}},
    {"structured", {"structured_bias.png", "structured_mse.png", "structured_speed.png"}},
    {"perm-order", {"perm_order.png", "perm_order_heads.png"}},
    {"permute-properties", {"permute_offsets.png", "permute_wrap.png", "permute_overhead.png"}},
    {"attention-error", {"attention_error.png"}},
    {"redraw", {"redraw.png"}},
    {"attention-matrix", {"attention_matrix.png"}},
    {"speed", {"speed.png"}},
    {"peer-speed", {"peer-speed.png"}},
    {"uniform", {"uniform.png", "uniform_needed_m.png"}},
    {"kernels", {"kernels.png"}},
    {"layers", {"layers.png"}},
    {"attention-report",
     {"attention_report_error.png", "attention_report_heatmap.png", "attention_report_diagnostics.png"}},
};

// How a claim names the method that judged it (the last words after a comma). "plain or importance-sampled": both
// Monte Carlo methods combined per point (stats/either_check.hpp).
constexpr std::array<std::string_view, 4> kMethodSuffixes{", plain or importance-sampled", ", importance-sampled",
                                                          ", exact values", ", Monte Carlo"};

constexpr std::array<std::pair<ClaimKind, std::string_view>, 9> kKindNames{{{K::paper, "paper"},
                                                                             {K::corrected, "corrected"},
                                                                             {K::derived, "derived"},
                                                                             {K::control, "control"},
                                                                             {K::baseline, "baseline"},
                                                                             {K::target, "target"},
                                                                             {K::property, "property"},
                                                                             {K::measurement, "measurement"},
                                                                             {K::identity, "identity"}}};

}  // namespace

const char* claim_kind_name(ClaimKind k) {
  for (const auto& [kind, name] : kKindNames)
    if (kind == k) return name.data();
  return "paper";
}

std::optional<ClaimKind> parse_claim_kind(std::string_view name) {
  for (const auto& [kind, kind_name] : kKindNames)
    if (kind_name == name) return kind;
  return std::nullopt;
}

const std::vector<ClaimSource>& claim_sources() { return kSources; }

const ClaimSource* find_claim_source(std::string_view experiment, std::string_view claim) {
  const ClaimSource* best = nullptr;
  for (const ClaimSource& row : kSources) {
    if (row.experiment != experiment || !claim.starts_with(row.claim_prefix)) continue;
    if (best == nullptr || row.claim_prefix.size() > best->claim_prefix.size()) best = &row;
  }
  return best;
}

const std::vector<std::string_view>& experiment_figures(std::string_view experiment) {
  static const std::vector<std::string_view> none;
  for (const FigureList& f : kFigures)
    if (f.experiment == experiment) return f.figures;
  return none;
}

void attribute_checks(std::string_view experiment, std::vector<Check>& checks) {
  for (Check& c : checks) {
    const ClaimSource* row = find_claim_source(experiment, c.claim);
    if (row == nullptr)
      throw std::logic_error("claim '" + c.claim + "' of " + std::string(experiment) +
                             " has no source (add its row to src/ledger/claim_sources.cpp)");
    c.source = row->source;
    c.kind = claim_kind_name(row->kind);
  }
}

ClaimMethod split_claim_method(std::string_view claim) {
  for (std::string_view suffix : kMethodSuffixes)
    if (claim.size() > suffix.size() && claim.ends_with(suffix))
      return {std::string(claim.substr(0, claim.size() - suffix.size())), std::string(suffix.substr(2))};
  return {std::string(claim), ""};
}

}  // namespace favorlab
