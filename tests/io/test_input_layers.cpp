// Finding the per-layer Q, K, V .npy files for `favorlab attention-report` (io/input_layers.hpp): --inputs triples
// (order kept, layer names from the q file, repeated names made unique, every rejected list), --input-dir (the
// <layer><sep>q|k|v.npy rule, natural order, separators mixed across layers, unrelated files ignored, incomplete,
// ambiguous and non-file matches, empty, missing and non-directory DIR), symbolic links, and natural_less.
// Files are empty: only names and file types matter here. Each test works in its own fresh temporary directory.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "io/input_layers.hpp"

using namespace favorlab;
namespace fs = std::filesystem;
using Catch::Contains;
using Catch::StartsWith;

namespace {

// Expects std::invalid_argument whose one-line message starts with "OPTION: " (or "OPTION ") and contains `matcher`.
#define REQUIRE_LAYERS_ERROR(expr, option, matcher)                                 \
  do {                                                                              \
    REQUIRE_THROWS_AS(expr, std::invalid_argument);                                 \
    REQUIRE_THROWS_WITH(expr, StartsWith(option) && (matcher) && !Contains("\n"));  \
  } while (false)

// A fresh, uniquely named directory under the system temp directory, removed with everything in it when the guard
// goes out of scope (also when a REQUIRE fails and unwinds).
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    for (int attempt = 0; attempt < 100; ++attempt) {
      path_ = fs::temp_directory_path() /
              ("favorlab-test-input-layers-" + std::to_string(rd()) + "-" + std::to_string(rd()));
      if (fs::create_directory(path_)) return;  // false: the name was taken, try another
    }
    throw std::runtime_error("cannot create a fresh temporary directory");
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// Creates an empty file (and its parent directories) and returns its path.
fs::path touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p).close();
  REQUIRE(fs::is_regular_file(p));
  return p;
}

// The three files <layer><sep>q.npy, <layer><sep>k.npy, <layer><sep>v.npy in dir.
void touch_layer(const fs::path& dir, const std::string& layer, char sep = '_') {
  for (const char letter : {'q', 'k', 'v'}) touch(dir / (layer + sep + letter + ".npy"));
}

std::vector<std::string> names_of(const std::vector<LayerFiles>& layers) {
  std::vector<std::string> names;
  for (const LayerFiles& layer : layers) names.push_back(layer.name);
  return names;
}

// Paths as the list CLI11 hands over: each triple's files, flattened.
std::vector<std::string> strings_of(const std::vector<fs::path>& paths) {
  std::vector<std::string> out;
  for (const fs::path& p : paths) out.push_back(p.string());
  return out;
}

}  // namespace

TEST_CASE("input layers: triples keep their order and take names from the q file", "[input-layers]") {
  const TempDir tmp;
  std::vector<fs::path> paths;
  // Deliberately not in natural order: --inputs keeps the order given.
  for (const std::string& stem : std::vector<std::string>{"layer10", "layer2", "attn.", "blk-", "x", ""}) {
    paths.push_back(touch(tmp / (stem + (stem.empty() || stem.back() == '.' || stem.back() == '-' ? "" : "_") +
                                 "q.npy")));
    paths.push_back(touch(tmp / (stem + "k" + std::to_string(paths.size()) + ".npy")));
    paths.push_back(touch(tmp / (stem + "v" + std::to_string(paths.size()) + ".npy")));
  }
  paths.push_back(touch(tmp / "sub" / "queries.npy"));  // no q suffix: the stem as it is
  paths.push_back(touch(tmp / "sub" / "keys.npy"));
  paths.push_back(touch(tmp / "sub" / "values.npy"));
  paths.push_back(touch(tmp / "sub" / "_q.npy"));  // nothing left but the separator: positional name
  paths.push_back(touch(tmp / "sub" / "_k.npy"));
  paths.push_back(touch(tmp / "sub" / "_v.npy"));

  const auto layers = layers_from_triples(strings_of(paths), "--inputs");
  REQUIRE(layers.size() == 8);
  CHECK(names_of(layers) ==
        std::vector<std::string>{"layer10", "layer2", "attn", "blk", "x", "layer5", "queries", "layer7"});
  for (std::size_t l = 0; l < layers.size(); ++l) {
    CHECK(layers[l].q == paths[3 * l]);
    CHECK(layers[l].k == paths[3 * l + 1]);
    CHECK(layers[l].v == paths[3 * l + 2]);
  }

  // A bare "q" suffix counts too: "attnq.npy" -> "attn".
  const fs::path q = touch(tmp / "attnq.npy");
  CHECK(layers_from_triples(strings_of({q, q, q}), "--inputs").at(0).name == "attn");
}

