// attention-report's closing recommendation (attention_recommendation.hpp) on planted head errors whose answer is
// known: the smallest m reaching the target, the fraction of heads, the extrapolated m of an exact power law and its
// interval under noise, the rank floor's fraction and median rank, the best arm; the capture manifest
// (capture_manifest.hpp): fields, refusals, and the report end to end with a manifest (mode, model line, scale).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "evaluation/attention_recommendation.hpp"
#include "evaluation/capture_manifest.hpp"
#include "io/npy.hpp"

using namespace favorlab;
using namespace favorlab::testing;
namespace fs = std::filesystem;

namespace {

// Ten heads; head h's error under arm a at m is base_h · (16/m)^power[a], base_h = 0.2 + 0.1 h (median 0.65), its
// three draws spread ×0.9, ×1, ×1.1 around it (so the median draw is the planted value).
std::vector<ReportedHead> planted_heads(const ReportSettings& s, const std::vector<double>& power, double noise = 0,
                                        std::uint64_t seed = 1) {
  std::vector<ReportedHead> heads;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> arm_noise(s.ms.size() * power.size());
  for (double& x : arm_noise) x = std::exp(noise * normal(rng));  // one factor per arm and m: the median moves too
  for (int h = 0; h < 10; ++h) {
    ReportedHead head{"layer0", 0, h, {}};
    head.report.points.resize(s.arms.size());
    for (std::size_t a = 0; a < s.arms.size(); ++a)
      for (std::size_t mi = 0; mi < s.ms.size(); ++mi) {
        const double e = (0.2 + 0.1 * h) * std::pow(16.0 / s.ms[mi], power[a]) * arm_noise[a * s.ms.size() + mi];
        ArmPoint p;
        p.relative = {0.9 * e, e, 1.1 * e};
        head.report.points[a].push_back(p);
      }
    heads.push_back(std::move(head));
  }
  return heads;
}

ReportSettings two_arms(std::vector<int> ms) {
  ReportSettings s;
  s.arms = {{Family::positive, Coupling::orthogonal, false}, {Family::trig, Coupling::orthogonal, false}};
  s.ms = std::move(ms);
  s.draws = 3;
  return s;
}

}  // namespace

