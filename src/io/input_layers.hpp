#pragma once
// Which .npy files hold the attention inputs of each layer of a user's model, for `favorlab attention-report`.
// A layer is three files, queries, keys and values (each shaped (H, L, d) or (L, d); reading and checking the
// arrays is the caller's job, this module only finds and checks the files). Two ways to name them:
//
// layers_from_triples (--inputs Q.npy,K.npy,V.npy ...): CLI11 has already split the values on ',' into one flat list;
// consecutive triples form layers, in the order given. A layer's name is the q file's stem with a trailing "_q",
// ".q", "-q" or "q" removed when that leaves something non-empty ("layer0_q.npy" -> "layer0", "attnq.npy" -> "attn"),
// else "layer<i>" (i: the layer's 0-based position). A name that occurs again gets the suffix "#2", "#3", ... (the
// first occurrence keeps it plain; a suffix that another layer already uses as its own name is skipped), so names
// are unique.
//
// layers_from_directory (--input-dir DIR): the entries of DIR (not its subdirectories) named <layer><sep>q.npy,
// <layer><sep>k.npy and <layer><sep>v.npy, <sep> being '_', '.' or '-' and <layer> non-empty; every other entry is
// ignored. Layers may use different separators from one another, and within a layer the three files may too, as
// long as no letter of a layer is matched twice. Layers come sorted by natural_less of their names.
//
// Both return at most kMaxInputLayers layers, each file a regular file (symbolic links are followed) that existed
// when checked. Every problem throws std::invalid_argument with one line "OPTION: problem" (OPTION being the
// `option` argument, e.g. "--inputs"), the problem being one of:
//   triples: a count that is not a positive multiple of 3 ("--inputs takes Q,K,V triples: got 4 paths"), an empty
//            path, more than kMaxInputLayers layers;
//   directory: DIR missing, not a directory or unreadable; no matching files (the message states the naming rule);
//            more than kMaxInputLayers layers; a layer with some but not all of q, k, v (naming the layer and the
//            missing letters); one layer letter matched by two files with different separators (a_q.npy and
//            a.q.npy: ambiguous, naming both);
//   both: a path that does not exist (or is a broken symbolic link), is a directory or another non-regular file, or
//         cannot be examined (naming the path).
// No std::filesystem::filesystem_error escapes.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace favorlab {

inline constexpr std::size_t kMaxInputLayers = 10000;

struct LayerFiles {
  std::string name;  // the layer's name in reports, unique within one result
  std::filesystem::path q, k, v;
};

std::vector<LayerFiles> layers_from_triples(const std::vector<std::string>& paths, const std::string& option);
std::vector<LayerFiles> layers_from_directory(const std::filesystem::path& dir, const std::string& option);

// Natural order: maximal runs of ASCII digits compare as numbers (any length, no overflow: leading zeros stripped,
// then the shorter run is smaller, then digit by digit), everything else byte by byte (as unsigned char), a digit run
// sorting where its first digit would. Strings that compare equal this way ("a01" and "a1") are ordered by plain
// string order, so this is a strict total order: layer2 < layer010 < layer10.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace favorlab