TEST_CASE("input layers: repeated triple names get #2, #3 suffixes", "[input-layers]") {
  const TempDir tmp;
  const fs::path x1 = touch(tmp / "x_q.npy"), x2 = touch(tmp / "x.q.npy"), x3 = touch(tmp / "a" / "x-q.npy");
  const fs::path y = touch(tmp / "y_q.npy"), f = touch(tmp / "f.npy");

  SECTION("in order of appearance") {
    const auto layers = layers_from_triples(strings_of({x1, f, f, y, f, f, x2, f, f, x3, f, f}), "--inputs");
    CHECK(names_of(layers) == std::vector<std::string>{"x", "y", "x#2", "x#3"});
    CHECK(layers[2].q == x2);
    CHECK(layers[3].q == x3);
  }
  SECTION("the same file given twice") {
    CHECK(names_of(layers_from_triples(strings_of({y, f, f, y, f, f}), "--inputs")) ==
          std::vector<std::string>{"y", "y#2"});
  }
  SECTION("a suffixed name a layer already has is skipped") {
    const fs::path x_hash2 = touch(tmp / "x#2_q.npy");
    CHECK(names_of(layers_from_triples(strings_of({x1, f, f, x2, f, f, x_hash2, f, f}), "--inputs")) ==
          std::vector<std::string>{"x", "x#3", "x#2"});
  }
  SECTION("a positional name that collides with a file's name") {
    const fs::path bare = touch(tmp / "q.npy"), layer0 = touch(tmp / "layer0_q.npy");
    CHECK(names_of(layers_from_triples(strings_of({bare, f, f, layer0, f, f}), "--inputs")) ==
          std::vector<std::string>{"layer0", "layer0#2"});
  }
}

TEST_CASE("input layers: triple lists that are rejected", "[input-layers]") {
  const TempDir tmp;
  const std::string f = touch(tmp / "f.npy").string();

  SECTION("a count that is not a multiple of 3") {
    REQUIRE_LAYERS_ERROR(layers_from_triples({f, f, f, f}, "--inputs"), "--inputs",
                         Contains("--inputs takes Q,K,V triples: got 4 paths"));
    REQUIRE_LAYERS_ERROR(layers_from_triples({f}, "--inputs"), "--inputs", Contains("triples: got 1 path"));
    REQUIRE_LAYERS_ERROR(layers_from_triples({}, "--inputs"), "--inputs", Contains("triples: got 0 paths"));
  }
  SECTION("a missing file, named") {
    const std::string missing = (tmp / "nope_k.npy").string();
    REQUIRE_LAYERS_ERROR(layers_from_triples({f, missing, f}, "--inputs"), "--inputs: ",
                         Contains(missing) && Contains("no such file"));
  }
  SECTION("an empty path") {
    REQUIRE_LAYERS_ERROR(layers_from_triples({f, f, f, f, f, ""}, "--inputs"), "--inputs: ",
                         Contains("empty path") && Contains("v file of triple 2"));
  }
  SECTION("a directory instead of a file") {
    const std::string sub = (tmp / "sub").string();
    fs::create_directory(sub);
    REQUIRE_LAYERS_ERROR(layers_from_triples({sub, f, f}, "--inputs"), "--inputs: ",
                         Contains(sub) && Contains("is a directory"));
  }
  SECTION("more layers than the limit, refused before touching the filesystem") {
    const std::vector<std::string> many(3 * (kMaxInputLayers + 1), (tmp / "absent.npy").string());
    REQUIRE_LAYERS_ERROR(layers_from_triples(many, "--inputs"), "--inputs: ",
                         Contains("10001 layers") && Contains("at most 10000"));
  }
}

