#include "runtime/memory_budget.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

namespace favorlab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The first number in a file (cgroup files hold one number or "max"); +∞ for "max" or an unreadable file.
double file_number(const char* path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return kInf;
  try {
    std::size_t used = 0;
    const double v = std::stod(word, &used);
    return used == word.size() && v >= 0 ? v : kInf;
  } catch (const std::exception&) {
    return kInf;
  }
}

double meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;  // the file's unit is kB (KiB)
  }
  return kInf;
}

}  // namespace

double available_memory_bytes() {
  double available = meminfo_available();
  const double v2_limit = file_number("/sys/fs/cgroup/memory.max");
  if (std::isfinite(v2_limit)) {
    const double used = file_number("/sys/fs/cgroup/memory.current");
    available = std::min(available, v2_limit - (std::isfinite(used) ? used : 0));
  }
  const double v1_limit = file_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  if (std::isfinite(v1_limit) && v1_limit < 1e18) {  // v1 writes "unlimited" as a huge page-aligned number
    const double used = file_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    available = std::min(available, v1_limit - (std::isfinite(used) ? used : 0));
  }
  return std::max(0.0, available);
}

double parse_memory_size(const std::string& text, const std::string& option) {
  const auto bad = [&] {
    return std::invalid_argument(option + " must be a size such as 8G, 512M, 1.5GiB or a number of bytes, got '" +
                                 text + "'");
  };
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) throw bad();
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(text.substr(0, i), &used);
    if (used != i) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  std::string unit;
  for (std::size_t j = i; j < text.size(); ++j) unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[j])));
  double scale = 0;
  const std::string prefixes = "KMGT";
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else if (const auto p = prefixes.find(unit[0]); p != std::string::npos &&
                                                   (unit.size() == 1 || unit.substr(1) == "B" || unit.substr(1) == "IB")) {
    scale = std::pow(1024.0, static_cast<double>(p + 1));
  } else {
    throw bad();
  }
  const double bytes = value * scale;
  if (!(bytes >= 1) || !std::isfinite(bytes)) throw bad();
  return bytes;
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "an unbounded amount";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char buf[64];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  else
    std::snprintf(buf, sizeof buf, bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

void check_memory_budget(const std::string& what, double bytes, const std::string& lower,
                         const std::string& max_memory) {
  const bool user_limit = !max_memory.empty();
  const double limit = user_limit ? parse_memory_size(max_memory) : available_memory_bytes();
  if (std::isnan(bytes)) throw std::logic_error("the memory prediction of " + what + " is NaN");
  if (!(bytes > limit)) return;
  std::string message = what + " needs ≈ " + format_bytes(bytes) + ", ";
  message += user_limit ? "--max-memory allows " + format_bytes(limit)
                        : "this machine has " + format_bytes(limit) + " available";
  message += "; lower " + (lower.empty() ? std::string("the sizes") : lower);
  if (!user_limit) message += ", or pass --max-memory";
  throw std::invalid_argument(message);
}

}  // namespace favorlab
