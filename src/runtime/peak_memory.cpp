#include "runtime/peak_memory.hpp"

#include <Eigen/Core>
#include <malloc.h>
#include <omp.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace favorlab {

namespace {

// A "Key:   123 kB" line of /proc/self/status, in bytes; -1 if absent.
std::int64_t status_field(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':')
      return std::stoll(line.substr(n + 1)) * 1024;
  return -1;
}

// VmRSS and VmHWM (bytes) from one read of /proc/self/status; -1 where absent.
std::pair<std::int64_t, std::int64_t> memory_status() {
  std::ifstream in("/proc/self/status");
  std::string line;
  std::int64_t rss = -1, hwm = -1;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss = std::stoll(line.substr(6)) * 1024;
    if (line.rfind("VmHWM:", 0) == 0) hwm = std::stoll(line.substr(6)) * 1024;
  }
  return {rss, hwm};
}

// What the child sends back through the pipe.
struct Report {
  std::int64_t baseline = 0, peak = 0;
  int exact = 0, failed = 0;
  double value = 0;
  char error[256] = {};
};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = ::write(fd, p, size);
    if (w <= 0) return false;
    p += w;
    size -= static_cast<std::size_t>(w);
  }
  return true;
}

[[noreturn]] void run_child(int fd, const std::function<double()>& work) {
  Report r;
  try {
    // Free heap pages left by earlier work would otherwise be reused without being faulted in again, hiding them
    // from the high-water mark.
    ::malloc_trim(0);
    // One thread: the parent's OpenMP pool did not come along (see the header), and Eigen's own GEMM threads would
    // start a team of their own inside a one-thread region.
    omp_set_num_threads(1);
    Eigen::setNbThreads(1);
    bool reset = false;
    if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
      reset = std::fputs("5", f) >= 0;
      reset = (std::fclose(f) == 0) && reset;
    }
    // One read of /proc/self/status for both figures: the kernel's counters are per-CPU approximations, so two
    // reads a moment apart can disagree by a few pages. After a successful reset VmHWM is VmRSS of that moment;
    // after a failed one it is the earlier peak, the only baseline there is (the result is then a lower bound).
    const auto [rss, hwm_before] = memory_status();
    r.baseline = rss;
    r.exact = reset;
    const std::int64_t floor = std::max(rss, hwm_before);
    r.value = work();
    const std::int64_t hwm = memory_status().second;
    r.peak = hwm > floor ? hwm - floor : 0;
  } catch (const std::exception& e) {
    r.failed = 1;
    std::snprintf(r.error, sizeof r.error, "%s", e.what());
  } catch (...) {
    r.failed = 1;
    std::snprintf(r.error, sizeof r.error, "unknown exception");
  }
  const bool sent = write_all(fd, &r, sizeof r);
  ::close(fd);
  ::_exit(sent ? 0 : 3);
}

}  // namespace

std::int64_t resident_bytes() { return status_field("VmRSS"); }
std::int64_t resident_high_water_bytes() { return status_field("VmHWM"); }

PeakMemory measure_peak_memory(const std::function<double()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("peak memory: pipe failed");
  std::fflush(nullptr);  // the child must not flush the parent's buffered output a second time
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("peak memory: fork failed");
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fds[1], work);
  }
  ::close(fds[1]);
  Report r;
  std::size_t got = 0;
  char* p = reinterpret_cast<char*>(&r);
  while (got < sizeof r) {
    const ssize_t n = ::read(fds[0], p + got, sizeof r - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) break;
  if (got != sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("peak memory: the child process died (" +
                             std::string(WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                                             : "status " + std::to_string(WEXITSTATUS(status))) +
                             ")");
  if (r.failed) throw std::runtime_error(std::string("peak memory: the work failed: ") + r.error);
  return {r.peak, r.baseline, r.exact != 0, r.value};
}

}  // namespace favorlab