TEST_CASE("recommendation: the planted power laws give the known m, fractions and extrapolation", "[report]") {
  const ReportSettings s = two_arms({16, 64, 256});
  const auto heads = planted_heads(s, {1.0, 0.5});

  SECTION("target 0.1: the 1/m arm reaches it at m = 256 on every head, the 1/sqrt(m) arm extrapolates to 676") {
    const Recommendation r = recommend(heads, s, 0.1);
    REQUIRE(r.arms.size() == 2);
    const ArmRecommendation &fast = r.arms[0], &slow = r.arms[1];
    CHECK(fast.median_by_m[0] == Approx(0.65));
    CHECK(fast.median_by_m[2] == Approx(0.65 / 16));
    CHECK(fast.m_reaching == 256);
    CHECK(fast.fraction_at_max_m == 1.0);
    CHECK(fast.slope == Approx(-1.0));
    CHECK(slow.m_reaching == 0);
    int slow_reaching = 0;  // base_h / 4 at m = 256
    for (int h = 0; h < 10; ++h) slow_reaching += (0.2 + 0.1 * h) * std::pow(16.0 / 256, 0.5) <= 0.1;
    CHECK(slow_reaching >= 2);
    CHECK(slow.fraction_at_max_m == Approx(slow_reaching / 10.0));
    CHECK(slow.slope == Approx(-0.5));
    // 0.1625 at m = 256 falling as m^-1/2: 0.1 at 256 · 1.625² = 676.
    CHECK(slow.needed_m == Approx(676.0).epsilon(1e-9));
    CHECK(slow.extrapolated);
    CHECK(slow.needed_m_low == Approx(676.0).epsilon(1e-6));  // an exact law: no residual, no spread
    CHECK(r.best == 0);
    CHECK(r.reached);
    CHECK(r.paragraph.find("positive/orthogonal reaches it on the median head at m = 256") != std::string::npos);
    CHECK(r.paragraph.find("100 % of heads reach it at m = 256") != std::string::npos);
    CHECK(r.paragraph.find("Also reaching it") == std::string::npos);
    CHECK(!r.floor.measured);
  }
  SECTION("target 0.05: 7 of 10 heads reach it at the largest m") {
    const Recommendation r = recommend(heads, s, 0.05);
    CHECK(r.arms[0].m_reaching == 256);
    CHECK(r.arms[0].fraction_at_max_m == Approx(0.7));  // bases 0.2..0.8: base/16 ≤ 0.05
    CHECK(r.paragraph.find("70 % of heads") != std::string::npos);
  }
  SECTION("target 0.01: no arm reaches it; the closest one and its extrapolation, marked as such") {
    const Recommendation r = recommend(heads, s, 0.01);
    CHECK(!r.reached);
    CHECK(r.best == 0);
    CHECK(r.arms[0].needed_m == Approx(256 * 4.0625));  // 0.040625 at 256 falling as 1/m
    CHECK(r.paragraph.find("no arm reaches 0.01 on the median head at m <= 256; positive/orthogonal comes closest "
                           "(median 0.041 at m = 256") != std::string::npos);
    CHECK(r.paragraph.find("extrapolated m ~ 1040") != std::string::npos);
    CHECK(r.paragraph.find("an extrapolation") != std::string::npos);
  }
  SECTION("a target every arm meets at the smallest m: the lower error wins the tie") {
    const Recommendation r = recommend(heads, s, 2.0);
    CHECK(r.arms[0].m_reaching == 16);
    CHECK(r.arms[1].m_reaching == 16);
    CHECK(r.best == 0);  // equal at m = 16 (0.65 both): the first; now make arm 1 lower there
    auto lower = heads;
    for (auto& h : lower)
      for (double& e : h.report.points[1][0].relative) e /= 2;
    CHECK(recommend(lower, s, 2.0).best == 1);
    CHECK(recommend(lower, s, 2.0).paragraph.find("Also reaching it: positive/orthogonal at m = 16") !=
          std::string::npos);
  }
  SECTION("bad targets are refused") {
    CHECK_THROWS_AS(recommend(heads, s, 0.0), std::invalid_argument);
    CHECK_THROWS_AS(recommend(heads, s, -1.0), std::invalid_argument);
    CHECK_THROWS_AS(recommend(heads, s, NAN), std::invalid_argument);
  }
}

TEST_CASE("recommendation: the slope interval covers the true slope under noise and widens with it", "[report]") {
  const ReportSettings s = two_arms({16, 32, 64, 128, 256, 512, 1024});
  int covered = 0;
  const int runs = 200;
  for (int run = 0; run < runs; ++run) {
    const Recommendation r = recommend(planted_heads(s, {1.0, 0.5}, 0.1, 100 + run), s, 0.001);
    const ArmRecommendation& a = r.arms[0];
    REQUIRE(a.slope_low < a.slope);
    REQUIRE(a.slope < a.slope_high);
    REQUIRE(a.needed_m_low < a.needed_m);
    REQUIRE(a.needed_m < a.needed_m_high);
    covered += a.slope_low <= -1.0 && -1.0 <= a.slope_high;
  }
  // 95 % intervals: 190 of 200 expected; below 178 has probability < 1e-3 (binomial).
  CHECK(covered >= 178);
  const Recommendation quiet = recommend(planted_heads(s, {1.0, 0.5}, 0.01, 7), s, 0.001);
  const Recommendation loud = recommend(planted_heads(s, {1.0, 0.5}, 0.3, 7), s, 0.001);
  CHECK(quiet.arms[0].slope_high - quiet.arms[0].slope_low < loud.arms[0].slope_high - loud.arms[0].slope_low);
}

