#include "io/input_file.hpp"

#include <cstdio>
#include <stdexcept>

namespace favorlab {

namespace {

const char* kind_of(std::filesystem::file_type t) {
  switch (t) {
    case std::filesystem::file_type::directory: return "a directory";
    case std::filesystem::file_type::fifo: return "a FIFO or pipe";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

}  // namespace

std::string printable(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else out += c;
  }
  return out;
}

void check_input_file(const std::filesystem::path& path, const std::string& what) {
  const std::string name = (what.empty() ? "" : what + " ") + printable(path.string());
  if (path.empty()) throw std::invalid_argument(what + ": an empty path names no file");
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found)
    throw std::invalid_argument(name + ": no such file");
  if (ec) throw std::invalid_argument(name + ": cannot examine it (" + ec.message() + ")");
  if (!std::filesystem::is_regular_file(status))
    throw std::invalid_argument(name + ": it is " + std::string(kind_of(status.type())) +
                                ", not a regular file (inputs are read from regular files only: save it to one)");
}

}  // namespace favorlab
