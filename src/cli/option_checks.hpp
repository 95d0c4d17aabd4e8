#pragma once
// Strict numbers on the command line. CLI11 converts leniently: "-1" given to an unsigned option wraps to 2^64 − 1,
// an integer beyond its type saturates, an empty string becomes 0, and "nan" or "inf" pass as doubles. Every option
// whose type CLI11 reports as INT, UINT or FLOAT (lists included, each element) gets a check that refuses, before
// conversion, with one line naming the option and the value:
//   INT    anything but an integer (decimal, or 0x… hex / 0… octal as CLI11 reads them) that fits std::int64_t;
//   UINT   the same for std::uint64_t, and any sign: "-1" is refused, not wrapped;
//   FLOAT  anything but a finite number ("nan", "inf", "1e999" are refused);
//   all    the empty string.
// The option's own type and range (an int, a positive m, …) are still checked by CLI11 and the command.
#include <CLI/CLI.hpp>

#include <string>

namespace favorlab {

// Adds the checks to every numeric option of `app` and, recursively, of its subcommands. Call it once every option
// has been added.
void add_strict_number_checks(CLI::App& app);

// The check itself: "" when `text` is a valid value of CLI11 type name `type` ("INT", "UINT", "FLOAT"), else why not.
std::string strict_number_problem(const std::string& text, const std::string& type);

}  // namespace favorlab
