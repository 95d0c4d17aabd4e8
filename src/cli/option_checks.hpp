#pragma once
// Strict numbers on the command line. CLI11 converts leniently: "-1" given to an unsigned option wraps to 2^64 − 1,
// an integer beyond its type saturates, an empty string becomes 0, "nan" or "inf" pass as doubles, and a leading
// zero makes an integer octal ("010" is 8, "08" is refused). Every option whose type CLI11 reports as INT, UINT or
// FLOAT (lists included, each element) gets a check that refuses, before conversion, with one line naming the option
// and the value:
//   INT    anything but a decimal integer (leading zeros are decimal: "010" is 10; 0x… is hex) that fits std::int64_t;
//   UINT   the same for std::uint64_t, and any sign: "-1" is refused, not wrapped;
//   FLOAT  anything but a finite number ("nan", "inf", "1e999" are refused);
//   all    the empty string.
// Integers are handed on to CLI11 rewritten in plain decimal, so its own base detection never sees a leading zero.
// The option's own type and range (an int, a positive m, …) are still checked by CLI11 and the command.
//
// Checks by option name, the same in every command that has the option (add_named_option_checks):
//   paths (--out, --out-dir, --q, --k, --v, --w, --matrix, --save-w, --inputs, --input-dir, compare's files): an
//          empty value is refused, not read as "the default path";
//   --alpha        in [1e-100, 1): a denormal α overflows the normal quantile of α/2;
//   --max-memory   a size (runtime/memory_budget.hpp), checked while parsing, before a command prints or creates anything;
//   --budget       a duration (runtime/duration.hpp), checked while parsing;
//   --max-looks    in [1, kMaxLooks];
//   --thread-counts each in [1, 16 × processors], as --threads;
//   --trials       in [2, 1e15] when given: 0 is not "the default";
//   --groups, --positions, --batch, --heatmap-m  at least 1 when given (their unset 0 means the default).
// And after parsing (check_list_duplicates): a list option given the same value twice (--cos 0.5,0.5) is refused,
// since its rows would share a key; --inputs is exempt (one file may serve as Q and K), but its paths are counted
// (at most 3 × kMaxInputLayers) before any is examined.
#include <CLI/CLI.hpp>

#include <string>

namespace favorlab {

// Adds the checks to every numeric option of `app` and, recursively, of its subcommands. Call it once every option
// has been added.
void add_strict_number_checks(CLI::App& app);

// Adds the by-name checks above to `app` and its subcommands; call it once every option has been added.
void add_named_option_checks(CLI::App& app);

// Throws std::invalid_argument "--OPTION: VALUE is given twice" for a parsed list option of `app` (or of its parsed
// subcommands) holding one value twice.
void check_list_duplicates(const CLI::App& app);

// The check itself: "" when `text` is a valid value of CLI11 type name `type` ("INT", "UINT", "FLOAT"), else why not.
std::string strict_number_problem(const std::string& text, const std::string& type);

// `text` (valid for `type`) as plain decimal: "010" → "10", "0x10" → "16"; a FLOAT is returned unchanged.
std::string canonical_number(const std::string& text, const std::string& type);

}  // namespace favorlab
