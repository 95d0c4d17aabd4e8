#include "io/json_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/input_file.hpp"

namespace favorlab {

namespace {

using Json = nlohmann::ordered_json;

struct TooDeep {};

// Closes the descriptor on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string human_bytes(std::uintmax_t n) {
  if (n >= (std::uintmax_t{1} << 30) && n % (std::uintmax_t{1} << 30) == 0) return std::to_string(n >> 30) + " GiB";
  if (n >= (std::uintmax_t{1} << 20) && n % (std::uintmax_t{1} << 20) == 0) return std::to_string(n >> 20) + " MiB";
  return std::to_string(n) + " bytes";
}

}  // namespace

Json parse_json_bounded(const std::string& text, const std::string& source) {
  // The callback sees each container open at its depth; throwing there stops the parser before the document gets
  // deeper (nlohmann's parser itself keeps an explicit stack, and its destructor is iterative).
  const Json::parser_callback_t bound = [](int depth, Json::parse_event_t event, Json&) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return Json::parse(text, bound);
  } catch (const TooDeep&) {
    throw std::invalid_argument(source + ": nested more than " + std::to_string(kMaxJsonDepth) +
                                " levels deep: not a favorlab result file");
  } catch (const Json::out_of_range& e) {
    // 406: a number beyond double's range (1e400).
    throw std::invalid_argument(source + ": a number out of range (" + printable(e.what()) + ")");
  } catch (const Json::exception& e) {
    throw std::invalid_argument(source + ": not JSON (" + printable(e.what()) + ")");
  }
}

Json read_json_file(const std::filesystem::path& path, const std::string& what, std::uintmax_t max_bytes) {
  check_input_file(path, what);
  const std::string source = (what.empty() ? "" : what + " ") + printable(path.string());
  // Opened once, without blocking (the path may have become a FIFO since it was checked), and checked again on the
  // descriptor that is read.
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f.fd < 0) throw std::invalid_argument(source + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw std::invalid_argument(source + ": not a regular file");
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > max_bytes)
    throw std::invalid_argument(source + ": " + std::to_string(size) + " bytes, more than the " +
                                human_bytes(max_bytes) + " such a file may have");
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::invalid_argument(source + ": cannot read (" + std::strerror(errno) + ")");
    if (n == 0) break;  // shrunk meanwhile: parse what is there
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);  // a file grown meanwhile: only the size checked above is read
  return parse_json_bounded(text, source);
}

std::string dump_json(const Json& doc, int indent) {
  return doc.dump(indent, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace favorlab
