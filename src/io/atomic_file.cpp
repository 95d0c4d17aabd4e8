#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace favorlab {

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
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
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
}

}  // namespace favorlab
