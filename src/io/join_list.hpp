#pragma once
// A list written as the command line takes it ("4,16,64"): what a check's `where` and a message quote back.
#include <string>
#include <vector>

#include "io/format_number.hpp"

namespace favorlab {

inline std::string join_list(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

inline std::string join_list(const std::vector<double>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + format_number(values[i]);
  return out;
}

}  // namespace favorlab
