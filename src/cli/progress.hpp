#pragma once
// Progress of a long run on stderr: a redrawn bar on a terminal, a line every 10% otherwise, nothing with --quiet.
#include <chrono>
#include <cstdint>
#include <string>

namespace favorlab {

class Progress {
 public:
  Progress(std::string label, bool quiet);
  void update(std::int64_t done, std::int64_t total);
  void finish();

 private:
  std::string label_;
  bool quiet_, tty_;
  int last_tenth_ = -1;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace favorlab
