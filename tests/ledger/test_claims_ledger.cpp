// The claims ledger (ledger/): every check attributed to its source, one line per claim however many methods judged
// it, "found false as printed" and "still open" drawn from the verdicts, and the committed CLAIMS.md and README table
// in step with the committed results.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "experiments/experiment.hpp"
#include "ledger/claim_sources.hpp"
#include "ledger/ledger.hpp"

namespace fl = favorlab;
namespace fs = std::filesystem;
using fl::testing::read_text;
using fl::testing::run_cli;
using fl::testing::scratch_dir;
using Json = nlohmann::ordered_json;

namespace {

const fs::path kSource = FAVORLAB_SOURCE_DIR;

// A judged check as a result file writes it. A sampled check states its critical value; an exact one (arithmetic,
// no sampling) writes null there (`critical` NaN).
Json judged(const std::string& claim, const std::string& where, const std::string& status, int held, int violated,
            int inconclusive, double power, const std::string& worst = "", std::int64_t trials_needed = 0,
            const std::string& detail = "", double critical = 3.29) {
  return Json{{"claim", claim},
              {"where", where},
              {"status", status},
              {"detail", detail},
              {"critical", std::isfinite(critical) ? Json(critical) : Json(nullptr)},
              {"points_total", held + violated + inconclusive},
              {"points_held", held},
              {"points_violated", violated},
              {"points_inconclusive", inconclusive},
              {"worst", worst.empty() ? Json(nullptr) : Json{{"label", worst}, {"statistic", 1.0}, {"margin", 0.0}}},
              {"power", power},
              {"trials_needed", trials_needed}};
}

constexpr double kExact = std::numeric_limits<double>::quiet_NaN();

// A result file of `experiment` whose checks each have family α `alpha` (NaN: the file states none).
void write_result(const fs::path& dir, const std::string& experiment, const Json& checks, bool quick = true,
                  double alpha = 1e-3) {
  Json params{{"quick", quick}};
  if (std::isfinite(alpha)) params["alpha"] = alpha;
  const Json doc{{"schema", "favorlab.result/1"},
                 {"experiment", experiment},
                 {"params", params},
                 {"provenance", Json::object()},
                 {"rows", Json::array()},
                 {"checks", checks}};
  std::ofstream(dir / (experiment + ".json")) << doc.dump(1) << "\n";
}

constexpr const char* kT2 = "Theorem 2 (positive): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) SM^2";
constexpr const char* kT2c = "Theorem 2 corrected (positive): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) (SM - Lambda)^2";
constexpr const char* kL2 = "Lemma 2: MSE(positive) closed form";

// Planted verdicts: Lemma 2 open by plain Monte Carlo but confirmed by importance sampling; Theorem 2 refuted by exact
// values, its corrected form confirmed; one measured target; Lemma 1 open out of reach.
fs::path planted_results() {
  const fs::path dir = scratch_dir("ledger-planted");
  write_result(dir, "mse",
               Json::array({judged(kL2, "iid, d=16", "inconclusive", 71, 0, 137, 0.01, "x_norm=1.5", 1'000'000),
                            judged(std::string(kL2) + ", importance-sampled", "iid, d=16, IS", "holds", 208, 0, 0,
                                   0.0088, "x_norm=0.1"),
                            judged("Lemma 1: E[positive estimate] = SM, importance-sampled", "iid, d=16, IS",
                                   "inconclusive", 20, 0, 4, 0.02, "x_norm=1",
                                   std::numeric_limits<std::int64_t>::max(),
                                   "20 points hold; 4 heavy-tailed points are out of reach of a z test")}));
  write_result(dir, "orthogonal",
               Json::array({judged(std::string(kT2) + ", exact values", "d=4", "violated", 3, 2, 0, 0.1, "", 0, "",
                                   kExact),
                            judged(std::string(kT2) + ", Monte Carlo", "d=4, both couplings", "inconclusive", 1, 0, 4,
                                   0.05, "m=4, cos=-1", 5000),
                            judged(std::string(kT2) + ", exact values", "d=16", "holds", 5, 0, 0, 0.1, "", 0, "",
                                   kExact),
                            judged(std::string(kT2c) + ", exact values", "d=4", "holds", 5, 0, 0, 0.001, "", 0, "",
                                   kExact)}));
  write_result(dir, "speed",
               Json::array({Json{{"claim", "Target: FAVOR bidirectional forward <= 1.2x its four bare products"},
                                 {"where", "every shape"},
                                 {"status", "measured"},
                                 {"detail", ""},
                                 {"value", 1.1},
                                 {"target", 1.2}}}));
  return dir;
}

}  // namespace

TEST_CASE("[ledger] every claim of every committed result is in the claims table, with the file's source and kind",
          "[ledger]") {
  // The committed quick results cover every experiment reproduce runs (and peer-speed, written by peer-bench.sh).
  for (const auto& e : fl::make_experiments()) {
    INFO(e->name());
    CHECK(fs::exists(kSource / "results" / (e->name() + ".json")));
  }
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "results")) {
    if (entry.path().extension() != ".json") continue;
    const Json doc = Json::parse(read_text(entry.path()));
    const std::string experiment = doc.at("experiment");
    for (const Json& c : doc.at("checks")) {
      const std::string claim = c.at("claim");
      INFO(experiment << ": " << claim);
      const fl::ClaimSource* row = fl::find_claim_source(experiment, claim);
      REQUIRE(row != nullptr);
      CHECK(c.at("source") == std::string(row->source));
      CHECK(c.at("kind") == std::string(fl::claim_kind_name(row->kind)));
      ++checked;
    }
  }
  CHECK(checked > 200);
}

