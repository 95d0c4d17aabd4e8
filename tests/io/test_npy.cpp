// .npy input/output: round trips, hand-assembled files byte by byte (versions, byte orders, Fortran order), numpy
// itself on both sides, every rejected input, and the (L, d) / (H, L, d) ↔ heads conversion.
#include <Eigen/Core>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>

#include "cli_runner.hpp"
#include "io/atomic_file.hpp"
#include "io/half_float.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"

using namespace favorlab;
namespace fs = std::filesystem;
using Catch::Contains;

namespace {

// Expects std::invalid_argument whose message names the file and the problem.
#define REQUIRE_NPY_ERROR(expr, path, problem)                                     \
  do {                                                                             \
    REQUIRE_THROWS_AS(expr, std::invalid_argument);                                \
    REQUIRE_THROWS_WITH(expr, Contains((path).string()) && Contains(problem));     \
  } while (false)

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Element bytes in an explicit byte order, independent of the machine's and of the code under test.
std::string f8_bytes(const std::vector<double>& v, bool big_endian) {
  std::string s;
  for (const double x : v) {
    const auto u = std::bit_cast<std::uint64_t>(x);
    for (int i = 0; i < 8; ++i) s += static_cast<char>((u >> (8 * (big_endian ? 7 - i : i))) & 0xff);
  }
  return s;
}
std::string f4_bytes(const std::vector<float>& v, bool big_endian) {
  std::string s;
  for (const float x : v) {
    const auto u = std::bit_cast<std::uint32_t>(x);
    for (int i = 0; i < 4; ++i) s += static_cast<char>((u >> (8 * (big_endian ? 3 - i : i))) & 0xff);
  }
  return s;
}

// A .npy file assembled by hand: magic, version, header length (2 bytes for 1.x, 4 otherwise), the dict padded with
// spaces and a '\n' so that the data starts at a multiple of `align` (1: no padding), then the data.
std::string npy_bytes(int major, int minor, const std::string& dict, const std::string& data, std::size_t align = 64) {
  const std::size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((preamble + header.size() + 1) % align != 0) header += ' ';
  header += '\n';
  std::string s = "\x93NUMPY";
  s += static_cast<char>(major);
  s += static_cast<char>(minor);
  for (std::size_t i = 0; i < preamble - 8; ++i) s += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return s + header + data;
}

std::string dict(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
         ", }";
}

// Values with all kinds of mantissas and exponents, so a misplaced or mis-swapped byte cannot go unnoticed.
std::vector<double> test_values(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = std::sin(1.0 + static_cast<double>(i)) * std::pow(10.0, static_cast<double>(i % 7) - 3.0);
  return v;
}

std::size_t data_offset(const std::string& file) {
  const std::size_t preamble = file[6] == 1 ? 10 : 12;
  std::size_t length = 0;
  for (std::size_t i = 0; i < preamble - 8; ++i) length |= std::size_t{static_cast<unsigned char>(file[8 + i])} << (8 * i);
  return preamble + length;
}

// Runs a Python script in `dir`; returns its exit status, 127 when there is no /usr/bin/python3. Scripts begin with
// kImportNumpy, so 77 means numpy is missing (one interpreter start instead of a separate probe: numpy's import is
// most of this file's run time).
constexpr const char* kImportNumpy = R"(
try:
    import numpy as np
except ImportError:
    raise SystemExit(77)
)";

int run_python(const fs::path& dir, const std::string& script) {
  const fs::path file = dir / "script.py";
  std::ofstream(file) << kImportNumpy << script;
  const std::string cmd = "cd '" + dir.string() + "' && /usr/bin/python3 '" + file.string() + "' >'" +
                          (dir / "python.log").string() + "' 2>&1";
  const int raw = std::system(cmd.c_str());
  const int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  if (status != 0) UNSCOPED_INFO("python output:\n" << testing::read_text(dir / "python.log"));
  return status;
}

}  // namespace

