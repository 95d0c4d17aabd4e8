#pragma once
// The one way favorlab reads a JSON document from a file (compare's two results, the ledger's result files), bounded
// on every axis a hostile file could use: the path must be a regular file (io/input_file.hpp: a FIFO would block, a
// device never ends), its size at most `max_bytes` (checked before reading, then enforced while reading), the nesting
// at most kMaxJsonDepth (checked while parsing: nlohmann's serializer and copy recurse, so a file of 100 000 nested
// arrays would overflow the stack after a successful parse), and every number within double's range.
// Every problem throws std::invalid_argument with one line "WHAT PATH: problem".
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace favorlab {

// Result files nest about six levels deep; anything past this is not one of favorlab's documents.
inline constexpr int kMaxJsonDepth = 128;
// The paper-sized mse result is about 2 MB; a file a thousand times larger is not a result file.
inline constexpr std::uintmax_t kMaxResultFileBytes = std::uintmax_t{1} << 30;

nlohmann::ordered_json read_json_file(const std::filesystem::path& path, const std::string& what,
                                      std::uintmax_t max_bytes = kMaxResultFileBytes);

// A document as favorlab writes it (result files, reports, ledgers): `indent` spaces per level and a final newline.
// Text that is not UTF-8 (a file name taken from the command line) is written with U+FFFD in place of the bytes that
// are not, instead of failing the run after its work is done.
std::string dump_json(const nlohmann::ordered_json& doc, int indent);

// The parsing half, for text already in memory (the fuzz target): `source` names it in messages.
nlohmann::ordered_json parse_json_bounded(const std::string& text, const std::string& source);

}  // namespace favorlab
