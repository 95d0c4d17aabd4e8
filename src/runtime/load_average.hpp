#pragma once
// The machine's 1-minute load average (/proc/loadavg), recorded beside every timing; −1 where it cannot be read.
#include <fstream>

namespace favorlab {

inline double load_average() {
  std::ifstream in("/proc/loadavg");
  double one = -1;
  in >> one;
  return one;
}

}  // namespace favorlab
