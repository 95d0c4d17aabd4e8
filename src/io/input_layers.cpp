#include "io/input_layers.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>
#include <system_error>

#include "io/input_file.hpp"

namespace favorlab {

namespace fs = std::filesystem;

namespace {

constexpr std::array<char, 3> kLetters = {'q', 'k', 'v'};

[[noreturn]] void fail_option(const std::string& option, const std::string& problem) {
  throw std::invalid_argument(option + ": " + problem);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_separator(char c) { return c == '_' || c == '.' || c == '-'; }

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// Throws unless `path` is a regular file, following symbolic links. Uses only non-throwing filesystem calls.
void require_regular_file(const fs::path& path, const std::string& option) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::regular) return;
  if (st.type() == fs::file_type::not_found) {
    std::error_code link_ec;
    if (fs::symlink_status(path, link_ec).type() == fs::file_type::symlink)
      fail_option(option, path.string() + ": broken symbolic link (its target does not exist)");
    fail_option(option, path.string() + ": no such file");
  }
  if (ec) fail_option(option, path.string() + ": cannot examine: " + ec.message());
  if (st.type() == fs::file_type::directory) fail_option(option, path.string() + ": is a directory, not a file");
  fail_option(option, path.string() + ": not a regular file");
}

// "layer0_q.npy" -> "layer0", "attnq.npy" -> "attn", "queries.npy" -> "queries"; "q.npy", "_q.npy" -> "layer<index>".
std::string name_from_q_file(const fs::path& q, std::size_t index) {
  std::string name = q.stem().string();
  if (name.ends_with('q')) {
    name.pop_back();
    if (!name.empty() && is_separator(name.back())) name.pop_back();
  }
  return name.empty() ? "layer" + std::to_string(index) : printable(name);  // a name is one line in every report
}

// Repeated names get "#2", "#3", ... in order of appearance, skipping suffixed names some layer already has.
void make_names_unique(std::vector<LayerFiles>& layers) {
  std::set<std::string> taken;
  for (const LayerFiles& layer : layers) taken.insert(layer.name);
  std::set<std::string> seen;                 // names whose first occurrence has passed
  std::map<std::string, std::size_t> next;    // next suffix to try, per repeated name
  for (LayerFiles& layer : layers) {
    if (seen.insert(layer.name).second) continue;
    std::size_t& n = next.try_emplace(layer.name, 2).first->second;
    for (;; ++n) {
      std::string candidate = layer.name + "#" + std::to_string(n);
      if (taken.insert(candidate).second) {
        layer.name = std::move(candidate);
        ++n;
        break;
      }
    }
  }
}

struct NaturalLess {
  bool operator()(const std::string& a, const std::string& b) const { return natural_less(a, b); }
};

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && is_digit(a[i_end])) ++i_end;
      while (j_end < b.size() && is_digit(b[j_end])) ++j_end;
      while (i < i_end && a[i] == '0') ++i;
      while (j < j_end && b[j] == '0') ++j;
      const std::string_view run_a = a.substr(i, i_end - i), run_b = b.substr(j, j_end - j);
      if (run_a.size() != run_b.size()) return run_a.size() < run_b.size();
      if (run_a != run_b) return run_a < run_b;
      i = i_end;
      j = j_end;
      continue;
    }
    const auto ca = static_cast<unsigned char>(a[i]), cb = static_cast<unsigned char>(b[j]);
    if (ca != cb) return ca < cb;
    ++i;
    ++j;
  }
  const bool a_done = i == a.size(), b_done = j == b.size();
  if (a_done != b_done) return a_done;
  return a < b;  // equal in natural order ("a01" vs "a1"): plain order decides
}