TEST_CASE("recommendation: an error that does not fall predicts no m", "[report]") {
  const ReportSettings s = two_arms({16, 64, 256});
  const Recommendation r = recommend(planted_heads(s, {0.0, -0.2}), s, 0.1);
  CHECK(std::isinf(r.arms[0].needed_m));
  CHECK(std::isinf(r.arms[1].needed_m));
  CHECK(r.best == 0);  // flat 0.65 beats a rising error
  CHECK(r.paragraph.find("does not fall with m") != std::string::npos);
  const Json j = recommendation_json(r, s);
  CHECK(j["arms"][0]["needed_m"] == "inf");
  CHECK(j["paragraph"] == r.paragraph);
  CHECK(j["best_arm"] == "positive/orthogonal");
  CHECK(j["arms"][0]["m_reaching_target"].is_null());
}

TEST_CASE("recommendation: the rank floor's fraction of heads and median rank", "[report]") {
  ReportSettings s = two_arms({1, 2});
  auto heads = planted_heads(s, {1.0, 1.0});
  // Head h: (|A - A_r| / |A - U|)² = (h+1)/10 · 2^-r, so it needs rank ceil(log2(h+1)): 0,1,2,2,3,3,3,3,4,4.
  for (int h = 0; h < 10; ++h) {
    HeadReport& rep = heads[h].report;
    rep.matrix = true;
    rep.uniform_matrix_error = 2.0;
    rep.matrix_norm = 3.0;
    for (int r = 0; r <= 8; ++r) rep.truncation.push_back(2.0 * std::sqrt((h + 1) / 10.0 * std::pow(0.5, r)));
  }
  const Recommendation r = recommend(heads, s, 0.1);
  REQUIRE(r.floor.measured);
  CHECK(r.floor.rank == 2);
  CHECK(r.floor.heads == 10);
  CHECK(r.floor.fraction == Approx(0.4));
  CHECK(r.floor.median_rank_needed == 3.0);
  CHECK(r.paragraph.find("A rank-2 matrix would reach 0.1 on 40 % of heads") != std::string::npos);
  CHECK(r.paragraph.find("the median head needs rank 3") != std::string::npos);
  // A rank beyond min(Lq, L) = 8 is named as 8, where every head reaches the target.
  const Recommendation wide = recommend(heads, two_arms({1, 64}), 0.1);
  CHECK(wide.floor.rank == 8);
  CHECK(wide.floor.fraction == 1.0);
  // A head without its matrix (L above --matrix-max-L) is not counted.
  heads[9].report.matrix = false;
  CHECK(recommend(heads, s, 0.1).floor.heads == 9);
}

TEST_CASE("approximate_m and wrap_paragraph", "[report]") {
  CHECK(approximate_m(676.0000001) == "676");
  CHECK(approximate_m(9999.4) == "9999");
  CHECK(approximate_m(21000) == "2.1e4");
  CHECK(approximate_m(200000) == "2e5");
  CHECK(approximate_m(99999) == "1e5");
  CHECK(approximate_m(INFINITY) == "inf");
  const std::string wrapped = wrap_paragraph("aaa bbb ccc ddd", 7);
  CHECK(wrapped == "aaa bbb\nccc ddd");
  CHECK(wrap_paragraph("averyveryverylongword x", 5) == "averyveryverylongword\nx");
}

namespace {

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

void write_layer(const fs::path& dir, const std::string& name, int H, int L, int d, double q_factor, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  for (const char* letter : {"q", "k", "v"}) {
    std::vector<double> values(static_cast<std::size_t>(H * L * d));
    for (double& v : values) v = normal(rng) * (letter[0] == 'q' ? q_factor : 1.0);
    write_npy(dir / (name + "_" + letter + ".npy"), {H, L, d}, values, NpyDtype::float64);
  }
}

}  // namespace

