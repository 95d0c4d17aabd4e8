// libFuzzer target for the .npy reader (io/npy.hpp, io/npy_heads.hpp): scripts/fuzz.sh builds and runs it.
//
// Expected outcomes for any input: decode_npy returns an array, or throws std::invalid_argument "fuzz: problem".
// Everything else is a finding and ends the run: another exception type (libFuzzer reports it as a deadly signal
// after std::terminate), a crash or a sanitizer report, an allocation beyond -malloc_limit_mb (a size taken from the
// header's claimed shape before the data was checked), or one of the checks below failing (abort with a message):
//   - a decoded array holds exactly as many values as its shape says, all finite (decode refuses NaN/Inf);
//   - read_npy on the same bytes written to a file agrees with decode_npy (same outcome, same array), and
//     read_npy_header on it reports the same shape and dtype;
//   - encode_npy(decoded) decodes to the same shape, dtype and bit-identical values, and re-encoding that gives
//     the same bytes (the writer's output is canonical);
//   - npy_to_heads<float>/<double> either throws std::invalid_argument "fuzz: ..." or returns heads holding the
//     values (as float or double) in C order, and heads_to_npy gives the array back.
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "io/npy.hpp"
#include "io/npy_heads.hpp"

namespace fl = favorlab;

namespace {

// Inputs beyond this are skipped (scripts/fuzz.sh also passes -max_len): larger files only slow the run down, and the
// size checks work on any size.
constexpr std::size_t kMaxInput = 1 << 20;
const std::string kSource = "fuzz";

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "npy_fuzz: BUG: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

void require(bool ok, const std::string& what) {
  if (!ok) bug(what);
}

// An error message must name its source first ("fuzz: problem"), as io/npy.hpp promises.
void require_named(const std::invalid_argument& e, const char* where) {
  const std::string_view message = e.what();
  require(message.substr(0, kSource.size() + 2) == kSource + ": ",
          std::string(where) + " threw std::invalid_argument without the source name: '" + e.what() + "'");
}

bool same_bits(double a, double b) {
  std::uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

void require_same_array(const fl::NpyArray& a, const fl::NpyArray& b, const char* what) {
  require(a.shape == b.shape, std::string(what) + ": shape " + fl::npy_shape_string(a.shape) + " became " +
                                  fl::npy_shape_string(b.shape));
  require(a.dtype == b.dtype, std::string(what) + ": dtype changed");
  require(a.values.size() == b.values.size(), std::string(what) + ": value count changed");
  for (std::size_t i = 0; i < a.values.size(); ++i)
    require(same_bits(a.values[i], b.values[i]), std::string(what) + ": value " + std::to_string(i) + " changed");
}

// A file for read_npy, in a directory of this process's own (removed at exit).
std::filesystem::path g_dir;
std::filesystem::path g_file;

void remove_dir() {
  std::error_code ec;
  std::filesystem::remove_all(g_dir, ec);
}

void write_file(const std::uint8_t* data, std::size_t size) {
  const int fd = ::open(g_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) bug("cannot write " + g_file.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) bug("cannot write " + g_file.string() + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

template <class T>
void check_heads(const fl::NpyArray& array) {
  std::vector<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> heads;
  try {
    heads = fl::npy_to_heads<T>(array, kSource);
  } catch (const std::invalid_argument& e) {
    require_named(e, "npy_to_heads");
    return;
  }
  const std::size_t rank = array.shape.size();
  require(rank == 2 || rank == 3, "npy_to_heads accepted rank " + std::to_string(rank));
  require(!heads.empty(), "npy_to_heads returned no heads");
  // The heads hold the values in C order, converted to T.
  std::size_t k = 0;
  for (const auto& m : heads) {
    require(m.rows() == static_cast<Eigen::Index>(array.shape[rank - 2]) &&
                m.cols() == static_cast<Eigen::Index>(array.shape[rank - 1]),
            "npy_to_heads: a head's size differs from the shape");
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j, ++k) {
        require(k < array.values.size(), "npy_to_heads: more matrix entries than values");
        const T expected = static_cast<T>(array.values[k]);
        require(std::isfinite(m(i, j)) && same_bits(static_cast<double>(m(i, j)), static_cast<double>(expected)),
                "npy_to_heads: entry differs from the value (or overflowed without an error)");
      }
  }
  require(k == array.values.size(), "npy_to_heads: fewer matrix entries than values");
  // And back: heads_to_npy gives the shape and the converted values.
  const fl::NpyArray back = fl::heads_to_npy<T>(heads, rank == 2);
  require(back.shape == array.shape, "heads_to_npy: shape " + fl::npy_shape_string(array.shape) + " came back as " +
                                         fl::npy_shape_string(back.shape));
  for (std::size_t i = 0; i < back.values.size(); ++i)
    require(same_bits(back.values[i], static_cast<double>(static_cast<T>(array.values[i]))),
            "heads_to_npy: value " + std::to_string(i) + " changed");
}

void check_round_trip(const fl::NpyArray& array) {
  const std::string encoded = fl::encode_npy(array.shape, array.values, array.dtype, kSource);
  fl::NpyArray decoded;
  try {
    decoded = fl::decode_npy(encoded, kSource);
  } catch (const std::invalid_argument& e) {
    bug(std::string("decode_npy refused encode_npy's output: ") + e.what());
  }
  require_same_array(array, decoded, "encode_npy/decode_npy round trip");
  require(fl::encode_npy(decoded.shape, decoded.values, decoded.dtype, kSource) == encoded,
          "encode_npy is not canonical: re-encoding the round trip gives other bytes");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "npy_fuzz.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) bug("cannot create a temporary directory: " + std::string(std::strerror(errno)));
  g_dir = pattern;
  g_file = g_dir / "input.npy";
  std::atexit(remove_dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInput) return -1;  // not added to the corpus
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  bool decoded_ok = false;
  fl::NpyArray array;
  try {
    array = fl::decode_npy(bytes, kSource);
    decoded_ok = true;
  } catch (const std::invalid_argument& e) {
    require_named(e, "decode_npy");
  }

  // The file reader on the same bytes: the same verdict and the same array. Its messages name the path.
  write_file(data, size);
  bool read_ok = false;
  fl::NpyArray from_file;
  try {
    from_file = fl::read_npy(g_file);
    read_ok = true;
  } catch (const std::invalid_argument&) {
  }
  require(read_ok == decoded_ok, decoded_ok ? "read_npy refused what decode_npy accepted"
                                            : "read_npy accepted what decode_npy refused");
  if (!decoded_ok) return 0;
  require_same_array(array, from_file, "read_npy versus decode_npy");
  fl::NpyHeader header;
  try {
    header = fl::read_npy_header(g_file);
  } catch (const std::invalid_argument& e) {
    bug(std::string("read_npy_header refused a file read_npy accepted: ") + e.what());
  }
  require(header.shape == array.shape && header.dtype == array.dtype, "read_npy_header disagrees with read_npy");
  require(header.data_offset > 0 && static_cast<std::size_t>(header.data_offset) <= size,
          "read_npy_header: data offset outside the file");

  // The decoded array itself.
  std::size_t count = 1;
  for (const std::int64_t d : array.shape) {
    require(d >= 0, "decoded a negative dimension");
    count *= static_cast<std::size_t>(d);  // cannot overflow: the data is in the input
  }
  require(count == array.values.size(), "shape " + fl::npy_shape_string(array.shape) + " but " +
                                            std::to_string(array.values.size()) + " values");
  const std::size_t item = fl::npy_item_size(array.dtype);
  require(static_cast<std::size_t>(header.data_offset) + count * item == size, "data size disagrees with the file size");
  for (const double v : array.values) require(std::isfinite(v), "decoded a non-finite value");

  check_round_trip(array);
  check_heads<float>(array);
  check_heads<double>(array);
  return 0;
}