TEST_CASE("[ledger] a claim missing from the table fails the run that emits it", "[ledger]") {
  std::vector<fl::Check> checks(1);
  checks[0].claim = "Lemma 9: something no paper says";
  CHECK_THROWS_WITH(fl::attribute_checks("mse", checks), Catch::Contains("has no source"));
  // Power case of the table itself: a known claim gets its row, the longest prefix winning.
  checks[0].claim = std::string(kT2c) + ", exact values";
  fl::attribute_checks("orthogonal", checks);
  CHECK(checks[0].source == "favorlab");
  CHECK(checks[0].kind == "corrected");
  checks[0].claim = std::string(kT2) + ", exact values";
  fl::attribute_checks("orthogonal", checks);
  CHECK(checks[0].source == "Performers, Theorem 2");
  CHECK(checks[0].kind == "paper");
  // A structured coupling's Theorem 2 check is favorlab's question, not the paper's statement.
  checks[0].claim = "Theorem 2 (positive) with hadamard features: MSE <= MSE(iid) - (1-1/m) 2/(d+2) SM^2, Monte Carlo";
  fl::attribute_checks("orthogonal", checks);
  CHECK(checks[0].kind == "derived");
  // Both Monte Carlo methods combined per point: the claim's own row, the method named by the suffix.
  checks[0].claim = std::string(kL2) + ", plain or importance-sampled";
  fl::attribute_checks("orthogonal", checks);
  CHECK(checks[0].source == "Performers, Lemma 2");
  const fl::ClaimMethod split = fl::split_claim_method(checks[0].claim);
  CHECK(split.claim == kL2);
  CHECK(split.method == "plain or importance-sampled");
  CHECK(fl::split_claim_method(std::string(kL2) + ", importance-sampled").method == "importance-sampled");
}

TEST_CASE("[ledger] methods of one claim share a line, the rule is violated > holds > inconclusive", "[ledger]") {
  const fs::path dir = planted_results();
  const fl::Ledger ledger = fl::read_ledger(dir);
  REQUIRE(ledger.claims.size() == 5);
  CHECK(ledger.checks == 8);
  CHECK(ledger.run_size == "quick runs");
  // Sources in table order: Lemma 1, Lemma 2, Theorem 2, then favorlab.
  CHECK(ledger.claims[0].source == "Performers, Lemma 1");
  const fl::LedgerClaim& lemma2 = ledger.claims[1];
  CHECK(lemma2.claim == kL2);
  REQUIRE(lemma2.methods.size() == 2);
  CHECK(lemma2.verdict == fl::Verdict::holds);  // one method confirms at every point, none refutes
  CHECK(lemma2.methods[lemma2.deciding].method == "importance-sampled");
  const fl::LedgerClaim& theorem2 = ledger.claims[2];
  CHECK(theorem2.claim == kT2);
  CHECK(theorem2.verdict == fl::Verdict::violated);
  CHECK(theorem2.violated() == 2);
  // Two exact-value checks (d = 4 violated, d = 16 held) are one method, refuted as a whole.
  REQUIRE(theorem2.methods.size() == 2);
  CHECK(theorem2.methods[0].checks == 2);
  CHECK(theorem2.methods[0].held == 8);
  CHECK(theorem2.corrected_claim == kT2c);
  REQUIRE(theorem2.corrected_verdict);
  CHECK(*theorem2.corrected_verdict == fl::Verdict::holds);
  CHECK(ledger.claims[3].verdict == fl::Verdict::holds);  // the corrected statement
  CHECK(ledger.claims[4].verdict == fl::Verdict::measured);
  CHECK(ledger.count(fl::Verdict::inconclusive) == 1);
  fs::remove_all(dir);
}

TEST_CASE("[ledger] the planted ledger, byte for byte", "[ledger]") {
  const fs::path dir = planted_results();
  const fl::Ledger ledger = fl::read_ledger(dir);
  const std::string d = dir.string();
  CHECK(fl::ledger_text(ledger) ==
        "favorlab claims: 5 claims from 8 checks in 3 result files: 2 hold, 1 violated, 1 inconclusive, 1 measured\n"
        "  (" + d + ": quick runs)\n"
        "\n"
        "Found false as printed\n"
        "  Performers, Theorem 2: " + kT2 + "\n"
        "      printed, Section 3, Theorem 2: \"If SM^ort+_m(x, y) stands for the modification of SM^+_m(x, y) with "
        "orthogonal random features (and thus for m <= d), then the following holds for any d > 0: "
        "MSE(SM^ort+_m(x, y)) <= MSE(SM^+_m(x, y)) - (1 - 1/m) 2/(d + 2) SM^2(x, y)\"\n"
        "      counterexample [orthogonal, exact values]: d=4\n"
        "      corrected: " + kT2c + ": holds\n"
        "\n"
        "Still open\n"
        "  Performers, Lemma 1: Lemma 1: E[positive estimate] = SM\n"
        "      mse, importance-sampled: the check names no trial count that would settle it (the check: 4 "
        "heavy-tailed points are out of reach of a z test)\n"
        "\n"
        "Performers, Lemma 1\n"
        "  inconclusive  Lemma 1: E[positive estimate] = SM [paper]\n"
        "                mse, importance-sampled: 20/24 held, 0 violated, 4 inconclusive\n"
        "                power 2 %; false-verdict rate <= 0.001 (1 sampled check); worst: x_norm=1 (iid, d=16, IS); "
        "figure mse.png\n"
        "\n"
        "Performers, Lemma 2\n"
        "  holds         " + kL2 + " [paper]\n"
        "                mse: 71/208 held, 0 violated, 137 inconclusive; mse, importance-sampled: 208/208 held, 0 "
        "violated, 0 inconclusive\n"
        "                power 0.88 %; false-verdict rate <= 0.002 (2 sampled checks); worst: x_norm=0.1 (iid, d=16, "
        "IS); figure mse.png\n"
        "\n"
        "Performers, Theorem 2\n"
        "  violated      " + kT2 + " [paper]\n"
        "                orthogonal, exact values: 8/10 held, 2 violated, 0 inconclusive; orthogonal, Monte Carlo: 1/5 "
        "held, 0 violated, 4 inconclusive\n"
        "                power 10 %; false-verdict rate <= 0.001 (1 sampled check); worst: d=4; figure "
        "orthogonal_gap.png\n"
        "\n"
        "favorlab\n"
        "  holds         " + kT2c + " [corrected]\n"
        "                orthogonal, exact values: 5/5 held, 0 violated, 0 inconclusive\n"
        "                power 0.1 %; false-verdict rate n/a: exact checks only; worst: d=4; figure "
        "orthogonal_gap.png\n"
        "  measured      Target: FAVOR bidirectional forward <= 1.2x its four bare products [target]\n"
        "                speed: value 1.1 (target 1.2)\n");
  const std::string summary = fl::ledger_summary(ledger, 25);
  CHECK(summary ==
        "favorlab: 5 claims from 8 checks in 3 result files: 2 hold, 1 violated, 1 inconclusive, 1 measured\n"
        "found false as printed: 1:\n"
        "  Performers, Theorem 2: " + std::string(kT2) + "\n"
        "still open: 1 claims (each with what would settle it in the ledger)\n");
  fs::remove_all(dir);
}

