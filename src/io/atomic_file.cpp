#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <vector>

namespace favorlab {

namespace {

// Temporary files alive in this process, for removal when SIGINT, SIGTERM or SIGHUP ends it (Ctrl-C, a batch system's
// kill, mpirun aborting a job whose other rank failed). The handler only reads these fixed slots and calls unlink(2)
// and raise(3), which are async-signal-safe; a path longer than a slot is simply not covered.
constexpr int kSlots = 32;
constexpr std::size_t kPathBytes = 4096;
char g_paths[kSlots][kPathBytes];
std::atomic<bool> g_used[kSlots];
std::once_flag g_handlers_installed;

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load(std::memory_order_acquire)) ::unlink(g_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    // Leave a handler someone else installed (or an ignored signal) alone.
    if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
}

int register_temporary(const std::string& path) {
  std::call_once(g_handlers_installed, install_handlers);
  if (path.size() >= kPathBytes) return -1;
  static std::mutex slots;
  std::lock_guard<std::mutex> lock(slots);
  for (int i = 0; i < kSlots; ++i)
    if (!g_used[i].load(std::memory_order_relaxed)) {
      std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
      g_used[i].store(true, std::memory_order_release);
      return i;
    }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_used[slot].store(false, std::memory_order_release);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  if (std::filesystem::is_directory(target_))
    throw OutputError("cannot write " + target_.string() + ": it is a directory");
  const auto dir = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
  std::string name = target_.filename().string();
  name.insert(0, 1, '.');  // hidden while incomplete
  name.append(".tmp-XXXXXX");
  std::string pattern = (dir / name).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  fd_ = ::mkstemp(buf.data());
  if (fd_ < 0) throw OutputError("cannot write " + target_.string() + ": " + std::strerror(errno));
  temp_ = buf.data();
  slot_ = register_temporary(temp_.string());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  unregister_temporary(slot_);
}

void AtomicFileWriter::commit(const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw OutputError("cannot write " + target_.string() + ": " + std::strerror(errno));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0 || ::fchmod(fd_, 0644) != 0 || ::close(fd_) != 0) {
    fd_ = -1;
    throw OutputError("cannot write " + target_.string() + ": " + std::strerror(errno));
  }
  fd_ = -1;
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw OutputError("cannot write " + target_.string() + ": " + std::strerror(errno));
  committed_ = true;
  unregister_temporary(slot_);
  slot_ = -1;
}

}  // namespace favorlab