TEST_CASE("npy round trip keeps shape, dtype and values", "[npy]") {
  const auto dir = testing::scratch_dir("npy-roundtrip");
  const std::vector<std::vector<std::int64_t>> shapes = {{}, {7}, {3, 5}, {2, 3, 4}, {0, 3}, {1, 1, 2, 1}};
  for (const NpyDtype dtype : {NpyDtype::float64, NpyDtype::float32, NpyDtype::float16}) {
    for (const auto& shape : shapes) {
      std::size_t n = 1;
      for (const auto d : shape) n *= static_cast<std::size_t>(d);
      const auto values = test_values(n);
      const fs::path p = dir / "a.npy";
      write_npy(p, shape, values, dtype);
      const std::string file = read_bytes(p);
      INFO("shape " << npy_shape_string(shape) << " " << npy_descr(dtype));
      CHECK(file[6] == 1);
      CHECK(file[7] == 0);
      CHECK(data_offset(file) % 64 == 0);
      CHECK(file.size() - data_offset(file) == n * npy_item_size(dtype));
      const NpyArray a = read_npy(p);
      CHECK(a.shape == shape);
      CHECK(a.dtype == dtype);
      REQUIRE(a.values.size() == n);
      for (std::size_t i = 0; i < n; ++i) {
        const double expected = dtype == NpyDtype::float16   ? float16_to_float(double_to_float16(values[i]))
                                : dtype == NpyDtype::float32 ? static_cast<double>(static_cast<float>(values[i]))
                                                             : values[i];
        CHECK(a.values[i] == expected);
      }
    }
  }
  // The writer's header is the one numpy writes.
  write_npy(dir / "h.npy", {2, 3}, test_values(6), NpyDtype::float64);
  const std::string file = read_bytes(dir / "h.npy");
  CHECK(file.substr(10, 63) == "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }    ");
  CHECK(file[data_offset(file) - 1] == '\n');
  fs::remove_all(dir);
}

TEST_CASE("npy writer switches to version 2.0 only for a header beyond 65535 bytes", "[npy]") {
  const auto dir = testing::scratch_dir("npy-v2");
  const std::vector<std::int64_t> shape(22000, 1);  // "1, " × 22000: a 66 kB header
  write_npy(dir / "big.npy", shape, std::vector<double>{2.5}, NpyDtype::float64);
  const std::string file = read_bytes(dir / "big.npy");
  CHECK(file[6] == 2);
  CHECK(data_offset(file) % 64 == 0);
  const NpyArray a = read_npy(dir / "big.npy");
  CHECK(a.shape == shape);
  CHECK(a.values == std::vector<double>{2.5});
  fs::remove_all(dir);
}

TEST_CASE("npy writer is atomic and checks the shape first", "[npy]") {
  const auto dir = testing::scratch_dir("npy-atomic");
  const fs::path p = dir / "keep.npy";
  write_npy(p, {2}, std::vector<double>{1.0, 2.0}, NpyDtype::float64);
  const std::string before = read_bytes(p);
  REQUIRE_NPY_ERROR(write_npy(p, {2, 3}, std::vector<double>(5, 1.0), NpyDtype::float64), p, "holds 6 values, 5 given");
  REQUIRE_NPY_ERROR(write_npy(p, {-2, 3}, std::vector<double>(6, 1.0), NpyDtype::float32), p, "negative dimension");
  CHECK(read_bytes(p) == before);
  // Non-finite values are written as they are.
  const double inf = std::numeric_limits<double>::infinity();
  write_npy(dir / "inf.npy", {2}, std::vector<double>{inf, 1.0}, NpyDtype::float64);
  CHECK(read_bytes(dir / "inf.npy").size() == 128 + 16);
  CHECK_THROWS_AS(write_npy(dir / "missing" / "x.npy", {1}, std::vector<double>{1.0}, NpyDtype::float64),
                  OutputError);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  CHECK(files == 2);  // keep.npy, inf.npy: no temporary left behind
  fs::remove_all(dir);
}