TEST_CASE("capture manifest: fields, scale factors, refusals", "[report]") {
  const auto dir = scratch_dir("capture-manifest");
  CHECK(!read_capture_manifest(dir).has_value());
  write_text(dir / "manifest.json",
             R"({"model": "tiny", "path": "/m/tiny", "causal": true, "scale": [0.25, 0.125], "L": 24, "heads": 4,
                 "kv_heads": 2, "kv_expanded": true, "scale_folded_into_q": false,
                 "layers": [{"name": "layer0", "scale": 0.25}, {"name": "layer1", "scale": 0.125}]})");
  const auto m = read_capture_manifest(dir);
  REQUIRE(m.has_value());
  CHECK(m->model == "tiny");
  CHECK(m->causal);
  CHECK(m->kv_expanded);
  CHECK(m->kv_heads == "2");
  CHECK(q_scale_factor(*m, "layer0", 16) == Approx(1.0));
  CHECK(q_scale_factor(*m, "layer1", 16) == Approx(0.5));
  CHECK(m->summary["model"] == "tiny");
  CaptureManifest folded = *m;
  folded.scale_folded_into_q = true;
  CHECK(q_scale_factor(folded, "layer1", 16) == 1.0);

  for (const std::string& bad : {std::string("{"), std::string("[1]"), std::string(R"({"causal": true, "scale": 1})"),
                                std::string(R"({"model": "x", "scale": 1})"),
                                std::string(R"({"model": "x", "causal": true})"),
                                std::string(R"({"model": "x", "causal": true, "scale": -1})"),
                                std::string(R"({"model": "x", "causal": 1, "scale": 1})"),
                                // Every entry of a scale list is a scale; kv_heads is a count or a list of counts, so
                                // nothing nested reaches the result (whose readers bound the depth).
                                std::string(R"({"model": "x", "causal": true, "scale": [1, -2]})"),
                                std::string(R"({"model": "x", "causal": true, "scale": [1, [2]]})"),
                                std::string(R"({"model": "x", "causal": true, "scale": 1, "kv_heads": [[2]]})"),
                                std::string(R"({"model": "x", "causal": true, "scale": 1, "kv_heads": 0})"),
                                // Beyond double, nested past any manifest, larger than one.
                                std::string(R"({"model": "x", "causal": true, "scale": 1e400})"),
                                R"({"model": "x", "causal": true, "scale": 1, "kv_heads": )" + std::string(100000, '[') +
                                    std::string(100000, ']') + "}",
                                R"({"model": "x", "causal": true, "scale": 1, "pad": ")" + std::string(2 << 20, 'x') +
                                    "\"}"}) {
    write_text(dir / "manifest.json", bad);
    try {
      read_capture_manifest(dir);
      FAIL("accepted " << bad);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      CHECK(what.rfind("--input-dir: ", 0) == 0);
      CHECK(what.find('\n') == std::string::npos);
    }
  }
  // Not a regular file: a FIFO is refused without blocking, a device without reading it; a dangling or looping link
  // is a manifest that cannot be read, not an absent one.
  const auto refused = [&](const char* what) {
    try {
      read_capture_manifest(dir);
      FAIL("accepted a manifest that is " << what);
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).rfind("--input-dir: ", 0) == 0);
    }
  };
  fs::remove(dir / "manifest.json");
  REQUIRE(::mkfifo((dir / "manifest.json").c_str(), 0600) == 0);
  refused("a FIFO");
  fs::remove(dir / "manifest.json");
  fs::create_symlink("/dev/zero", dir / "manifest.json");
  refused("/dev/zero");
  fs::remove(dir / "manifest.json");
  fs::create_symlink(dir / "nowhere.json", dir / "manifest.json");
  refused("a dangling link");
  fs::remove(dir / "manifest.json");
  fs::create_symlink(dir / "manifest.json", dir / "manifest.json");
  refused("a link to itself");
  fs::remove_all(dir);
}

