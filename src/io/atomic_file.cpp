#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace favorlab {

namespace {

// Temporary files alive in this process, for removal when a signal ends it (Ctrl-C, a batch system's kill, mpirun
// aborting a job whose other rank failed, a closed pipe, a file size or CPU limit) or when something calls exit()
// before the writer's destructor runs (libgomp does when it cannot create its threads). The handler only reads these
// fixed slots and calls unlink(2) and raise(3), which are async-signal-safe; a path longer than a slot is simply not
// covered.
constexpr int kSlots = 32;
constexpr std::size_t kPathBytes = 4096;
char g_paths[kSlots][kPathBytes];
std::atomic<bool> g_used[kSlots];

void remove_temporaries() {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load(std::memory_order_acquire)) ::unlink(g_paths[i]);
}

extern "C" void remove_temporaries_and_reraise(int sig) {
  remove_temporaries();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

extern "C" void remove_temporaries_at_exit() { remove_temporaries(); }

// Every signal whose default action ends the process: the termination signals and the crash signals (SIGSEGV from a
// stack overflow included: the handler runs on an alternate stack). The real-time signals are added below.
constexpr int kEndingSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,   SIGUSR2, SIGALRM, SIGVTALRM,
                                  SIGPROF, SIGPIPE, SIGXFSZ, SIGXCPU, SIGIO,     SIGSYS,  SIGTRAP, SIGSEGV,
                                  SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGSTKFLT, SIGPWR};

void install_alternate_stack() {
  static bool done = false;
  if (done) return;
  done = true;
  static std::vector<char> stack(std::max<std::size_t>(SIGSTKSZ, 64 * 1024));
  stack_t ss{};
  ss.ss_sp = stack.data();
  ss.ss_size = stack.size();
  ::sigaltstack(&ss, nullptr);
}

void install_handler(int sig) {
  struct sigaction current {};
  // Leave a handler someone else installed (or an ignored signal) alone.
  if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_reraise;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(sig, &action, nullptr);
}

// Installed with every new temporary file rather than once: a handler found at its default (reset by a library, or
// in a forked child) is taken over again.
void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    install_alternate_stack();
    std::atexit(remove_temporaries_at_exit);
  });
  for (int sig : kEndingSignals) install_handler(sig);
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) install_handler(sig);
}

// Descriptors 0, 1 and 2 open before anything else is: started with one closed (`2>&-`), the first file favorlab
// opens would take its number, and progress lines meant for stderr would land in the result. /dev/null takes it.
// Standard output closed at start is remembered: what a command's product would have been written there is refused.
bool g_stdout_closed_at_start = false;
struct StandardDescriptors {
  StandardDescriptors() {
    for (int fd = 0; fd <= 2; ++fd)
      if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
        if (fd == 1) g_stdout_closed_at_start = true;
        const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (opened >= 0 && opened != fd) ::close(opened);  // fd was taken meanwhile: nothing to fill
      }
  }
} g_standard_descriptors;

// The umask, read once at start (reading it means setting it), for the mode of new result files.
mode_t read_umask() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}
const mode_t g_umask = read_umask();

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
  // Standard output holds one file: two outputs on it would be concatenated into something neither reader expects.
  const NamedPath* on_stdout = nullptr;
  for (const auto& output : outputs) {
    if (output.second != "-") continue;
    if (on_stdout)
      throw std::invalid_argument(output.first + " - and " + on_stdout->first +
                                  " - would both write to standard output: at most one output may be -");
    on_stdout = &output;
  }
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

void require_standard_output(const std::string& what) {
  if (g_stdout_closed_at_start)
    throw OutputError("standard output is closed (the process was started with >&-): " + what +
                      " would be lost; give a file");
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  if (target_ == "-") {
    require_standard_output("the output named -");
    stdout_ = true;
    return;
  }
  // Follow a symbolic link to the file it names, so the link survives and its target is what gets replaced.
  std::error_code ec;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(target_, ec))) {
    target_ = resolved_path(target_);
    // Still a link after 40 hops: a loop. Renaming over it would replace a link with a regular file.
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(target_, ec)))
      throw OutputError("cannot write " + target_.string() + ": a loop of symbolic links");
  }
  const auto status = std::filesystem::status(target_, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw OutputError("cannot write " + target_.string() + ": " + ec.message());
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw OutputError("cannot write " + target_.string() + ": it is " + file_kind(status.type()) +
                      ", not a regular file (refusing to replace it)");
  const auto dir = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
  std::string name = target_.filename().string();
  // The temporary name adds 12 bytes; a legal name near NAME_MAX (255) is shortened so that it still fits.
  constexpr std::size_t kAdded = 12, kNameMax = 255;
  if (name.size() + kAdded > kNameMax) name.resize(kNameMax - kAdded);
  name.insert(0, 1, '.');  // hidden while incomplete
  name.append(".tmp-XXXXXX");
  std::string pattern = (dir / name).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  // Signals are held back from creating the file until it is registered: a signal in between would end the process
  // with a temporary file the handler does not know (seen under load, between mkstemp and the registration).
  install_handlers();
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &previous);
  fd_ = ::mkstemp(buf.data());
  const int error = errno;
  if (fd_ >= 0) {
    temp_ = buf.data();
    slot_ = register_temporary(temp_.string());
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd_ < 0) throw OutputError("cannot write " + target_.string() + ": " + std::strerror(error));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  unregister_temporary(slot_);
}

void AtomicFileWriter::commit(const std::string& content) {
  write(content);
  publish();
}

void AtomicFileWriter::write(const std::string& content) {
  if (written_) throw std::logic_error("AtomicFileWriter: " + target_.string() + " written twice");
  written_ = true;
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
  // The mode: the old file's when replacing one, else what the umask leaves of 0666 (mkstemp's own 0600 is private).
  struct stat old {};
  const mode_t mode = ::stat(target_.c_str(), &old) == 0 ? (old.st_mode & 07777) : (0666 & ~g_umask);
  if (::fsync(fd_) != 0 || ::fchmod(fd_, mode) != 0 || ::close(fd_) != 0) {
    fd_ = -1;
    throw OutputError("cannot write " + target_.string() + ": " + std::strerror(errno));
  }
  fd_ = -1;
}

void AtomicFileWriter::publish() {
  if (!written_) throw std::logic_error("AtomicFileWriter: " + target_.string() + " published before it was written");
  if (committed_) return;  // standard output: written is published
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw OutputError("cannot write " + target_.string() + ": " + std::strerror(errno));
  committed_ = true;
  unregister_temporary(slot_);
  slot_ = -1;
}

void commit_files(const std::vector<std::pair<std::filesystem::path, std::string>>& files) {
  std::vector<std::unique_ptr<AtomicFileWriter>> writers;
  for (const auto& [path, content] : files) writers.push_back(std::make_unique<AtomicFileWriter>(path));
  // Standard output last: it cannot be taken back, so it is written only once every file is complete on disk.
  for (std::size_t i = 0; i < files.size(); ++i)
    if (!writers[i]->to_stdout()) writers[i]->write(files[i].second);
  for (std::size_t i = 0; i < files.size(); ++i)
    if (writers[i]->to_stdout()) writers[i]->write(files[i].second);
  for (const auto& w : writers) w->publish();
}

}  // namespace favorlab