TEST_CASE("npy reader reads hand-assembled files", "[npy]") {
  const auto dir = testing::scratch_dir("npy-hand");
  const fs::path p = dir / "hand.npy";
  const auto read = [&](const std::string& bytes) {
    write_bytes(p, bytes);
    return read_npy(p);
  };
  const std::vector<double> six = {1.5, -2.25, 3e-300, 4e300, -0.0, 6.125};

  SECTION("version 1.0, little-endian float64") {
    const auto a = read(npy_bytes(1, 0, dict("<f8", false, "(2, 3)"), f8_bytes(six, false)));
    CHECK(a.shape == std::vector<std::int64_t>{2, 3});
    CHECK(a.dtype == NpyDtype::float64);
    CHECK(a.values == six);
    CHECK(std::signbit(a.values[4]));
  }
  SECTION("version 2.0 and 3.0, float32") {
    const std::vector<float> f = {0.1f, -7.5f, 1e30f};
    for (int major : {2, 3}) {
      const auto a = read(npy_bytes(major, 0, dict("<f4", false, "(3,)"), f4_bytes(f, false)));
      CHECK(a.shape == std::vector<std::int64_t>{3});
      CHECK(a.dtype == NpyDtype::float32);
      CHECK(a.values == std::vector<double>{0.1f, -7.5f, 1e30f});
    }
  }
  SECTION("big-endian float64 and float32 are byte-swapped") {
    const auto a = read(npy_bytes(1, 0, dict(">f8", false, "(2, 3)"), f8_bytes(six, true)));
    CHECK(a.values == six);
    const auto b = read(npy_bytes(1, 0, dict(">f4", false, "(2,)"), f4_bytes({0.1f, -3e-20f}, true)));
    CHECK(b.dtype == NpyDtype::float32);
    CHECK(b.values == std::vector<double>{0.1f, -3e-20f});
  }
  SECTION("float16, both byte orders: widened exactly") {
    // 1.5, −2, 65504 (the largest), 2^-24 (the smallest subnormal), −0, 0.1 rounded (0x2e66 = 0.0999755859375).
    const std::vector<std::uint16_t> bits = {0x3e00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x2e66};
    const std::vector<double> expected = {1.5, -2.0, 65504.0, 0x1p-24, -0.0, 0.0999755859375};
    for (const bool big : {false, true}) {
      std::string data;
      for (const std::uint16_t b : bits) {
        data += static_cast<char>(big ? b >> 8 : b & 0xff);
        data += static_cast<char>(big ? b & 0xff : b >> 8);
      }
      const auto a = read(npy_bytes(1, 0, dict(big ? ">f2" : "<f2", false, "(2, 3)"), data));
      CHECK(a.dtype == NpyDtype::float16);
      CHECK(a.shape == std::vector<std::int64_t>{2, 3});
      CHECK(a.values == expected);
      CHECK(std::signbit(a.values[4]));
      // Fortran order: the same bytes are the columns.
      const auto f = read(npy_bytes(1, 0, dict(big ? ">f2" : "<f2", true, "(3, 2)"), data));
      CHECK(f.values == std::vector<double>{1.5, 0x1p-24, -2.0, -0.0, 65504.0, 0.0999755859375});
    }
  }
  SECTION("'|f4' and '=f8' read as native (little-endian) order") {
    if constexpr (std::endian::native == std::endian::little) {
      CHECK(read(npy_bytes(1, 0, dict("|f4", false, "(1,)"), f4_bytes({2.5f}, false))).values[0] == 2.5);
      CHECK(read(npy_bytes(1, 0, dict("=f8", false, "(1,)"), f8_bytes({-4.0}, false))).values[0] == -4.0);
    }
  }
  SECTION("Fortran order 2-D lands in C order") {
    // The 2×3 matrix [[1, 2, 3], [4, 5, 6]] stored column by column.
    const auto a = read(npy_bytes(1, 0, dict("<f8", true, "(2, 3)"), f8_bytes({1, 4, 2, 5, 3, 6}, false)));
    CHECK(a.shape == std::vector<std::int64_t>{2, 3});
    CHECK(a.values == std::vector<double>{1, 2, 3, 4, 5, 6});
  }
  SECTION("Fortran order 3-D lands in C order") {
    // a[i][j][k] = 100 i + 10 j + k, shape (2, 3, 4); Fortran order lists i fastest, then j, then k.
    std::vector<double> fortran, c;
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 2; ++i) fortran.push_back(100 * i + 10 * j + k);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) c.push_back(100 * i + 10 * j + k);
    const auto a = read(npy_bytes(1, 0, dict(">f8", true, "(2, 3, 4)"), f8_bytes(fortran, true)));
    CHECK(a.values == c);
    CHECK(read(npy_bytes(1, 0, dict("<f8", true, "(3,)"), f8_bytes({1, 2, 3}, false))).values ==
          std::vector<double>{1, 2, 3});
  }
  SECTION("any alignment, key order, quotes and spacing") {
    CHECK(read(npy_bytes(1, 0, dict("<f8", false, "(2, 3)"), f8_bytes(six, false), 16)).values == six);
    CHECK(read(npy_bytes(1, 0, dict("<f8", false, "(2, 3)"), f8_bytes(six, false), 1)).values == six);
    const auto a = read(npy_bytes(1, 0, "{ \"shape\" : (3L,2L) ,\"fortran_order\":False,'descr':'<f8'}",
                                  f8_bytes(six, false)));
    CHECK(a.shape == std::vector<std::int64_t>{3, 2});
    CHECK(a.values == six);
  }
  SECTION("0-d and empty arrays") {
    const auto scalar = read(npy_bytes(1, 0, dict("<f8", false, "()"), f8_bytes({42.0}, false)));
    CHECK(scalar.shape.empty());
    CHECK(scalar.values == std::vector<double>{42.0});
    const auto empty = read(npy_bytes(1, 0, dict("<f4", false, "(0, 5)"), ""));
    CHECK(empty.shape == std::vector<std::int64_t>{0, 5});
    CHECK(empty.values.empty());
    // A zero dimension makes the array empty however large the others are.
    CHECK(read(npy_bytes(1, 0, dict("<f8", false, "(0, 9223372036854775807)"), "")).values.empty());
  }
  fs::remove_all(dir);
}