TEST_CASE("attention-report with a capture manifest: model line, the model's mode, its scale, the recommendation",
          "[report][cli]") {
  const auto dir = scratch_dir("report-manifest");
  const int H = 2, L = 24, d = 8;
  // folded/: Q already carries the factor 2 (scale 2/√d folded in); raw/: the same Q without it, scale not folded.
  for (const char* sub : {"folded", "raw"}) fs::create_directories(dir / sub);
  write_layer(dir / "folded", "layer0", H, L, d, 2.0, 5);
  write_layer(dir / "raw", "layer0", H, L, d, 1.0, 5);
  const std::string common = R"("model": "tiny-decoder", "path": "/models/tiny-decoder", "causal": true, "L": 24,
                                 "heads": 2, "kv_heads": 1, "kv_expanded": true, "scale": 0.7071067811865476)";
  write_text(dir / "folded" / "manifest.json", "{" + common + R"(, "scale_folded_into_q": true})");
  write_text(dir / "raw" / "manifest.json", "{" + common + R"(, "scale_folded_into_q": false})");
  const std::string options = " --features positive,trig --m-values 8,16 --trials 3 --target 0.2";
  const auto run = [&](const std::string& sub, const std::string& extra = "") {
    const auto r = run_cli("attention-report --input-dir " + sub + options + extra + " --out " + sub + ".json", dir);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return std::make_pair(nlohmann::json::parse(read_text(dir / (sub + ".json"))), r.out);
  };
  const auto [folded, folded_text] = run("folded");
  const auto [raw, raw_text] = run("raw");
  // Causal arms only, as the manifest says.
  for (const auto& row : folded["rows"]) CHECK(row["mode"] == "causal");
  CHECK(folded["params"]["modes"] == nlohmann::json::array({"causal"}));
  CHECK(folded["params"]["model"]["model"] == "tiny-decoder");
  CHECK(folded_text.rfind("Model: tiny-decoder (/models/tiny-decoder)", 0) == 0);
  CHECK(folded_text.find("folded into Q by the capture") != std::string::npos);
  CHECK(raw_text.find("applied to Q here") != std::string::npos);
  // The scale applied on reading gives what the folded capture gives.
  REQUIRE(folded["rows"].size() == raw["rows"].size());
  for (std::size_t i = 0; i < folded["rows"].size(); ++i)
    CHECK(folded["rows"][i]["rel_error_median"].get<double>() ==
          Approx(raw["rows"][i]["rel_error_median"].get<double>()).epsilon(1e-9));
  // The recommendation: in the JSON and, wrapped, at the end of the terminal report.
  const auto& rec = folded["params"]["recommendation"];
  CHECK(rec["target"] == 0.2);
  CHECK(rec["arms"].size() == 2);
  const std::string paragraph = rec["paragraph"];
  CHECK(paragraph.rfind("Recommendation (target: relative output error <= 0.2)", 0) == 0);
  std::string unwrapped = folded_text.substr(folded_text.find("Recommendation ("));
  std::replace(unwrapped.begin(), unwrapped.end(), '\n', ' ');
  CHECK(unwrapped.find(paragraph) == 0);
  // An explicit --modes still wins over the manifest.
  const auto both = run("folded", " --modes bidirectional");
  for (const auto& row : both.first["rows"]) CHECK(row["mode"] == "bidirectional");
  // A bad --target: one line, exit 2, nothing written.
  const auto bad = run_cli("attention-report --input-dir folded --target 0 --out bad.json", dir);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--target") != std::string::npos);
  CHECK(!fs::exists(dir / "bad.json"));
  // A model name with a raw newline and a tab: escaped, so the model line stays one line.
  write_text(dir / "raw" / "manifest.json",
             R"({"model": "evil\nname\t2", "path": "/m/x", "causal": true, "scale": 0.7071067811865476})");
  const auto [evil, evil_text] = run("raw");
  CHECK(evil_text.rfind("Model: evil\\nname\\t2 (/m/x)", 0) == 0);
  CHECK(evil["params"]["model"]["model"] == "evil\nname\t2");  // the JSON keeps the name as written
  // A broken manifest: refused the same way.
  write_text(dir / "raw" / "manifest.json", "{");
  const auto broken = run_cli("attention-report --input-dir raw --out broken.json", dir);
  CHECK(broken.status == 2);
  CHECK(broken.err.find("manifest.json: not JSON") != std::string::npos);
  CHECK(!fs::exists(dir / "broken.json"));
  fs::remove_all(dir);
}

