// libFuzzer target for compare's JSON reading (io/json_file.hpp, results/result_compare.hpp): scripts/fuzz.sh builds and
// runs it. An input is two documents separated by the first NUL byte (no NUL: the document compared with itself),
// the baseline and the new result of `favorlab compare`.
//
// Expected outcomes, as `favorlab compare` handles them: each document parses, or parse_json_bounded throws
// std::invalid_argument "fuzz: problem" (too deep, a number beyond double, not JSON); read_json_file on the same
// bytes in a file agrees; compare_results then returns a report or refuses with std::invalid_argument or a
// nlohmann::json::exception (a field of the wrong type: compare_command maps it to bad input); a report always
// renders as lines and as JSON. Everything else is a finding: another exception type, a crash (a stack overflow on
// deep nesting), a sanitizer report, an allocation beyond -malloc_limit_mb, or a failed check (abort with a message).
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/json_file.hpp"
#include "results/result_compare.hpp"

namespace fl = favorlab;

// result_compare.cpp's one use of results/result.cpp, which would pull in the provenance code (git commit, CPU features)
// and the checks: the same one line here.
namespace favorlab {
Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
}  // namespace favorlab

namespace {

constexpr std::size_t kMaxInput = 1 << 20;

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "compare_fuzz: BUG: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// The document parsed from memory and from a file (must agree), or nullopt-like false when both refuse.
bool parse_both(const std::string& text, fl::Json& out) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("compare_fuzz-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  bool memory_ok = false, file_ok = false;
  fl::Json from_memory, from_file;
  try {
    from_memory = fl::parse_json_bounded(text, "fuzz");
    memory_ok = true;
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).substr(0, 6) != "fuzz: ") bug(std::string("message without its source: ") + e.what());
  }
  try {
    from_file = fl::read_json_file(file, "new");
    file_ok = true;
  } catch (const std::invalid_argument&) {
  }
  if (memory_ok != file_ok) bug("parse_json_bounded and read_json_file disagree");
  if (memory_ok && from_memory != from_file) bug("parse_json_bounded and read_json_file parse differently");
  out = std::move(from_memory);
  return memory_ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInput) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = all.find('\0');
  const std::string first(all.substr(0, nul)), second(nul == std::string_view::npos ? first : all.substr(nul + 1));
  fl::Json base, fresh;
  if (!parse_both(first, base) || !parse_both(second, fresh)) return 0;
  fl::CompareReport report;
  try {
    report = fl::compare_results(base, fresh);
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  const auto lines = fl::compare_report_lines(report, 50);
  if (lines.empty()) bug("a report without lines");
  const std::string json = fl::compare_report_json(report).dump(1);
  if (json.empty()) bug("an empty JSON report");
  return 0;
}
