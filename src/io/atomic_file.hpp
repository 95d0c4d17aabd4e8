#pragma once
// Writes a file so that readers see either the old file or the complete new one, never a half-written one:
// the content goes to a temporary file in the same directory, which is renamed over the target on commit.
// Constructing the writer creates the temporary file at once, so an unwritable path is reported before any work.
// The temporary file is removed on every way out that leaves the target alone: an exception (the destructor), and
// SIGINT, SIGTERM or SIGHUP (a handler installed with the first writer, where no other handler is set, removes every
// live temporary file and re-raises the signal). The target keeps its old content in all of them.
#include <filesystem>
#include <stdexcept>
#include <string>

namespace favorlab {

struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path target);  // throws OutputError naming the path and the reason
  ~AtomicFileWriter();                                       // removes the temporary file unless committed
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void commit(const std::string& content);  // write, flush to disk, rename over the target
  const std::filesystem::path& target() const { return target_; }

 private:
  std::filesystem::path target_, temp_;
  int fd_ = -1;
  int slot_ = -1;  // in the signal handler's table of temporary files
  bool committed_ = false;
};

}  // namespace favorlab