TEST_CASE("npy reader names the file and the problem", "[npy]") {
  const auto dir = testing::scratch_dir("npy-bad");
  const fs::path p = dir / "bad.npy";
  const auto good_data = f8_bytes({1, 2, 3, 4, 5, 6}, false);

  SECTION("cannot open") {
    REQUIRE_NPY_ERROR(read_npy(dir / "absent.npy"), dir / "absent.npy", "cannot open: No such file");
    REQUIRE_NPY_ERROR(read_npy(dir), dir, "cannot open: it is a directory");
  }
  SECTION("not a .npy file") {
    write_bytes(p, "");
    REQUIRE_NPY_ERROR(read_npy(p), p, "not a .npy file (bad magic");
    write_bytes(p, "PK\x03\x04 this is a zip");
    REQUIRE_NPY_ERROR(read_npy(p), p, "not a .npy file (bad magic");
    write_bytes(p, "\x93NUMP");
    REQUIRE_NPY_ERROR(read_npy(p), p, "not a .npy file");
  }
  SECTION("unsupported version") {
    write_bytes(p, npy_bytes(4, 0, dict("<f8", false, "(6,)"), good_data));
    REQUIRE_NPY_ERROR(read_npy(p), p, "unsupported .npy version 4.0");
    write_bytes(p, npy_bytes(1, 1, dict("<f8", false, "(6,)"), good_data));
    REQUIRE_NPY_ERROR(read_npy(p), p, "unsupported .npy version 1.1");
  }
  SECTION("truncated header") {
    const std::string full = npy_bytes(1, 0, dict("<f8", false, "(6,)"), good_data);
    write_bytes(p, full.substr(0, 7));
    REQUIRE_NPY_ERROR(read_npy(p), p, "truncated header");
    write_bytes(p, full.substr(0, 9));
    REQUIRE_NPY_ERROR(read_npy(p), p, "truncated header");
    write_bytes(p, full.substr(0, 40));
    REQUIRE_NPY_ERROR(read_npy(p), p, "truncated header: the header declares 118 bytes, the file has 30");
  }
  SECTION("malformed header, naming the key") {
    const auto check = [&](const std::string& d, const std::string& problem) {
      write_bytes(p, npy_bytes(1, 0, d, good_data));
      INFO(d);
      REQUIRE_NPY_ERROR(read_npy(p), p, "malformed header: " + problem);
    };
    check("{'descr': '<f8', 'fortran_order': False}", "missing key 'shape'");
    check("{'descr': '<f8', 'shape': (6,)}", "missing key 'fortran_order'");
    check("{'fortran_order': False, 'shape': (6,)}", "missing key 'descr'");
    check("{'descr': '<f8', 'fortran_order': false, 'shape': (6,)}", "key 'fortran_order': expected True or False");
    check("{'descr': <f8, 'fortran_order': False, 'shape': (6,)}", "key 'descr': expected a quoted dtype string");
    check("{'descr': '<f8', 'fortran_order': False, 'shape': [6]}", "key 'shape': expected a tuple");
    check("{'descr': '<f8', 'fortran_order': False, 'shape': (6)}", "key 'shape': (6) is not a tuple");
    check("{'descr': '<f8', 'fortran_order': False, 'shape': (2, x)}", "key 'shape': expected a non-negative integer");
    check("{'descr': '<f8', 'fortran_order': False, 'shape': (01, 6)}", "key 'shape': dimension 01 has a leading zero");
    check("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3}", "key 'shape': expected ',' or ')'");
    check("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'extra': 1}", "unexpected key 'extra'");
    check("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (6,)}", "key 'descr' appears twice");
    check("['descr', '<f8']", "expected a dict");
    check("{'descr': '<f8', 'fortran_order': False, 'shape': (6,)} junk", "unexpected text after the closing '}'");
    check("{'descr': '<f8' 'fortran_order': False, 'shape': (6,)}", "expected ',' or '}' after the value of key 'descr'");
  }
  SECTION("absurd shapes") {
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(-2, 3)"), good_data));
    REQUIRE_NPY_ERROR(read_npy(p), p, "key 'shape': negative dimension -2");
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(4294967296, 4294967296)"), good_data));
    REQUIRE_NPY_ERROR(read_npy(p), p, "shape (4294967296, 4294967296) has too many elements");
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(1152921504606846976,)"), good_data));  // 2^60 · 8 bytes
    REQUIRE_NPY_ERROR(read_npy(p), p, "too many elements");
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(99999999999999999999,)"), good_data));
    REQUIRE_NPY_ERROR(read_npy(p), p, "key 'shape': dimension 99999999999999999999 is too large");
  }
  SECTION("headers alone; devices refused, non-.npy files after their first bytes") {
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(2, 3)"), good_data));
    const NpyHeader h = read_npy_header(p);
    CHECK(h.shape == std::vector<std::int64_t>{2, 3});
    CHECK(h.dtype == NpyDtype::float64);
    CHECK(h.data_offset == static_cast<std::int64_t>(fs::file_size(p)) - 48);
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(3, 3)"), good_data));  // 48 bytes for 72 promised
    REQUIRE_NPY_ERROR(read_npy_header(p), p, "truncated data");
    // An endless device is not even opened: inputs are regular files (io/input_file.hpp).
    REQUIRE_NPY_ERROR(read_npy(fs::path("/dev/zero")), fs::path("/dev/zero"), "not a regular file");
    REQUIRE_NPY_ERROR(read_npy_header(fs::path("/dev/zero")), fs::path("/dev/zero"), "not a regular file");
    write_bytes(p, "not a .npy file at all, of any length");
    REQUIRE_NPY_ERROR(read_npy_header(p), p, "not a .npy file (bad magic");
  }
  SECTION("unsupported dtype, named") {
    for (const std::string descr : {"<i4", "<i2", "<e", "<c16", "|u1", "<f16", "float64", "float16", "O"}) {
      write_bytes(p, npy_bytes(1, 0, dict(descr, false, "(6,)"), good_data));
      REQUIRE_NPY_ERROR(read_npy(p), p,
                        "unsupported dtype '" + descr + "': only float16/float32/float64 are supported");
    }
    // bfloat16 from ml_dtypes arrives as 2-byte voids: refused, with the way out.
    write_bytes(p, npy_bytes(1, 0, dict("<V2", false, "(6,)"), good_data.substr(0, 12)));
    REQUIRE_NPY_ERROR(read_npy(p), p, "a bfloat16 array saved through ml_dtypes looks like this");
    REQUIRE_NPY_ERROR(read_npy(p), p, "x.astype(numpy.float32)");
    write_bytes(p, npy_bytes(1, 0, "{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (6,)}", good_data));
    REQUIRE_NPY_ERROR(read_npy(p), p, "unsupported dtype [('x', '<f8')] (a structured dtype)");
  }
  SECTION("truncated data and trailing bytes") {
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(2, 3)"), good_data.substr(0, 40)));
    REQUIRE_NPY_ERROR(read_npy(p), p, "truncated data: expected 48 bytes");
    REQUIRE_NPY_ERROR(read_npy(p), p, "found 40");
    write_bytes(p, npy_bytes(1, 0, dict("<f4", false, "(2, 3)"), good_data));
    REQUIRE_NPY_ERROR(read_npy(p), p, "trailing bytes: expected 24 bytes of data, found 48 (24 extra)");
  }
  SECTION("non-finite values: how many and where the first is") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    std::vector<double> v(4 * 6, 1.0);
    v[2 * 6 + 5] = nan;
    v[3 * 6 + 0] = inf;
    v[3 * 6 + 4] = -inf;
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "(4, 6)"), f8_bytes(v, false)));
    REQUIRE_NPY_ERROR(read_npy(p), p, "contains NaN/Inf (3 values, first at [2, 5])");
    // In Fortran order the first bad value in C order is not the first in the file.
    std::vector<float> f(2 * 3, 0.5f);
    f[1] = std::numeric_limits<float>::infinity();  // file position 1 = [1, 0]
    f[4] = std::numeric_limits<float>::quiet_NaN();  // file position 4 = [0, 2]
    write_bytes(p, npy_bytes(1, 0, dict(">f4", true, "(2, 3)"), f4_bytes(f, true)));
    REQUIRE_NPY_ERROR(read_npy(p), p, "contains NaN/Inf (2 values, first at [0, 2])");
    write_bytes(p, npy_bytes(1, 0, dict("<f8", false, "()"), f8_bytes({nan}, false)));
    REQUIRE_NPY_ERROR(read_npy(p), p, "contains NaN/Inf (1 value, first at [])");
    // float16's ∞ (0x7c00) and a NaN (0x7e01), little-endian.
    write_bytes(p, npy_bytes(1, 0, dict("<f2", false, "(2, 2)"), std::string("\x00\x3c\x00\x7c\x01\x7e\x00\x3c", 8)));
    REQUIRE_NPY_ERROR(read_npy(p), p, "contains NaN/Inf (2 values, first at [0, 1])");
  }
  fs::remove_all(dir);
}