std::vector<LayerFiles> layers_from_triples(const std::vector<std::string>& paths, const std::string& option) {
  if (paths.empty() || paths.size() % 3 != 0)
    throw std::invalid_argument(option + " takes Q,K,V triples: got " + std::to_string(paths.size()) +
                                (paths.size() == 1 ? " path" : " paths"));
  const std::size_t count = paths.size() / 3;
  if (count > kMaxInputLayers)
    fail_option(option,
                std::to_string(count) + " layers given, at most " + std::to_string(kMaxInputLayers) + " allowed");
  for (std::size_t i = 0; i < paths.size(); ++i)
    if (paths[i].empty())
      fail_option(option, std::string("empty path as the ") + kLetters[i % 3] + " file of triple " +
                       std::to_string(i / 3 + 1) + " of " + std::to_string(count));
  for (const std::string& path : paths) require_regular_file(path, option);

  std::vector<LayerFiles> layers;
  layers.reserve(count);
  for (std::size_t l = 0; l < count; ++l) {
    LayerFiles layer{.name = name_from_q_file(paths[3 * l], l),
                     .q = paths[3 * l],
                     .k = paths[3 * l + 1],
                     .v = paths[3 * l + 2]};
    layers.push_back(std::move(layer));
  }
  make_names_unique(layers);
  return layers;
}

std::vector<LayerFiles> layers_from_directory(const fs::path& dir, const std::string& option) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (st.type() == fs::file_type::not_found) fail_option(option, dir.string() + ": no such directory");
  if (ec) fail_option(option, dir.string() + ": cannot examine: " + ec.message());
  if (st.type() != fs::file_type::directory) fail_option(option, dir.string() + ": not a directory");

  // Per layer name and letter (q, k, v), the names of the matching entries: one per separator at most.
  std::map<std::string, std::array<std::vector<std::string>, 3>, NaturalLess> found;
  fs::directory_iterator it(dir, ec);
  if (ec) fail_option(option, dir.string() + ": cannot read: " + ec.message());
  const fs::directory_iterator end;
  while (it != end) {
    const std::string file = it->path().filename().string();
    constexpr std::string_view kExt = ".npy";
    // <layer><sep><letter>.npy with <layer> non-empty: at least 3 characters before the extension.
    if (file.size() >= kExt.size() + 3 && file.ends_with(kExt)) {
      const std::size_t letter_pos = file.size() - kExt.size() - 1;
      const char letter = file[letter_pos];
      std::size_t slot = kLetters.size();
      for (std::size_t s = 0; s < kLetters.size(); ++s)
        if (letter == kLetters[s]) slot = s;
      if (slot < kLetters.size() && is_separator(file[letter_pos - 1])) {
        found[file.substr(0, letter_pos - 1)][slot].push_back(file);
        if (found.size() > kMaxInputLayers)
          fail_option(option, "more than " + std::to_string(kMaxInputLayers) + " layers in " + dir.string());
      }
    }
    it.increment(ec);
    if (ec) fail_option(option, dir.string() + ": cannot read: " + ec.message());
  }
  if (found.empty())
    fail_option(option, "no files named <layer>_q.npy, <layer>_k.npy, <layer>_v.npy (separator _ . or -) in " +
                     dir.string());

  std::vector<LayerFiles> layers;
  layers.reserve(found.size());
  for (auto& [name, files] : found) {
    std::string missing, present;
    for (std::size_t s = 0; s < kLetters.size(); ++s) {
      std::vector<std::string>& matches = files[s];
      if (matches.size() > 1) {
        std::sort(matches.begin(), matches.end());
        std::string listed;
        for (std::size_t m = 0; m < matches.size(); ++m)
          listed += (m == 0 ? "" : m + 1 == matches.size() ? " and " : ", ") + (dir / matches[m]).string();
        fail_option(option, "ambiguous " + std::string(1, kLetters[s]) + " file for layer " + quoted(name) + ": " +
                                listed + " (use one separator per layer)");
      }
      std::string& list = matches.empty() ? missing : present;
      list += (list.empty() ? "" : ", ") + (matches.empty() ? std::string(1, kLetters[s]) : matches.front());
    }
    if (!missing.empty())
      fail_option(option, "layer " + quoted(name) + " is missing " + missing + " (found " + present + " in " +
                       dir.string() + ")");
    LayerFiles layer{.name = printable(name), .q = dir / files[0][0], .k = dir / files[1][0], .v = dir / files[2][0]};
    require_regular_file(layer.q, option);
    require_regular_file(layer.k, option);
    require_regular_file(layer.v, option);
    layers.push_back(std::move(layer));
  }
  make_names_unique(layers);  // two names may print alike ("a\nb" and a raw newline)
  return layers;
}

}  // namespace favorlab