TEST_CASE("[ledger] the summary stays within its lines however many claims are found false", "[ledger]") {
  const fs::path dir = scratch_dir("ledger-many");
  Json checks = Json::array();
  for (int i = 0; i < 40; ++i)
    checks.push_back(judged("Theorem 1: inf SMREG/SM >= 1 - 2/d + o(1/d) when ||A||_inf <= C, case " +
                                std::to_string(i),
                            "C=" + std::to_string(i), "violated", 0, 1, 0, 0.5));
  write_result(dir, "smreg", checks);
  const fl::Ledger ledger = fl::read_ledger(dir);
  CHECK(ledger.count(fl::Verdict::violated) == 40);
  for (std::size_t lines : {25u, 10u, 4u}) {
    const std::string summary = fl::ledger_summary(ledger, lines);
    INFO(summary);
    CHECK(fl::testing::line_count(summary) <= lines);
    CHECK(summary.find("still open: 0 claims") != std::string::npos);
  }
  CHECK(fl::ledger_summary(ledger, 25).find("... and 20 more") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("[ledger] bad or foreign files are refused with one line naming the file", "[ledger]") {
  const fs::path dir = scratch_dir("ledger-bad");
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("no result files"));
  std::ofstream(dir / "a.json") << "{\"schema\": \"something/else\"}";
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("a.json: not a favorlab result file"));
  std::ofstream(dir / "a.json") << "{not json";
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("a.json: not JSON"));
  // A status the point counts contradict: the ledger re-derives verdicts, it does not take them on the file's word.
  write_result(dir, "a", Json::array({judged(kL2, "iid", "holds", 10, 1, 0, 0.1)}));
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("disagrees with its own point counts"));
  // Counts whose sum would overflow int64 (each below 2^63, the sum not): not counts of any run.
  Json huge = judged(kL2, "iid", "holds", 1, 0, 0, 0.1);
  huge["points_held"] = std::int64_t{4611686018427387904};
  huge["points_inconclusive"] = std::int64_t{4611686018427387904};
  huge["points_total"] = std::numeric_limits<std::int64_t>::min();  // what the wrapped sum would give
  huge["status"] = "inconclusive";
  write_result(dir, "a", Json::array({huge}));
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("is not a count"));
  huge["points_total"] = std::uint64_t{9223372036854775808u};
  write_result(dir, "a", Json::array({huge}));
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("is not a count"));
  // A claim neither the table nor the file attributes.
  write_result(dir, "a", Json::array({judged("Something else entirely", "x", "holds", 1, 0, 0, 0.1)}));
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("has no source"));
  // A result relabelled as another experiment: its claims are the table's under their own experiment, never credited
  // to the one the file names. Power case: the same file under its own name is read.
  fs::remove(dir / "a.json");
  write_result(dir, "unbiased", Json::array({judged(kL2, "iid", "holds", 10, 0, 0, 0.1)}));
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("is one mse makes, not unbiased"));
  fs::remove(dir / "unbiased.json");
  write_result(dir, "mse", Json::array({judged(kL2, "iid", "holds", 10, 0, 0, 0.1)}));
  CHECK(fl::read_ledger(dir).claims.at(0).verdict == fl::Verdict::holds);
  fs::remove(dir / "mse.json");
  // A claim with a raw newline would break every form of the ledger: refused; a setting or label with one is shown
  // escaped, on one line.
  Json newline = judged("Something\nelse", "x", "holds", 1, 0, 0, 0.1);
  newline["source"] = "Somebody 2030";
  newline["kind"] = "paper";
  write_result(dir, "a", Json::array({newline}));
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("holds a control character"));
  newline["claim"] = "Something else";
  newline["where"] = "d=4\nd=8";
  write_result(dir, "a", Json::array({newline}));
  CHECK_THAT(fl::ledger_text(fl::read_ledger(dir)), Catch::Contains("d=4\\nd=8"));
  // ...which the file's own source and kind settle (a result of another favorlab version).
  Json foreign = judged("Something else entirely", "x", "holds", 1, 0, 0, 0.1);
  foreign["source"] = "Somebody 2030, Lemma 4";
  foreign["kind"] = "paper";
  write_result(dir, "a", Json::array({foreign}));
  CHECK(fl::read_ledger(dir).claims.at(0).source == "Somebody 2030, Lemma 4");

  const auto cwd = scratch_dir("ledger-cli");
  fl::testing::check_bad_input("claims " + dir.string() + "/missing", "not a directory", cwd, "x");
  fl::testing::check_bad_input("claims " + (kSource / "results").string() + " --format xml", "--format", cwd, "x");
  fl::testing::check_bad_input("claims " + (kSource / "results").string() + " --findings", "--findings", cwd, "x");
  fl::testing::check_bad_input("claims " + (kSource / "results").string() + " --out ''", "empty path", cwd, "x");
  // --out naming one of the result files read: refused, the file intact.
  const std::string before = read_text(dir / "a.json");
  fl::testing::check_bad_input("claims " + dir.string() + " --out " + (dir / "a.json").string(), "same file", cwd,
                               "x");
  CHECK(read_text(dir / "a.json") == before);
  std::ofstream(dir / "a.json") << "[1, 2]";
  fl::testing::check_bad_input("claims " + dir.string() + " --out x", "a.json: not a favorlab result file", cwd, "x");
  fs::remove_all(dir);
  fs::remove_all(cwd);
}

