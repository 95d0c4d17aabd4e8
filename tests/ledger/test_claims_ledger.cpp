// The claims ledger (ledger/): every check attributed to its source, one line per claim however many methods judged
// it, "found false as printed" and "still open" drawn from the verdicts, and the committed CLAIMS.md and README table
// in step with the committed results.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
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

Json judged(const std::string& claim, const std::string& where, const std::string& status, int held, int violated,
            int inconclusive, double power, const std::string& worst = "", std::int64_t trials_needed = 0,
            const std::string& detail = "") {
  return Json{{"claim", claim},
              {"where", where},
              {"status", status},
              {"detail", detail},
              {"points_total", held + violated + inconclusive},
              {"points_held", held},
              {"points_violated", violated},
              {"points_inconclusive", inconclusive},
              {"worst", worst.empty() ? Json(nullptr) : Json{{"label", worst}, {"statistic", 1.0}, {"margin", 0.0}}},
              {"power", power},
              {"trials_needed", trials_needed}};
}

void write_result(const fs::path& dir, const std::string& experiment, const Json& checks, bool quick = true) {
  const Json doc{{"schema", "favorlab.result/1"},
                 {"experiment", experiment},
                 {"params", {{"quick", quick}}},
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
               Json::array({judged(std::string(kT2) + ", exact values", "d=4", "violated", 3, 2, 0, 0.1),
                            judged(std::string(kT2) + ", Monte Carlo", "d=4, both couplings", "inconclusive", 1, 0, 4,
                                   0.05, "m=4, cos=-1", 5000),
                            judged(std::string(kT2) + ", exact values", "d=16", "holds", 5, 0, 0, 0.1),
                            judged(std::string(kT2c) + ", exact values", "d=4", "holds", 5, 0, 0, 0.001)}));
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
        "      counterexample [orthogonal, exact values]: d=4\n"
        "      corrected: " + kT2c + ": holds\n"
        "\n"
        "Still open\n"
        "  Performers, Lemma 1: Lemma 1: E[positive estimate] = SM\n"
        "      mse, importance-sampled: out of reach at any trial count (4 heavy-tailed points are out of reach of a "
        "z test)\n"
        "\n"
        "Performers, Lemma 1\n"
        "  inconclusive  Lemma 1: E[positive estimate] = SM [paper]\n"
        "                mse, importance-sampled: 20/24 held, 0 violated, 4 inconclusive\n"
        "                power 2 %; worst: x_norm=1 (iid, d=16, IS); figure mse.png\n"
        "\n"
        "Performers, Lemma 2\n"
        "  holds         " + kL2 + " [paper]\n"
        "                mse: 71/208 held, 0 violated, 137 inconclusive; mse, importance-sampled: 208/208 held, 0 "
        "violated, 0 inconclusive\n"
        "                power 0.88 %; worst: x_norm=0.1 (iid, d=16, IS); figure mse.png\n"
        "\n"
        "Performers, Theorem 2\n"
        "  violated      " + kT2 + " [paper]\n"
        "                orthogonal, exact values: 8/10 held, 2 violated, 0 inconclusive; orthogonal, Monte Carlo: 1/5 "
        "held, 0 violated, 4 inconclusive\n"
        "                power 10 %; worst: d=4; figure orthogonal_gap.png\n"
        "\n"
        "favorlab\n"
        "  holds         " + kT2c + " [corrected]\n"
        "                orthogonal, exact values: 5/5 held, 0 violated, 0 inconclusive\n"
        "                power 0.1 %; worst: d=4; figure orthogonal_gap.png\n"
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
  // A claim neither the table nor the file attributes.
  write_result(dir, "a", Json::array({judged("Something else entirely", "x", "holds", 1, 0, 0, 0.1)}));
  CHECK_THROWS_WITH(fl::read_ledger(dir), Catch::Contains("has no source"));
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
  // Run from the repository root so that the paths printed are the committed ones ("results").
  const auto md = run_cli("claims results --format md", kSource);
  REQUIRE(md.status == 0);
  CHECK(md.out == read_text(kSource / "results" / "CLAIMS.md"));
  const auto findings = run_cli("claims results --format md --findings", kSource);
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
