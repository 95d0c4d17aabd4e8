#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
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

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load(std::memory_order_acquire)) ::unlink(g_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Installed with every new temporary file rather than once: a handler found at its default (reset by a library, or
// in a forked child) is taken over again.
void install_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
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
  install_handlers();
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

namespace {

const char* file_kind(std::filesystem::file_type t) {
  switch (t) {
    case std::filesystem::file_type::directory: return "a directory";
    case std::filesystem::file_type::fifo: return "a FIFO";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

}  // namespace

std::filesystem::path resolved_path(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::path r = std::filesystem::absolute(p, ec);
  // Follow links one by one (a dangling link's target does not exist yet, which weakly_canonical would not follow);
  // 40 hops, as the kernel allows, end a loop.
  for (int hop = 0; hop < 40 && std::filesystem::is_symlink(std::filesystem::symlink_status(r, ec)); ++hop) {
    const std::filesystem::path next = std::filesystem::read_symlink(r, ec);
    if (ec) break;
    r = next.is_absolute() ? next : r.parent_path() / next;
  }
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(r, ec);
  return ec ? r.lexically_normal() : canonical;
}

void check_distinct_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  const auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec;
    if (std::filesystem::equivalent(a, b, ec) && !ec) return true;  // both exist (hard links included)
    return resolved_path(a) == resolved_path(b);
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty() || path == "-") continue;
    for (const auto& [in_option, in_path] : inputs)
      if (!in_path.empty() && same(path, in_path))
        throw std::invalid_argument(option + " " + path + " is the same file as " + in_option + " " + in_path +
                                    ": writing it would destroy the input");
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].second.empty() && outputs[j].second != "-" && same(path, outputs[j].second))
        throw std::invalid_argument(option + " " + path + " is the same file as " + outputs[j].first + " " +
                                    outputs[j].second + ": one would overwrite the other");
  }
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  if (target_ == "-") {
    stdout_ = true;
    return;
  }
  // Follow a symbolic link to the file it names, so the link survives and its target is what gets replaced.
  std::error_code ec;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(target_, ec))) target_ = resolved_path(target_);
  const auto status = std::filesystem::status(target_, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw OutputError("cannot write " + target_.string() + ": it is " + file_kind(status.type()) +
                      ", not a regular file (refusing to replace it)");
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
  if (stdout_) {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() || std::fflush(stdout) != 0)
      throw OutputError(std::string("cannot write to standard output: ") + std::strerror(errno));
    committed_ = true;
    return;
  }
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