TEST_CASE("[ledger] params.quick must be a boolean, one result per experiment, and the ledger's own JSON is skipped",
          "[ledger]") {
  const fs::path dir = scratch_dir("ledger-one-each");
  const auto cwd = scratch_dir("ledger-one-each-cli");
  const Json checks = Json::array({judged(kL2, "iid", "holds", 10, 0, 0, 0.1)});
  // A mistyped run size is bad input, not an internal error.
  write_result(dir, "mse", checks);
  Json doc = Json::parse(read_text(dir / "mse.json"));
  doc["params"]["quick"] = "yes";
  std::ofstream(dir / "mse.json") << doc.dump();
  fl::testing::check_bad_input("claims " + dir.string(), "params.quick is not true or false", cwd, "x");
  // Two results of one experiment: their points would be counted twice; refused, both named.
  write_result(dir, "mse", checks);
  fs::copy_file(dir / "mse.json", dir / "mse-old.json");
  fl::testing::check_bad_input("claims " + dir.string(), "a second result of mse (the first is", cwd, "x");
  fs::remove(dir / "mse-old.json");
  // The ledger written as JSON into the directory it reads: the next read is the same ledger.
  const auto first = fl::testing::run_cli("claims " + dir.string() + " --format json --out " +
                                              (dir / "claims.json").string(), cwd);
  REQUIRE(first.status == 0);
  const auto again = fl::testing::run_cli("claims " + dir.string() + " --format json --out -", cwd);
  REQUIRE(again.status == 0);
  CHECK(Json::parse(again.out) == Json::parse(read_text(dir / "claims.json")));
  // A directory of nothing but a ledger has no results.
  fs::remove(dir / "mse.json");
  fl::testing::check_bad_input("claims " + dir.string(), "no result files", cwd, "x");
  fs::remove_all(dir);
  fs::remove_all(cwd);
}

TEST_CASE("[ledger] favorlab claims: text, Markdown and JSON of one ledger", "[ledger]") {
  const fs::path dir = planted_results();
  const auto cwd = scratch_dir("ledger-formats");
  const auto text = run_cli("claims " + dir.string(), cwd);
  CHECK(text.status == 0);
  CHECK(text.out.find("Found false as printed") != std::string::npos);
  const auto md = run_cli("claims " + dir.string() + " --format md --out claims.md", cwd);
  CHECK(md.status == 0);
  const std::string markdown = read_text(cwd / "claims.md");
  CHECK(markdown.find("## Found false as printed") != std::string::npos);
  CHECK(markdown.find("| **violated** | `" + std::string(kT2) + "` | paper |") != std::string::npos);
  const auto js = run_cli("claims " + dir.string() + " --format json", cwd);
  REQUIRE(js.status == 0);
  const Json j = Json::parse(js.out);
  CHECK(j.at("schema") == "favorlab.claims/1");
  CHECK(j.at("counts").at("violated") == 1);
  CHECK(j.at("claims").at(2).at("found_false_as_printed") == true);
  CHECK(j.at("claims").at(2).at("corrected_verdict") == "holds");
  fs::remove_all(dir);
  fs::remove_all(cwd);
}

TEST_CASE("[ledger] results/CLAIMS.md and the README's findings table are what favorlab claims prints", "[ledger]") {
  // Run from the repository root so that the paths printed are the committed ones ("results"). The ledger file is
  // the working tree's own (scripts/reproduce.sh rewrites both); the README quotes the committed results, so its
  // table is held to the ledger of results/ as committed at HEAD, whatever a local reproduction left in the tree.
  const auto md = run_cli("claims results --format md", kSource);
  REQUIRE(md.status == 0);
  CHECK(md.out == read_text(kSource / "results" / "CLAIMS.md"));
  const fs::path committed = fl::testing::committed_tree(kSource, "results", "ledger-committed");
  const auto findings = run_cli("claims results --format md --findings", committed);
  if (committed != kSource) fs::remove_all(committed);
  REQUIRE(findings.status == 0);
  const std::string readme = read_text(kSource / "README.md");
  const std::string begin = "<!-- findings:begin -->\n", end = "<!-- findings:end -->";
  const auto b = readme.find(begin), e = readme.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  CHECK(readme.substr(b + begin.size(), e - b - begin.size()) == findings.out);
  // A front page a newcomer reads in five minutes: at most 200 lines of at most 120 characters (code points).
  CHECK(fl::testing::line_count(readme) <= 200);
  std::istringstream lines(readme);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const auto code_points = std::count_if(line.begin(), line.end(), [](char ch) { return (ch & 0xC0) != 0x80; });
    INFO("README.md:" << number << ": " << line);
    CHECK(code_points <= 120);
  }
}