TEST_CASE("input layers: a directory of layers in natural order", "[input-layers]") {
  const TempDir tmp;
  const std::string seps = "_.-";
  for (int i = 0; i < 12; ++i)  // separators differ from layer to layer
    touch_layer(tmp.path(), "layer" + std::to_string(i), seps[static_cast<std::size_t>(i) % seps.size()]);
  // Unrelated entries are ignored.
  const std::vector<std::string> unrelated = {"README.txt", "layer0_w.npy", "layer0_q.txt", "layer0_Q.npy", "q.npy",
                                              "_q.npy", "layer0_q.npy.bak", "layer0q.npy", "notes.npy"};
  for (const std::string& other : unrelated) touch(tmp / other);
  touch_layer(tmp / "nested", "deep");  // subdirectories are not searched
  // Within a layer separators may differ too.
  touch(tmp / "mixed_q.npy");
  touch(tmp / "mixed.k.npy");
  touch(tmp / "mixed-v.npy");

  const auto layers = layers_from_directory(tmp.path(), "--input-dir");
  std::vector<std::string> expected;
  for (int i = 0; i < 12; ++i) expected.push_back("layer" + std::to_string(i));
  expected.push_back("mixed");
  REQUIRE(names_of(layers) == expected);
  CHECK(layers[3].q == tmp / "layer3_q.npy");
  CHECK(layers[4].k == tmp / "layer4.k.npy");
  CHECK(layers[5].v == tmp / "layer5-v.npy");
  CHECK(layers[12].q == tmp / "mixed_q.npy");
  CHECK(layers[12].k == tmp / "mixed.k.npy");
  CHECK(layers[12].v == tmp / "mixed-v.npy");
  const auto at = [&](const std::string& name) {
    return std::find(expected.begin(), expected.end(), name) - expected.begin();
  };
  CHECK(at("layer2") < at("layer10"));
}

TEST_CASE("input layers: directories that are rejected", "[input-layers]") {
  const TempDir tmp;
  const fs::path dir = tmp / "in";
  fs::create_directory(dir);

  SECTION("a layer missing k, named with the letter") {
    touch_layer(dir, "layer0");
    touch(dir / "layer3_q.npy");
    touch(dir / "layer3_v.npy");
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ",
                         Contains("layer \"layer3\"") && Contains("missing k ") && Contains("layer3_q.npy"));
  }
  SECTION("a layer missing two letters") {
    touch(dir / "lonely-k.npy");
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ",
                         Contains("\"lonely\"") && Contains("missing q, v"));
  }
  SECTION("one letter matched with two separators") {
    touch_layer(dir, "a");
    touch(dir / "a.q.npy");
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ",
                         Contains("ambiguous") && Contains((dir / "a_q.npy").string()) &&
                             Contains((dir / "a.q.npy").string()));
  }
  SECTION("a matched name that is a directory") {
    touch(dir / "b_q.npy");
    touch(dir / "b_v.npy");
    fs::create_directory(dir / "b_k.npy");
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ",
                         Contains((dir / "b_k.npy").string()) && Contains("is a directory"));
  }
  SECTION("an empty directory: the message states the naming rule") {
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ",
                         Contains("no files named <layer>_q.npy, <layer>_k.npy, <layer>_v.npy") &&
                             Contains("separator _ . or -") && Contains(dir.string()));
  }
  SECTION("only unrelated files") {
    touch(dir / "README.txt");
    touch(dir / "layer0_w.npy");
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ", Contains("no files named"));
  }
  SECTION("a directory that does not exist") {
    const fs::path missing = tmp / "absent";
    REQUIRE_LAYERS_ERROR(layers_from_directory(missing, "--input-dir"), "--input-dir: ",
                         Contains(missing.string()) && Contains("no such directory"));
  }
  SECTION("a file instead of a directory") {
    const fs::path file = touch(tmp / "layer0_q.npy");
    REQUIRE_LAYERS_ERROR(layers_from_directory(file, "--input-dir"), "--input-dir: ",
                         Contains(file.string()) && Contains("not a directory"));
  }
}

