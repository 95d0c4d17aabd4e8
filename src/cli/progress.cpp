#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace favorlab {

Progress::Progress(std::string label, bool quiet)
    : label_(std::move(label)), quiet_(quiet), tty_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void Progress::update(std::int64_t done, std::int64_t total) {
  if (quiet_ || total <= 0) return;
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (tty_) {
    if (done < total && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(frac * kWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r%-10s [%s] %5.1f%%  %.1fs", label_.c_str(), bar.c_str(), 100 * frac, elapsed);
    drawn_ = true;
  } else {
    const int tenth = static_cast<int>(frac * 10);
    if (tenth == last_tenth_) return;
    last_tenth_ = tenth;
    std::fprintf(stderr, "%s: %3d%% (%.1fs)\n", label_.c_str(), tenth * 10, elapsed);
  }
  std::fflush(stderr);
}

void Progress::finish() {
  if (quiet_ || !tty_ || !drawn_) return;
  std::fputc('\n', stderr);
  drawn_ = false;
}

}  // namespace favorlab