TEST_CASE("npy files agree with numpy in both directions", "[npy]") {
  const auto dir = testing::scratch_dir("npy-numpy");
  // numpy writes: a[i, j, k] = 12 i + 4 j + k − 5.75 (exact in float32), in every layout and byte order we accept.
  const int status = run_python(dir, R"(
a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 5.75
np.save('f8.npy', a)
np.save('f4.npy', a.astype(np.float32))
np.save('fortran.npy', np.asfortranarray(a))
np.save('fortran_f4_2d.npy', np.asfortranarray(a[1].astype(np.float32)))
np.save('be8.npy', a.astype('>f8'))
np.save('be4_fortran.npy', np.asfortranarray(a.astype('>f4')))
np.save('vector.npy', a.ravel())
np.save('scalar.npy', np.float64(-5.75))
for v in [(2, 0), (3, 0)]:
    with open('v%d.npy' % v[0], 'wb') as f:
        np.lib.format.write_array(f, a, version=v)
np.save('f2.npy', a.astype(np.float16))
np.save('be2_fortran.npy', np.asfortranarray(a.astype('>f2')))
# float16 values of every kind (subnormals, the largest, -0) and numpy's rounding of doubles to float16.
edge = np.array([0.1, -1/3, 65504.0, 65519.0, 6e-8, 3e-8, 2.9802322387695312e-08, -0.0, 1 + 2**-11 + 2**-40, 1e-5])
np.save('f2_edge.npy', edge.astype(np.float16))
np.save('f2_edge_source.npy', edge)
np.save('int.npy', np.arange(6, dtype=np.int32))
np.save('nan.npy', np.array([[1.0, 2.0], [np.nan, 4.0]]))
)");
  if (status == 127 || status == 77) {
    WARN("/usr/bin/python3 with numpy not found: skipping the cross-check against numpy");
    fs::remove_all(dir);
    return;
  }
  REQUIRE(status == 0);
  const auto expected = [](std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i) - 5.75;
    return v;
  };
  const std::vector<std::int64_t> shape3 = {2, 3, 4};
  for (const char* name : {"f8.npy", "f4.npy", "fortran.npy", "be8.npy", "be4_fortran.npy", "v2.npy", "v3.npy",
                           "f2.npy", "be2_fortran.npy"}) {
    INFO(name);
    const NpyArray a = read_npy(dir / name);
    CHECK(a.shape == shape3);
    CHECK(a.values == expected(24));
    const std::string n = name;
    CHECK(a.dtype == (n.find('2') != std::string::npos && n[0] != 'v' ? NpyDtype::float16
                      : n.find('4') != std::string::npos               ? NpyDtype::float32
                                                                       : NpyDtype::float64));
  }
  {  // numpy's double → float16 rounding is ours: the same values read back as written from the source doubles.
    const NpyArray ours = read_npy(dir / "f2_edge.npy"), source = read_npy(dir / "f2_edge_source.npy");
    REQUIRE(ours.values.size() == source.values.size());
    for (std::size_t i = 0; i < source.values.size(); ++i) {
      INFO("value " << source.values[i]);
      CHECK(ours.values[i] == float16_to_float(double_to_float16(source.values[i])));
    }
  }
  {
    const NpyArray a = read_npy(dir / "fortran_f4_2d.npy");
    CHECK(a.shape == std::vector<std::int64_t>{3, 4});
    const auto all = expected(24);
    const std::vector<double> second(all.begin() + 12, all.end());
    CHECK(a.values == second);
  }
  CHECK(read_npy(dir / "vector.npy").shape == std::vector<std::int64_t>{24});
  CHECK(read_npy(dir / "vector.npy").values == expected(24));
  CHECK(read_npy(dir / "scalar.npy").shape.empty());
  CHECK(read_npy(dir / "scalar.npy").values == std::vector<double>{-5.75});
  REQUIRE_NPY_ERROR(read_npy(dir / "int.npy"), dir / "int.npy", "unsupported dtype '<i4'");
  REQUIRE_NPY_ERROR(read_npy(dir / "nan.npy"), dir / "nan.npy", "contains NaN/Inf (1 value, first at [1, 0])");

  // numpy reads what we write.
  write_npy(dir / "ours_f8.npy", shape3, expected(24), NpyDtype::float64);
  write_npy(dir / "ours_f4.npy", {4, 6}, expected(24), NpyDtype::float32);
  write_npy(dir / "ours_1d.npy", {24}, expected(24), NpyDtype::float64);
  write_npy(dir / "ours_0d.npy", {}, std::vector<double>{-5.75}, NpyDtype::float32);
  write_npy(dir / "ours_empty.npy", {0, 3}, std::vector<double>{}, NpyDtype::float64);
  write_npy(dir / "ours_f2.npy", {3, 8}, expected(24), NpyDtype::float16);
  CHECK(run_python(dir, R"(
a = np.arange(24, dtype=np.float64) - 5.75
def check(name, dtype, shape, values):
    x = np.load(name)
    assert x.dtype == np.dtype(dtype), (name, x.dtype)
    assert x.shape == shape, (name, x.shape)
    assert x.flags['C_CONTIGUOUS'], name
    assert np.array_equal(x, values), (name, x)
check('ours_f8.npy', '<f8', (2, 3, 4), a.reshape(2, 3, 4))
check('ours_f4.npy', '<f4', (4, 6), a.reshape(4, 6))
check('ours_1d.npy', '<f8', (24,), a)
check('ours_0d.npy', '<f4', (), np.float32(-5.75))
check('ours_empty.npy', '<f8', (0, 3), np.zeros((0, 3)))
check('ours_f2.npy', '<f2', (3, 8), a.reshape(3, 8))
)") == 0);
  fs::remove_all(dir);
}

