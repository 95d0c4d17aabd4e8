#pragma once
// Where each claim that favorlab judges comes from: the paper and the place ("Performers, Lemma 2"), and what kind
// of statement it is. One table (claim_sources.cpp) holds every claim the experiments check; a check whose claim
// the table does not know is a bug of the experiment that emits it (attribute_checks throws).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stats/check.hpp"

namespace favorlab {

// What kind of statement a claim is (docs/judging.md#the-claims-ledger):
enum class ClaimKind {
  paper,        // a paper's statement as printed
  corrected,    // favorlab's corrected form of a paper statement found false
  derived,      // a consequence favorlab derived and tests (an exact value, a law implied by the setup)
  control,      // a known-true statement tested beside the others, so that the experiment itself can be trusted
  baseline,     // a comparison with a reference method (uniform attention, the best rank-r matrix)
  target,       // a performance target of favorlab
  property,     // true by construction: a check of the implementation
  measurement,  // a quantity reported, nothing claimed
  // An algebraic identity checked to rounding: a line whose value is the same whatever was drawn (a zero-variance
  // proposal, one closed form against another). Evidence for the algebra only, never for a sampler, a coupling or a
  // control: its claim is its own and merges with no other.
  identity,
};

const char* claim_kind_name(ClaimKind k);
std::optional<ClaimKind> parse_claim_kind(std::string_view name);

struct ClaimSource {
  std::string_view experiment;    // the experiment that emits the claim
  std::string_view claim_prefix;  // the claim string starts with this (the longest matching prefix wins)
  std::string_view source;        // "Performers, Lemma 2", "favorlab", ...
  ClaimKind kind;
  // For a paper claim: the prefix of the corrected statement's claim (same experiment), empty where none is tested.
  std::string_view corrected_by = {};
  // The figure that shows the claim (a PNG name under results/figures/); empty: the experiment's first figure.
  std::string_view figure = {};
  // The source's own sentence that the claim formalizes (short exact phrases, formulas in ASCII, elisions "[...]")
  // and where it is printed ("Section 3, Theorem 2"). A `paper` claim is that sentence as printed; a `derived` claim
  // with a sentence here is favorlab's stronger reading of it (refuting the reading does not refute the sentence).
  std::string_view printed = {};
  std::string_view printed_at = {};
  // Claims a closed-forms line of this claim takes for granted (a check that evaluates formulas without sampling:
  // "..., exact values"). Such a line decides the claim only where every claim named here holds in the same ledger;
  // elsewhere it is set aside, since it cannot see a sampler that departs from the formulas.
  std::vector<std::string_view> rests_on = {};
};

// Every row of the table, in the order the ledger groups them (by first appearance of each source).
const std::vector<ClaimSource>& claim_sources();

// The row of `claim` as emitted by `experiment`; nullptr when the table has none.
const ClaimSource* find_claim_source(std::string_view experiment, std::string_view claim);

// The figures an experiment's plotting script writes (results/figures/NAME.png), first the main one.
const std::vector<std::string_view>& experiment_figures(std::string_view experiment);

// Fills `source` and `kind` of every check from the table. Throws std::logic_error naming the claim when the table
// has no row for it (an experiment's new claim needs its row in claim_sources.cpp).
void attribute_checks(std::string_view experiment, std::vector<Check>& checks);

// One claim judged by several methods shares one ledger line: "CLAIM, importance-sampled" and "CLAIM, exact values"
// are CLAIM by another method. Returns {CLAIM, method suffix} ("" when the claim names no method).
struct ClaimMethod {
  std::string claim;
  std::string method;
};
ClaimMethod split_claim_method(std::string_view claim);

}  // namespace favorlab
