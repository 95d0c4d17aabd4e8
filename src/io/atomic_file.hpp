#pragma once
// Writes a file so that readers see either the old file or the complete new one, never a half-written one:
// the content goes to a temporary file in the same directory, which is renamed over the target on commit.
// Constructing the writer creates the temporary file at once, so an unwritable path is reported before any work.
// The temporary file is removed on every way out that leaves the target alone: an exception (the destructor), exit()
// before the destructor ran (an atexit handler: libgomp exits when it cannot create threads), and every signal whose
// default action ends the process (termination, SIGPIPE, SIGXFSZ, SIGXCPU, SIGUSR1/2, SIGALRM, real-time signals,
// and the crash signals, a stack overflow included): a handler installed with the first writer, where no other
// handler is set, removes every live temporary file and re-raises the signal. The target keeps its old content.
// The target: a symbolic link is followed (the file it points to is replaced, the link stays; a loop of links is
// refused); an existing target that is not a regular file (a FIFO, a device, a socket, a directory) is refused with
// OutputError rather than replaced by a regular file. "-" is standard output: commit writes the content there (no
// temporary file). A new file gets mode 0666 less the umask, a replaced one keeps its mode; a name too long for the
// temporary suffix gets a shortened temporary name. Descriptors 0-2 are opened on /dev/null at start when closed, so
// no file favorlab opens takes stderr's number.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

  void commit(const std::string& content);  // write, then publish
  void write(const std::string& content);   // the content to the temporary file, flushed to disk (stdout: written)
  void publish();                           // rename the written temporary file over the target
  const std::filesystem::path& target() const { return target_; }
  bool to_stdout() const { return stdout_; }

 private:
  std::filesystem::path target_, temp_;
  int fd_ = -1;
  int slot_ = -1;  // in the signal handler's table of temporary files
  bool written_ = false;
  bool committed_ = false;
  bool stdout_ = false;
};

// Files that belong together (an output and its attention matrix): every one written to its temporary file first,
// then all renamed, so that a failure while writing any of them (a full disk) leaves every target as it was. A "-"
// among them is written after the files are complete on disk, since standard output cannot be taken back.
void commit_files(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

// Throws OutputError when the process was started with standard output closed (`>&-`, then /dev/null fills the
// descriptor): for a command whose product goes there (`-`, a ledger, a listing), which would be lost unseen.
// `what` names it ("the ledger").
void require_standard_output(const std::string& what);

// The file a path names once symbolic links are followed (a path that does not exist yet: its absolute, normalised
// form), for comparing paths: two arguments naming one file are the same file however they are spelled.
std::filesystem::path resolved_path(const std::filesystem::path& p);

// Refuses (std::invalid_argument) an output path that names the same file as an input or as another output, e.g.
// "--out o.npy is the same file as --q o.npy", and two outputs that are both "-" (standard output holds one file).
// Each entry is (option, path); empty paths are skipped.
using NamedPath = std::pair<std::string, std::string>;
void check_distinct_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace favorlab