TEST_CASE("[ledger] a claim holds only where every experiment that judged it is settled by one of its own methods",
          "[ledger]") {
  // Lemma 2 (positive) confirmed throughout in mse, open in orthogonal under all three methods: open as a whole, with
  // orthogonal's methods named and mse's settlement stated (one method elsewhere does not settle orthogonal's points).
  const fs::path dir = scratch_dir("ledger-experiments");
  write_result(dir, "mse",
               Json::array({judged(kL2, "iid, d=16", "inconclusive", 8, 0, 200, 0.02, "x", 1'000'000),
                            judged(std::string(kL2) + ", importance-sampled", "iid, d=16", "holds", 208, 0, 0, 0.016,
                                   "y")}));
  const Json orthogonal_open = Json::array(
      {judged(kL2, "iid, d=4", "inconclusive", 15, 0, 120, 0.05, "a", 30'000),
       judged(std::string(kL2) + ", importance-sampled", "d=4", "inconclusive", 7, 0, 128, 0.04, "b", 40'000),
       judged(std::string(kL2) + ", plain or importance-sampled", "d=4", "inconclusive", 15, 0, 120, 0.04, "c",
              20'000, "", kExact)});
  write_result(dir, "orthogonal", orthogonal_open);
  fl::Ledger ledger = fl::read_ledger(dir);
  REQUIRE(ledger.claims.size() == 1);
  const fl::LedgerClaim& open = ledger.claims[0];
  CHECK(open.verdict == fl::Verdict::inconclusive);
  CHECK(open.settled_in == std::vector<std::string>{"mse"});
  CHECK(open.methods[open.deciding].experiment == "orthogonal");
  const std::string text = fl::ledger_text(ledger);
  CHECK_THAT(text, Catch::Contains("Still open\n  Performers, Lemma 2: " + std::string(kL2) + "\n"
                                   "      orthogonal: about 3e+04 trials per point would settle it\n"
                                   "      orthogonal, importance-sampled: about 4e+04 trials per point would settle it\n"
                                   "      orthogonal, plain or importance-sampled: about 2e+04 trials per point would "
                                   "settle it\n"
                                   "      every point confirmed in mse (the claim holds there only)\n"));
  CHECK_THAT(text, !Catch::Contains("      mse: about"));  // mse is settled: its open plain method is not asked for

  // Power case: orthogonal's points each settled by one method (its combined line holds): the claim holds, and its
  // power is the weaker of the two experiments' deciding methods'.
  Json orthogonal_settled = orthogonal_open;
  orthogonal_settled[2] = judged(std::string(kL2) + ", plain or importance-sampled", "d=4", "holds", 135, 0, 0, 0.03,
                                 "c", 0, "", kExact);
  write_result(dir, "orthogonal", orthogonal_settled);
  ledger = fl::read_ledger(dir);
  const fl::LedgerClaim& held = ledger.claims[0];
  CHECK(held.verdict == fl::Verdict::holds);
  CHECK(held.settled_in == std::vector<std::string>{"mse", "orthogonal"});
  CHECK(held.methods[held.deciding].label() == "orthogonal, plain or importance-sampled");
  CHECK(held.methods[held.deciding].power == 0.03);
  fs::remove_all(dir);
}

TEST_CASE("[ledger] the false-verdict rate is bounded by the sum of the sampled checks' family alpha", "[ledger]") {
  // Two sampled checks of Lemma 2 at alpha 1e-3 each (plain, importance-sampled) and their combined line (no critical
  // value: its false verdicts are theirs) in mse; two sampled checks at 1e-2 in orthogonal; Theorem 2's exact values
  // (no sampling) beside one sampled Monte Carlo check.
  const fs::path dir = scratch_dir("ledger-alpha");
  const Json mse = Json::array({judged(kL2, "d=16", "inconclusive", 8, 0, 200, 0.02, "x", 1000),
                                judged(kL2, "d=64", "inconclusive", 8, 0, 200, 0.02, "x", 1000),
                                judged(std::string(kL2) + ", importance-sampled", "d=16", "holds", 208, 0, 0, 0.016,
                                       "y"),
                                judged(std::string(kL2) + ", plain or importance-sampled", "d=16", "holds", 208, 0, 0,
                                       0.016, "y", 0, "", kExact)});
  write_result(dir, "mse", mse);
  write_result(dir, "orthogonal",
               Json::array({judged(kL2, "d=4", "holds", 15, 0, 0, 0.05, "a"),
                            judged(kL2, "d=8", "holds", 15, 0, 0, 0.05, "a"),
                            judged(std::string(kT2) + ", exact values", "d=4", "violated", 3, 2, 0, 0.1, "", 0, "",
                                   kExact),
                            judged(std::string(kT2) + ", Monte Carlo", "d=4", "inconclusive", 1, 0, 4, 0.05, "m", 5000)}),
               true, 1e-2);
  fl::Ledger ledger = fl::read_ledger(dir);
  REQUIRE(ledger.claims.size() == 2);
  const fl::LedgerClaim& lemma2 = ledger.claims[0];
  CHECK(lemma2.sampled_checks() == 5);  // mse: 2 plain + 1 importance-sampled; orthogonal: 2 (not 3 methods)
  CHECK(lemma2.false_verdict_bound() == Approx(3e-3 + 2e-2).epsilon(1e-12));
  const fl::LedgerClaim& theorem2 = ledger.claims[1];
  CHECK(theorem2.sampled_checks() == 1);
  CHECK(theorem2.false_verdict_bound() == Approx(1e-2).epsilon(1e-12));
  const std::string text = fl::ledger_text(ledger);
  CHECK_THAT(text, Catch::Contains("false-verdict rate <= 0.023 (5 sampled checks)"));
  CHECK_THAT(text, Catch::Contains("false-verdict rate <= 0.01 (1 sampled check)"));
  const Json j = Json::parse(fl::ledger_json(ledger));
  CHECK(j.at("claims").at(0).at("false_verdict_bound").get<double>() == Approx(0.023));
  CHECK(j.at("claims").at(0).at("sampled_checks") == 5);
  CHECK_THAT(fl::ledger_markdown(ledger), Catch::Contains("| <= 0.023 (5 sampled checks) |"));

  // A file that states no alpha: the bound is unknown, never 0; only exact checks: no sampled check, none needed.
  write_result(dir, "mse", mse, true, kExact);
  write_result(dir, "orthogonal",
               Json::array({judged(std::string(kT2) + ", exact values", "d=4", "violated", 3, 2, 0, 0.1, "", 0, "",
                                   kExact)}),
               true, kExact);
  ledger = fl::read_ledger(dir);
  CHECK(std::isnan(ledger.claims[0].false_verdict_bound()));
  CHECK(ledger.claims[1].sampled_checks() == 0);
  CHECK_THAT(fl::ledger_text(ledger), Catch::Contains("false-verdict rate unknown (3 sampled checks; a result file "
                                                      "states no alpha)") &&
                                          Catch::Contains("false-verdict rate n/a: exact checks only"));
  fs::remove_all(dir);
}

TEST_CASE("[ledger] reasons are the check's own: no trial count is claimed out of reach on the ledger's word",
          "[ledger]") {
  const fs::path dir = scratch_dir("ledger-reasons");
  Json tails = judged("Theorem 3: P[SMREG+_m > a] <= exp(-m L_X(a))", "d=16", "inconclusive", 107, 0, 13, 1.0, "p");
  tails["trials_needed"] = nullptr;
  tails["out_of_reach"] = "an open point's frequency sits on the bound";
  // All its judged points exact to rounding: the check says so ("at every judged point"), the ledger too.
  const Json rounding = judged("Lemma 1: E[trig estimate] = SM", "d=16", "holds", 4, 0, 0, 1e-12, "q", 0,
                               "4 points hold; power: a theory off by 1e-10 % would have been caught at every judged "
                               "point (weakest at q)");
  const Json sampled = judged("Lemma 1: E[positive estimate] = SM", "d=16", "holds", 4, 0, 0, 0.02, "q", 0,
                              "4 points hold; power: a theory off by 2 % would have been caught at every sampled "
                              "point (weakest at q)");
  // Closed forms evaluated, nothing sampled: the "power" a check states is its rounding allowance, not a percentage.
  const Json closed = judged("Theorem 2 corrected (positive): MSE(ort) <= MSE(iid) - (1-1/m) 2/(d+2) (SM - Lambda)^2",
                             "d=4", "holds", 27, 0, 0, 1e-12, "r", 0,
                             "27 points hold, 0 violated, exact values (no sampling, rounding allowance 1e-12 K^2)",
                             kExact);
  write_result(dir, "tails", Json::array({tails}));
  write_result(dir, "unbiased", Json::array({rounding, sampled}));
  write_result(dir, "orthogonal", Json::array({closed}));
  const fl::Ledger ledger = fl::read_ledger(dir);
  const std::string text = fl::ledger_text(ledger);
  CHECK_THAT(text, !Catch::Contains("out of reach at any trial count"));
  CHECK_THAT(text, Catch::Contains("tails: the check names no trial count that would settle it (the check: an open "
                                   "point's frequency sits on the bound)"));
  CHECK_THAT(text, Catch::Contains("power rounding only (every judged point exact to rounding)"));
  CHECK_THAT(text, Catch::Contains("power 2 %"));  // power case: a sampled power is a percentage
  CHECK_THAT(text, !Catch::Contains("power 1e-10 %"));
  std::size_t rounding_lines = 0;
  for (std::size_t at = 0; (at = text.find("power rounding only", at)) != std::string::npos; ++at) ++rounding_lines;
  CHECK(rounding_lines == 2);  // the all-rounding Lemma 1 line and the closed forms of Theorem 2 corrected
  fs::remove_all(dir);
}

TEST_CASE("[ledger] an identity is its own line: it never decides a claim about a law, its power is rounding's, and "
          "it is counted apart",
          "[ledger]") {
  // The same words under the same source: a sampled line open, and an identity line checked to rounding that holds.
  const fs::path dir = scratch_dir("ledger-identity");
  Json law = judged("Law X: E[estimate] = SM", "rows", "inconclusive", 13, 0, 115, 0.05, "p", 20'000);
  law["source"] = "Performers, Lemma 1";
  law["kind"] = "control";
  Json identity = judged("Law X: E[estimate] = SM", "rows, zero-variance proposal", "holds", 128, 0, 0, 1e-12, "q");
  identity["source"] = "Performers, Lemma 1";
  identity["kind"] = "identity";
  write_result(dir, "structured", Json::array({law}));
  write_result(dir, "unbiased", Json::array({identity}));
  const fl::Ledger ledger = fl::read_ledger(dir);
  REQUIRE(ledger.claims.size() == 2);
  const fl::LedgerClaim& control = ledger.claims[0].identity() ? ledger.claims[1] : ledger.claims[0];
  CHECK(control.verdict == fl::Verdict::inconclusive);  // the identity did not make the control hold
  CHECK(control.methods.size() == 1);
  CHECK(ledger.count(fl::Verdict::inconclusive) == 1);
  CHECK(ledger.count(fl::Verdict::holds) == 0);
  CHECK(ledger.identities(fl::Verdict::holds) == 1);
  const std::string text = fl::ledger_text(ledger);
  CHECK_THAT(text, Catch::Contains("1 claims from 2 checks in 2 result files: 0 hold, 0 violated, 1 inconclusive, 0 "
                                   "measured; and 1 identities checked to rounding (1 hold, 0 violated, 0 "
                                   "inconclusive)"));
  CHECK_THAT(text, Catch::Contains("power identity (rounding)"));
  const std::string findings = fl::ledger_findings_markdown(ledger);
  CHECK_THAT(findings, Catch::Contains("| favorlab's own statements | 0 | 0 | 1 | 0 |\n"
                                       "| identities checked to rounding | 1 | 0 | 0 | 0 |\n"));
  const Json j = Json::parse(fl::ledger_json(ledger));
  CHECK(j.at("counts").at("holds") == 0);
  CHECK(j.at("identities").at("holds") == 1);
  fs::remove_all(dir);
}

TEST_CASE("[ledger] found false as printed quotes the sentence, and a stronger reading found false is listed apart",
          "[ledger]") {
  const fs::path dir = scratch_dir("ledger-printed");
  constexpr const char* kOffsets = "PF: offsets below order(pi) give different sims (the random pi)";
  write_result(dir, "orthogonal",
               Json::array({judged(std::string(kT2) + ", exact values", "d=4", "violated", 3, 2, 0, 0.1,
                                   "m=4, cos=-1", 0, "", kExact)}));
  write_result(dir, "permute-properties",
               Json::array({judged(kOffsets, "relu features, 12 draws", "violated", 2, 1, 0, 0, "relu, draw 5", 0, "",
                                   kExact)}),
               true, kExact);
  const fl::Ledger ledger = fl::read_ledger(dir);
  REQUIRE(ledger.claims.size() == 2);
  const fl::LedgerClaim& offsets = ledger.claims[0].claim == kOffsets ? ledger.claims[0] : ledger.claims[1];
  CHECK(offsets.kind == fl::ClaimKind::derived);
  CHECK_FALSE(fl::found_false_as_printed(offsets));
  CHECK(fl::stronger_reading_found_false(offsets));
  const std::string text = fl::ledger_text(ledger);
  CHECK_THAT(text, Catch::Contains("Found false as printed\n  Performers, Theorem 2: " + std::string(kT2) + "\n"
                                   "      printed, Section 3, Theorem 2: \"If SM^ort+_m(x, y) stands for the "
                                   "modification of SM^+_m(x, y) with orthogonal random features"));
  CHECK_THAT(text, Catch::Contains("favorlab's stronger readings found false (the printed sentence itself is not "
                                   "refuted)\n  PermuteFormer, Section 3: " + std::string(kOffsets) + "\n"
                                   "      a reading of Section 3: \"PermuteFormer can encode relative positions up "
                                   "to the order of the permutation pi\"\n"
                                   "      counterexample [permute-properties]: relu, draw 5"));
  const std::string findings = fl::ledger_findings_markdown(ledger);
  // Per paper, only its own statements count: the reading is favorlab's.
  CHECK_THAT(findings, Catch::Contains("| Performers | 0 | 1 | 0 | 0 |\n| favorlab's own statements | 0 | 1 | 0 | 0 |"));
  CHECK_THAT(findings, !Catch::Contains("| PermuteFormer |"));
  CHECK_THAT(findings, Catch::Contains("favorlab's stronger readings found false"));
  CHECK_THAT(fl::ledger_markdown(ledger), Catch::Contains("## favorlab's stronger readings found false"));
  CHECK(fl::ledger_summary(ledger, 25) ==
        "favorlab: 2 claims from 2 checks in 2 result files: 0 hold, 2 violated, 0 inconclusive, 0 measured\n"
        "found false as printed: 1:\n"
        "  Performers, Theorem 2: " + std::string(kT2) + "\n"
        "favorlab's stronger readings found false: 1 (the printed sentences themselves are not refuted)\n"
        "still open: 0 claims (each with what would settle it in the ledger)\n");
  const Json j = Json::parse(fl::ledger_json(ledger));
  for (const Json& c : j.at("claims")) {
    CHECK(c.at("printed").is_string());
    CHECK(c.at("found_false_as_printed") == (c.at("claim") == kT2));
    CHECK(c.at("stronger_reading_found_false") == (c.at("claim") == kOffsets));
  }
  fs::remove_all(dir);
}

TEST_CASE("[ledger] every paper claim found false in the committed ledgers quotes its printed sentence", "[ledger]") {
  // The claims table's quotes: every row with a sentence names where it is printed, and every paper claim that the
  // committed quick or paper-sized results refute (and every reading of a sentence) has one to show.
  for (const fl::ClaimSource& row : fl::claim_sources()) {
    INFO(row.experiment << ": " << row.claim_prefix);
    CHECK(row.printed.empty() == row.printed_at.empty());
  }
  int refuted = 0;
  for (const char* dir : {"results", "results/full"}) {
    const fl::Ledger ledger = fl::read_ledger(kSource / dir);
    for (const fl::LedgerClaim& c : ledger.claims) {
      if (!fl::found_false_as_printed(c)) continue;
      INFO(dir << ": " << c.claim);
      CHECK_FALSE(c.printed.empty());
      ++refuted;
    }
  }
  CHECK(refuted > 0);
}

TEST_CASE("[ledger] one name across experiments: the claim keeps the figure drawn for it", "[ledger]") {
  // estimators' iid closed form is Lemma 2's: one line with mse's, whose figure the table names (estimators.json is
  // read first and its row names none: its experiment's first figure would stand in).
  const fs::path dir = scratch_dir("ledger-figure");
  write_result(dir, "estimators", Json::array({judged(kL2, "iid rows, d=4", "holds", 90, 0, 0, 0.03, "a")}));
  write_result(dir, "mse", Json::array({judged(kL2, "iid, d=16", "holds", 208, 0, 0, 0.02, "b")}));
  const fl::Ledger ledger = fl::read_ledger(dir);
  REQUIRE(ledger.claims.size() == 1);
  CHECK(ledger.claims[0].methods.size() == 2);
  CHECK(ledger.claims[0].figure == "mse.png");
  CHECK(ledger.claims[0].source == "Performers, Lemma 2");
  fs::remove_all(dir);
}

TEST_CASE("[ledger] a closed-forms line decides a claim only where the formulas it rests on hold in the same ledger",
          "[ledger]") {
  // "hyperbolic with m beats positive with 2m": the sampled lines leave 14 points open (where the margin e^{-|z|^2}
  // is below any Monte Carlo's resolution), the exact values of Lemma 2's closed forms hold everywhere. Those values
  // cannot see a sampler that departs from the formulas, so they decide only while both closed forms are confirmed.
  constexpr const char* kBeats = "Lemma 2: hyperbolic with m beats positive with 2m";
  constexpr const char* kL2h = "Lemma 2: MSE(hyperbolic) closed form";
  const std::string exact_detail = "208 points hold, 0 violated, " + std::string(fl::kClosedFormsPhrase) +
                                   ", rounding allowance 1e-12 K^2)";
  const auto mse_checks = [&](const std::string& positive_status, int positive_open) {
    return Json::array(
        {judged(kL2, "iid, d=16", positive_status, 416 - positive_open, 0, positive_open, 0.01, "x", 1'000'000),
         judged(kL2h, "iid, d=16", "holds", 208, 0, 0, 0.01, "x"),
         judged(std::string(kBeats) + ", importance-sampled", "iid, d=16", "inconclusive", 194, 0, 14, 0.02, "z",
                100'000'000),
         judged(std::string(kBeats) + ", exact values", "iid, m=16 vs 2m=32", "holds", 208, 0, 0, 1e-12, "", 0,
                exact_detail, kExact)});
  };
  const fs::path dir = scratch_dir("ledger-rests-on");
  write_result(dir, "mse", mse_checks("inconclusive", 30));
  fl::Ledger ledger = fl::read_ledger(dir);
  const auto find = [&ledger](const std::string& name) -> const fl::LedgerClaim& {
    for (const fl::LedgerClaim& c : ledger.claims)
      if (c.claim == name) return c;
    FAIL("no claim " << name);
    return ledger.claims.front();
  };
  const fl::LedgerClaim& open = find(kBeats);
  CHECK(open.verdict == fl::Verdict::inconclusive);
  CHECK(open.rests_on == std::vector<std::string>{kL2, kL2h});
  CHECK(open.rests_on_unconfirmed == "`" + std::string(kL2) + "` is inconclusive here");
  CHECK(open.methods[open.deciding].method == "importance-sampled");
  CHECK_THAT(fl::ledger_text(ledger),
             Catch::Contains("its exact values rest on `" + std::string(kL2) + "`, `" + kL2h + "` and are set aside: `" +
                             kL2 + "` is inconclusive here (confirming those settles"));
  const Json j = Json::parse(fl::ledger_json(ledger));
  bool seen = false;
  for (const Json& c : j.at("claims"))
    if (c.at("claim") == kBeats) {
      seen = true;
      CHECK(c.at("verdict") == "inconclusive");
      CHECK(c.at("rests_on").size() == 2);
      CHECK(c.at("rests_on_unconfirmed").is_string());
    }
  CHECK(seen);

  // Power case: with both closed forms confirmed, the same exact values settle the claim.
  write_result(dir, "mse", mse_checks("holds", 0));
  ledger = fl::read_ledger(dir);
  const fl::LedgerClaim& held = find(kBeats);
  CHECK(held.verdict == fl::Verdict::holds);
  CHECK(held.rests_on_unconfirmed.empty());
  CHECK(held.methods[held.deciding].method == "exact values");
  CHECK(held.methods[held.deciding].closed_forms());
  CHECK_THAT(fl::ledger_text(ledger), Catch::Contains("which hold here"));
  // Its power is what the exact values can see of a wrong sampler: the closed forms' sampled power (0.01 each here),
  // not the rounding allowance of the arithmetic.
  CHECK(held.rests_on_power == 0.01);
  // ...and a false verdict of either closed form could make it hold falsely: their α (1e-3 each) add to its own.
  CHECK(held.false_verdict_bound() == Approx(3e-3));
  CHECK(held.sampled_checks() == 3);
  CHECK_THAT(fl::ledger_text(ledger), Catch::Contains("power 1 % (through the sampled claims"));

  // Closed forms absent from the results: nothing confirms them, and the exact values alone decide nothing.
  write_result(dir, "mse", Json::array({mse_checks("holds", 0)[3]}));
  ledger = fl::read_ledger(dir);
  REQUIRE(ledger.claims.size() == 1);
  CHECK(ledger.claims[0].verdict == fl::Verdict::inconclusive);
  CHECK_THAT(ledger.claims[0].rests_on_unconfirmed, Catch::Contains("is not in these results"));
  fs::remove_all(dir);
}
