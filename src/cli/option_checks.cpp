#include "cli/option_checks.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace favorlab {

namespace {

// The CLI11 type name without a list's decoration ("INT ..." → "INT"), or "" for a non-numeric option.
std::string numeric_kind(const CLI::Option& option) {
  const std::string name = option.get_type_name();
  for (const char* kind : {"UINT", "INT", "FLOAT"})
    if (name.rfind(kind, 0) == 0 && (name.size() == std::string(kind).size() || name[std::string(kind).size()] == ' '))
      return kind;
  return "";
}

}  // namespace

std::string strict_number_problem(const std::string& text, const std::string& type) {
  if (text.empty()) return "an empty value is not a number";
  if (std::isspace(static_cast<unsigned char>(text.front())) || std::isspace(static_cast<unsigned char>(text.back())))
    return "'" + text + "' has spaces around the number";
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  if (type == "FLOAT") {
    const double v = std::strtod(begin, &end);
    if (end != begin + text.size()) return "'" + text + "' is not a number";
    if (!std::isfinite(v)) return "'" + text + "' is not a finite number";
    return "";
  }
  if (type == "UINT") {
    if (text.front() == '-' || text.front() == '+') return "'" + text + "' must be a non-negative integer (no sign)";
    (void)std::strtoull(begin, &end, 0);
  } else {
    (void)std::strtoll(begin, &end, 0);
  }
  if (end != begin + text.size()) return "'" + text + "' is not an integer";
  if (errno == ERANGE) return "'" + text + "' is out of range";
  return "";
}

void add_strict_number_checks(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string kind = numeric_kind(*option);
    if (kind.empty()) continue;
    option->check(CLI::Validator(
        [kind](std::string& value) { return strict_number_problem(value, kind); },
        "", "strict " + kind));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add_strict_number_checks(*sub);
}

}  // namespace favorlab