TEST_CASE("attention-report refuses a manifest that contradicts the arrays, before any work", "[report][cli]") {
  const auto dir = scratch_dir("report-manifest-contradicts");
  const int H = 2, L = 24, d = 8;
  write_layer(dir, "layer0", H, L, d, 1.0, 7);
  const std::string head = R"({"model": "tiny", "causal": false, "scale": 0.3535533905932738, )";
  const auto report = [&](const std::string& manifest_tail) {
    write_text(dir / "manifest.json", head + manifest_tail + "}");
    return run_cli("attention-report --input-dir . --features positive --m-values 8 --trials 3 --out r.json", dir);
  };
  // Agreeing figures (every one stated): accepted.
  const auto ok = report(R"("L": 24, "heads": 2, "layers": [{"name": "layer0", "heads": 2, "Lq": 24, "L": 24, "d": 8}])");
  INFO(ok.err);
  CHECK(ok.status == 0);
  fs::remove(dir / "r.json");
  // Each figure wrong in turn, then layers the directory lacks or the manifest lacks: one line, exit 2, nothing
  // written.
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"("layers": [{"name": "layer0", "heads": 3}])", "says layer layer0 has heads 3, its arrays have 2"},
      {R"("layers": [{"name": "layer0", "Lq": 12}])", "has queries (Lq) 12, its arrays have 24"},
      {R"("layers": [{"name": "layer0", "L": 48}])", "has keys (L) 48, its arrays have 24"},
      {R"("layers": [{"name": "layer0", "d": 64}])", "has dimension d 64, its arrays have 8"},
      {R"("L": 25)", "has keys (L) 25, its arrays have 24"},
      {R"("heads": 12)", "has heads 12, its arrays have 2"},
      {R"("layers": [{"name": "layer0"}, {"name": "layer1"}])", "lists layer layer1, but the directory has no"},
      {R"("layers": [{"name": "other"}])", "lists layer other"},
      {R"("layers": [{"name": "layer0"}, {"name": "layer0"}])", "layer layer0 is listed twice"},
      {R"("layers": {"name": "layer0"})", "\"layers\" must be a list"},
      {R"("layers": [{"name": "layer0", "heads": -2}])", "\"heads\" must be a positive integer"},
      {R"("L": 24, "layers": [{"name": "layer0", "L": 12}])", "\"L\" is 24 but its first layer's is 12"},
  };
  for (const auto& [tail, expected] : cases) {
    const auto r = report(tail);
    INFO(tail << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(expected) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!fs::exists(dir / "r.json"));
  }
  // A file the manifest does not list.
  write_layer(dir, "layer1", H, L, d, 1.0, 8);
  const auto extra = report(R"("layers": [{"name": "layer0"}])");
  CHECK(extra.status == 2);
  CHECK(extra.err.find("layer layer1 is not among the layers") != std::string::npos);
  fs::remove(dir / "layer1_q.npy");
  fs::remove(dir / "layer1_k.npy");
  fs::remove(dir / "layer1_v.npy");
  // An unfolded scale so large that Q overflows: the manifest's scale is named, not the file's values.
  const auto huge = report(R"("scale_folded_into_q": false, "layers": [{"name": "layer0", "scale": 1e308}])");
  CHECK(huge.status == 2);
  CHECK(huge.err.find("scale times sqrt(d)") != std::string::npos);
  CHECK(!fs::exists(dir / "r.json"));
  // A causal manifest over a layer with fewer queries than keys names the manifest as the cause.
  std::vector<double> q(static_cast<std::size_t>(H * 12 * d), 0.1);
  write_npy(dir / "layer0_q.npy", {H, 12, d}, q, NpyDtype::float64);
  write_text(dir / "manifest.json", R"({"model": "tiny", "causal": true, "scale": 0.3535533905932738})");
  const auto causal = run_cli("attention-report --input-dir . --features positive --m-values 8 --trials 3 --out r.json",
                              dir);
  CHECK(causal.status == 2);
  CHECK(causal.err.find("got 12 and 24") != std::string::npos);
  CHECK(causal.err.find("says the model is causal") != std::string::npos);
  fs::remove_all(dir);
}