TEST_CASE("npy arrays convert to and from attention heads", "[npy]") {
  NpyArray two;  // (L, d) = (2, 3): [[1, 2, 3], [4, 5, 6]]
  two.shape = {2, 3};
  two.values = {1, 2, 3, 4, 5, 6};
  NpyArray three;  // (H, L, d) = (2, 3, 2): head h, row i, column j holds 100 h + 10 i + j
  three.shape = {2, 3, 2};
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) three.values.push_back(100 * h + 10 * i + j);

  SECTION("(L, d) is one head, row-major") {
    const auto heads = npy_to_heads<double>(two, "Q");
    REQUIRE(heads.size() == 1);
    REQUIRE(heads[0].rows() == 2);
    REQUIRE(heads[0].cols() == 3);
    CHECK(heads[0](0, 1) == 2);
    CHECK(heads[0](1, 0) == 4);
    CHECK(heads[0](1, 2) == 6);
    const NpyArray back = heads_to_npy(heads, true);
    CHECK(back.shape == two.shape);
    CHECK(back.values == two.values);
    CHECK(back.dtype == NpyDtype::float64);
    CHECK(heads_to_npy(heads, false).shape == std::vector<std::int64_t>{1, 2, 3});
  }
  SECTION("(H, L, d) is H heads") {
    const auto heads = npy_to_heads<float>(three, "K");
    REQUIRE(heads.size() == 2);
    for (int h = 0; h < 2; ++h) {
      REQUIRE(heads[static_cast<std::size_t>(h)].rows() == 3);
      REQUIRE(heads[static_cast<std::size_t>(h)].cols() == 2);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j) CHECK(heads[static_cast<std::size_t>(h)](i, j) == 100 * h + 10 * i + j);
    }
    const NpyArray back = heads_to_npy(heads, false);
    CHECK(back.shape == three.shape);
    CHECK(back.values == three.values);
    CHECK(back.dtype == NpyDtype::float32);
    CHECK_THROWS_WITH(heads_to_npy(heads, true), Contains("cannot drop the head axis of 2 heads"));
  }
  SECTION("through a file") {
    const auto dir = testing::scratch_dir("npy-heads");
    const NpyArray a = heads_to_npy(npy_to_heads<double>(three, "V"), false);
    write_npy(dir / "v.npy", a.shape, a.values, a.dtype);
    const auto heads = npy_to_heads<double>(read_npy(dir / "v.npy"), "V");
    CHECK(heads[1](2, 1) == 121);
    fs::remove_all(dir);
  }
  SECTION("wrong ranks and bad arguments") {
    NpyArray a;
    a.values = {1, 2, 3, 4};
    a.shape = {4};
    CHECK_THROWS_AS(npy_to_heads<double>(a, "Q"), std::invalid_argument);
    CHECK_THROWS_WITH(npy_to_heads<double>(a, "Q (q.npy)"),
                      Contains("Q (q.npy): expected shape (L, d) or (H, L, d), got (4,)"));
    a.shape = {1, 1, 2, 2};
    CHECK_THROWS_WITH(npy_to_heads<float>(a, "W"), Contains("W: expected shape (L, d) or (H, L, d), got (1, 1, 2, 2)"));
    a.shape = {};
    a.values = {1};
    CHECK_THROWS_WITH(npy_to_heads<float>(a, "W"), Contains("got ()"));
    a.shape = {2, 3};
    a.values = {1, 2};
    CHECK_THROWS_WITH(npy_to_heads<double>(a, "K"), Contains("K: expected shape (L, d) or (H, L, d), got (2, 3) with 2 values"));
    a.shape = {1, 2};
    a.values = {1.0, 1e300};
    CHECK_THROWS_WITH(npy_to_heads<float>(a, "K"), Contains("K: value at [0, 1] overflows float32"));
    CHECK(npy_to_heads<double>(a, "K")[0](0, 1) == 1e300);
    CHECK_THROWS_AS(heads_to_npy(std::vector<Eigen::MatrixXd>{}, false), std::invalid_argument);
    CHECK_THROWS_WITH(heads_to_npy(std::vector<Eigen::MatrixXd>{Eigen::MatrixXd(2, 3), Eigen::MatrixXd(3, 3)}, false),
                      Contains("head 1 is 3x3, head 0 is 2x3"));
  }
}

TEST_CASE("npy_stacked_rows puts every head's rows one under another", "[npy]") {
  NpyArray three;  // (2, 2, 3): head h, row i, column j holds 100 h + 10 i + j
  three.shape = {2, 2, 3};
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) three.values.push_back(100.0 * h + 10.0 * i + j);
  const Eigen::MatrixXd rows = npy_stacked_rows(three, "q.npy");
  REQUIRE(rows.rows() == 4);
  REQUIRE(rows.cols() == 3);
  CHECK(rows(0, 2) == 2);
  CHECK(rows(1, 0) == 10);
  CHECK(rows(2, 1) == 101);  // head 1 starts at row L = 2
  CHECK(rows(3, 2) == 112);
  NpyArray two = three;
  two.shape = {4, 3};
  CHECK(npy_stacked_rows(two, "q.npy") == rows);
  NpyArray one = three;
  one.shape = {12};
  CHECK_THROWS_WITH(npy_stacked_rows(one, "q.npy"), Catch::Contains("q.npy"));
}
