#pragma once
// One rule for every input path a command reads: it must name a regular file (symbolic links followed). A FIFO would
// block the run until some other process writes to it, a device such as /dev/zero never ends, and a pipe cannot be
// read twice (a .npy reader reads the header, then the data): all are refused by name before anything is opened.
#include <filesystem>
#include <string>

namespace favorlab {

// Throws std::invalid_argument "WHAT PATH: problem" (WHAT: the option, e.g. "--q"; may be empty) when `path` is
// empty, does not exist, or is not a regular file ("is a FIFO, not a regular file: ...").
void check_input_file(const std::filesystem::path& path, const std::string& what);

// A value for messages: control characters (a raw newline would split the one-line error) written as \n, \t or \xNN.
std::string printable(const std::string& text);

}  // namespace favorlab