TEST_CASE("input layers: symbolic links are followed", "[input-layers]") {
  const TempDir tmp;
  const fs::path real = touch(tmp / "data" / "real.npy");
  const fs::path dir = tmp / "in";
  fs::create_directory(dir);
  touch(dir / "l_q.npy");
  touch(dir / "l_v.npy");
  std::error_code ec;
  fs::create_symlink(real, dir / "l_k.npy", ec);
  if (ec) {
    WARN("symbolic links unavailable here: " << ec.message());
    return;
  }

  SECTION("a link to a regular file is accepted") {
    const auto layers = layers_from_directory(dir, "--input-dir");
    REQUIRE(layers.size() == 1);
    CHECK(layers[0].k == dir / "l_k.npy");
    CHECK(layers_from_triples(strings_of({dir / "l_q.npy", dir / "l_k.npy", dir / "l_v.npy"}), "--inputs")
              .at(0)
              .name == "l");
  }
  SECTION("a link whose target is gone is rejected") {
    fs::remove(real);
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ",
                         Contains((dir / "l_k.npy").string()) && Contains("broken symbolic link"));
    REQUIRE_LAYERS_ERROR(layers_from_triples(strings_of({dir / "l_k.npy", real, real}), "--inputs"), "--inputs: ",
                         Contains("broken symbolic link"));
  }
  SECTION("a link to a directory is not a file") {
    fs::create_symlink(tmp / "data", dir / "l_w.npy");  // unrelated name: ignored
    fs::remove(dir / "l_v.npy");
    fs::create_symlink(tmp / "data", dir / "l_v.npy");
    REQUIRE_LAYERS_ERROR(layers_from_directory(dir, "--input-dir"), "--input-dir: ", Contains("is a directory"));
  }
}

TEST_CASE("input layers: natural_less", "[input-layers]") {
  CHECK(natural_less("layer2", "layer10"));
  CHECK_FALSE(natural_less("layer10", "layer2"));
  CHECK(natural_less("a", "b"));
  CHECK(natural_less("a", "a0"));
  CHECK(natural_less("", "a"));
  CHECK_FALSE(natural_less("abc", "abc"));
  CHECK_FALSE(natural_less("", ""));
  // Equal as numbers: plain string order breaks the tie, so the order is total.
  CHECK(natural_less("a01", "a1"));
  CHECK_FALSE(natural_less("a1", "a01"));
  CHECK(natural_less("layer2", "layer010"));
  CHECK(natural_less("layer010", "layer10"));
  // Digit runs longer than any integer type: compared without overflow.
  const std::string big = "x" + std::string(40, '9'), bigger = "x1" + std::string(40, '0');
  CHECK(natural_less(big, bigger));
  CHECK_FALSE(natural_less(bigger, big));
  CHECK(natural_less("x" + std::string(30, '0') + "5", "x6"));
  // A digit run sorts where its first digit would among other characters.
  CHECK(natural_less("a-1", "a1"));  // '-' < '0'
  CHECK(natural_less("a9", "a_"));   // '9' < '_'
  CHECK(natural_less("a1b", "a12"));  // 1 < 12

  std::vector<std::string> names = {"l10", "l2", "l1", "l02", "l", "l1a", "m0", "l20b3", "l20b10"};
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  CHECK(names == std::vector<std::string>{"l", "l1", "l1a", "l02", "l2", "l10", "l20b3", "l20b10", "m0"});
}

TEST_CASE("input layers: a name with a control character is one line in every report", "[input-layers]") {
  const TempDir tmp;
  touch_layer(tmp.path(), "bad\nname");
  touch_layer(tmp.path(), "bad\\nname");  // already prints as the escaped form: made unique
  const auto layers = layers_from_directory(tmp.path(), "--input-dir");
  REQUIRE(layers.size() == 2);
  for (const auto& layer : layers) CHECK(layer.name.find('\n') == std::string::npos);
  CHECK(layers[0].name != layers[1].name);
  const std::string paths = layers[0].q.string() + layers[1].q.string();
  CHECK(std::count(paths.begin(), paths.end(), '\n') == 1);  // the paths stay the files' own
  const TempDir triples;
  touch_layer(triples.path(), "x\ty");
  const auto named = layers_from_triples({(triples / "x\ty_q.npy").string(), (triples / "x\ty_k.npy").string(),
                                          (triples / "x\ty_v.npy").string()},
                                         "--inputs");
  CHECK(named.at(0).name == "x\\ty");
}
