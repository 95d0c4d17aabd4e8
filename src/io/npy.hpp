#pragma once
// NumPy .npy files of float16/float32/float64 arrays: how users hand Q, K, V and a projection W to the attention
// engine, and how it hands results back.
//
// Format (numpy.lib.format): the magic string "\x93NUMPY", a version byte pair, the header length (little-endian
// uint16 for version 1.0, uint32 for 2.0 and 3.0), an ASCII Python dict
//   {'descr': '<f8', 'fortran_order': False, 'shape': (L, d), }
// padded with spaces and ending in '\n', then the raw element bytes.
//
// read_npy accepts versions 1.0/2.0/3.0, descr '<f2' '<f4' '<f8' and their big-endian '>' forms (byte-swapped) and
// native spellings '|f4' '=f8' etc., fortran_order True (reordered to C order), any rank (0-d included: one value) and
// any header alignment. It returns the values in C (row-major) order as double; float16 and float32 → double are
// exact. bfloat16 has no numpy dtype (ml_dtypes saves it as a 2-byte void '<V2'), so it is refused with a hint.
// Every problem throws std::invalid_argument "PATH: problem", the problem being one of: cannot open, not a .npy
// file (bad magic), unsupported version, truncated header, malformed header (naming the key), unsupported dtype
// (naming it), shape with too many elements, truncated data (expected N bytes, found M), trailing bytes, and
// non-finite values ("contains NaN/Inf (3 values, first at [12, 5])"). Checking the rank is the caller's job.
//
// write_npy writes version 1.0 (2.0 only when the header needs more than 65535 bytes), little-endian, C order, the
// data starting at a multiple of 64 bytes, atomically (a temporary file renamed over the target, so a failed write
// leaves the old file or none). It writes non-finite values as they are: outputs are the caller's to check. float16
// values are rounded to nearest even once (double_to_float16), from ±65520 on to ±∞.
// A shape whose element count differs from values.size() throws std::invalid_argument "PATH: ..." before any file is
// touched; an unwritable path throws OutputError (io/atomic_file.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace favorlab {

enum class NpyDtype { float16, float32, float64 };

std::size_t npy_item_size(NpyDtype dtype);  // 2, 4, 8
const char* npy_descr(NpyDtype dtype);      // "<f2", "<f4", "<f8": what write_npy writes

struct NpyArray {
  std::vector<std::int64_t> shape;  // as in the file
  NpyDtype dtype = NpyDtype::float64;  // of the file
  std::vector<double> values;       // C (row-major) order, converted to double
};

NpyArray read_npy(const std::filesystem::path& path);

// The shape and dtype of a .npy file from its header alone (and, for a regular file, its size): what a command
// needs to predict its memory before reading the data. The same errors as read_npy but the data's own (NaN/Inf;
// truncation of a pipe or a device, which has no size to check). A non-.npy file is refused after a few bytes.
struct NpyHeader {
  std::vector<std::int64_t> shape;
  NpyDtype dtype = NpyDtype::float64;
  std::int64_t data_offset = 0;
};
NpyHeader read_npy_header(const std::filesystem::path& path);
void write_npy(const std::filesystem::path& path, const std::vector<std::int64_t>& shape,
               std::span<const double> values, NpyDtype dtype);

// The two halves of the above without the file: `source` names the bytes in error messages ("source: problem").
NpyArray decode_npy(std::string_view bytes, const std::string& source);
std::string encode_npy(const std::vector<std::int64_t>& shape, std::span<const double> values, NpyDtype dtype,
                       const std::string& source);

// A shape as Python writes it: "()", "(5,)", "(2, 3)".
std::string npy_shape_string(const std::vector<std::int64_t>& shape);

}  // namespace favorlab
