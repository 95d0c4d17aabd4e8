// `favorlab attend` as a user's pipeline meets it: .npy in, .npy out, the same numbers as the library, the projection
// round-trips through --save-w/--w, and every bad input gives exit 2, one line naming the file, no output file.
#include <catch2/catch.hpp>

#include <fstream>

#include "attention/attend.hpp"
#include "attention/attention_projection.hpp"
#include "attention/random_inputs.hpp"
#include "cli_runner.hpp"
#include "io/half_float.hpp"
#include "io/npy.hpp"
#include "io/npy_heads.hpp"

using namespace favorlab;
using namespace favorlab::testing;
namespace fs = std::filesystem;

namespace {

constexpr int kL = 40, kD = 8, kDv = 3;

void save(const fs::path& path, const Heads<double>& heads, bool head_axis, NpyDtype dtype = NpyDtype::float64) {
  const NpyArray array = heads_to_npy(heads, !head_axis);
  write_npy(path, array.shape, array.values, dtype);
}

Heads<double> load(const fs::path& path) { return npy_to_heads<double>(read_npy(path), path.string()); }

struct Inputs {
  Heads<double> q, k, v;
};

Inputs write_inputs(const fs::path& dir, int heads, NpyDtype dtype = NpyDtype::float64) {
  Inputs in;
  for (int h = 0; h < heads; ++h) {
    in.q.push_back(gaussian_input(kL, kD, 1.0, 5, 1, std::uint64_t(h)));
    in.k.push_back(gaussian_input(kL, kD, 1.0, 5, 2, std::uint64_t(h)));
    in.v.push_back(gaussian_input(kL, kDv, 1.0, 5, 3, std::uint64_t(h)));
  }
  save(dir / "q.npy", in.q, heads > 1, dtype);
  save(dir / "k.npy", in.k, heads > 1, dtype);
  save(dir / "v.npy", in.v, heads > 1, dtype);
  return in;
}

const std::string kInputs = "attend --q q.npy --k k.npy --v v.npy --quiet ";

}  // namespace

TEST_CASE("attend writes the library's output and round-trips its projection", "[cli][attend]") {
  const auto dir = scratch_dir("attend");
  const Inputs in = write_inputs(dir, 1);
  const auto run = run_cli(kInputs + "--features positive --m 16 --seed 3 --draw 2 --causal --out o.npy --save-w w.npy", dir);
  REQUIRE(run.status == 0);
  CHECK(run.err.empty());
  AttentionConfig c;
  c.m = 16;
  c.causal = true;
  const Eigen::MatrixXd w = draw_attention_projection(c, kD, 3, 2);
  const Heads<double> expected = attend<double>(in.q, in.k, in.v, w, c);
  const NpyArray out = read_npy(dir / "o.npy");
  CHECK(out.shape == std::vector<std::int64_t>{kL, kDv});
  CHECK(load(dir / "o.npy").front() == expected.front());
  CHECK(load(dir / "w.npy").front() == w);

  // The saved W given back with --w (and a different seed) reproduces the output exactly.
  const auto again = run_cli(kInputs + "--m 16 --seed 99 --causal --w w.npy --out o2.npy", dir);
  REQUIRE(again.status == 0);
  CHECK(load(dir / "o2.npy").front() == expected.front());
  fs::remove_all(dir);
}

TEST_CASE("attend: exact mechanism, head axis, float32 and the attention matrix", "[cli][attend]") {
  const auto dir = scratch_dir("attend-heads");
  const Inputs in = write_inputs(dir, 3, NpyDtype::float32);
  const auto run = run_cli(kInputs + "--mechanism exact --out o.npy --matrix a.npy", dir);
  REQUIRE(run.status == 0);
  const NpyArray out = read_npy(dir / "o.npy"), matrix = read_npy(dir / "a.npy");
  CHECK(out.dtype == NpyDtype::float32);
  CHECK(out.shape == std::vector<std::int64_t>{3, kL, kDv});
  CHECK(matrix.shape == std::vector<std::int64_t>{3, kL, kL});
  const Heads<double> a = load(dir / "a.npy"), o = load(dir / "o.npy");
  for (int h = 0; h < 3; ++h) {
    CHECK(a[h].rowwise().sum().isApprox(Eigen::VectorXd::Ones(kL), 1e-6));
    // The output is the attention matrix applied to V, both computed in float32 (u ≈ 6e-8): each output is a sum of
    // kL = 40 weighted values with |v| ≲ 4, so the two roundings differ by at most ~2·40·u·4 ≈ 2e-5 in the worst case
    // and by ~sqrt(40)·u·4 ≈ 1.5e-6 typically; 1e-5 sits between, and a wrong matrix is off by O(0.1).
    const Eigen::MatrixXd v = in.v[h].cast<float>().cast<double>();
    CHECK((a[h] * v - o[h]).cwiseAbs().maxCoeff() < 1e-5);
  }
  fs::remove_all(dir);
}

TEST_CASE("attend: float16 inputs run in float32 and give the float32 run's bits", "[cli][attend]") {
  const auto dir = scratch_dir("attend-float16");
  const Inputs in = write_inputs(dir, 2, NpyDtype::float16);
  // What the files hold: the inputs rounded to float16 (the writer's and reader's own tests check both directions).
  const Heads<double> q = load(dir / "q.npy");
  for (std::size_t h = 0; h < 2; ++h)
    for (Eigen::Index i = 0; i < q[h].size(); ++i)
      REQUIRE(q[h](i) == float16_to_float(double_to_float16(in.q[h](i))));
  for (const std::string mode : {"", "--causal ", "--mechanism exact "}) {
    INFO(mode);
    REQUIRE(run_cli(kInputs + mode + "--m 16 --out o16.npy", dir).status == 0);
    const NpyArray out16 = read_npy(dir / "o16.npy");
    CHECK(out16.dtype == NpyDtype::float32);
    // The same values (float16 widens exactly) written as float32: the same output, bit for bit.
    for (const char* name : {"q", "k", "v"}) {
      const NpyArray a = read_npy(dir / (std::string(name) + ".npy"));
      REQUIRE(a.dtype == NpyDtype::float16);
      write_npy(dir / (std::string(name) + "32.npy"), a.shape, a.values, NpyDtype::float32);
    }
    REQUIRE(run_cli("attend --q q32.npy --k k32.npy --v v32.npy --quiet " + mode + "--m 16 --out o32.npy", dir)
                .status == 0);
    CHECK(read_npy(dir / "o32.npy").values == out16.values);
  }
  fs::remove_all(dir);
}

TEST_CASE("attend --half-inputs: the inputs rounded once to float16 or bfloat16, then attended as usual",
          "[cli][attend]") {
  const auto dir = scratch_dir("attend-half-inputs");
  write_inputs(dir, 2);  // float64 files
  // float16: the same output as attend on float16 files written from the same doubles (both round each value once).
  for (const char* name : {"q", "k", "v"}) {
    const NpyArray a = read_npy(dir / (std::string(name) + ".npy"));
    write_npy(dir / (std::string(name) + "16.npy"), a.shape, a.values, NpyDtype::float16);
  }
  for (const std::string mode : {"", "--causal ", "--mechanism exact "}) {
    INFO(mode);
    REQUIRE(run_cli(kInputs + mode + "--m 16 --dtype float32 --half-inputs float16 --out h.npy", dir).status == 0);
    REQUIRE(run_cli("attend --q q16.npy --k k16.npy --v v16.npy --quiet " + mode + "--m 16 --out f16.npy", dir)
                .status == 0);
    CHECK(read_npy(dir / "h.npy").values == read_npy(dir / "f16.npy").values);
    // bfloat16 keeps fewer bits: a different output (power), and float64 arithmetic on the rounded inputs works too.
    REQUIRE(run_cli(kInputs + mode + "--m 16 --dtype float32 --half-inputs bfloat16 --out b.npy", dir).status == 0);
    CHECK(read_npy(dir / "b.npy").values != read_npy(dir / "h.npy").values);
    REQUIRE(run_cli(kInputs + mode + "--m 16 --half-inputs float16 --out h64.npy", dir).status == 0);
    CHECK(read_npy(dir / "h64.npy").dtype == NpyDtype::float64);
  }
  // The summary line says so; a value beyond float16's range and an unknown format are refused (exit 2, no output).
  const auto loud = run_cli("attend --q q.npy --k k.npy --v v.npy --m 16 --half-inputs bfloat16 --out s.npy", dir);
  CHECK(loud.status == 0);
  CHECK_THAT(loud.err, Catch::Contains("inputs rounded to bfloat16"));
  Heads<double> big = load(dir / "k.npy");
  big[1](4, 2) = -1e5;
  save(dir / "k_big.npy", big, true);
  check_bad_input("attend --q q.npy --k k_big.npy --v v.npy --half-inputs float16 --out x.npy",
                  "--k k_big.npy: --half-inputs float16: head 1 [4, 2] = -100000 is beyond float16's range", dir,
                  "x.npy");
  CHECK(run_cli("attend --q q.npy --k k_big.npy --v v.npy --half-inputs bfloat16 --quiet --out x.npy", dir).status ==
        0);  // bfloat16 has float's range
  check_bad_input("attend --q q.npy --k k.npy --v v.npy --half-inputs fp8 --out y.npy",
                  "--half-inputs must be off, float16 or bfloat16 (got 'fp8')", dir, "y.npy");
  fs::remove_all(dir);
}

TEST_CASE("attend --precision: float32 is the default, a GPU format needs --backend cuda, exact stays float32",
          "[cli][attend][precision]") {
  const auto dir = scratch_dir("attend-precision");
  write_inputs(dir, 2);
  REQUIRE(run_cli(kInputs + "--m 16 --out a.npy", dir).status == 0);
  REQUIRE(run_cli(kInputs + "--m 16 --precision float32 --out b.npy", dir).status == 0);
  CHECK(read_npy(dir / "a.npy").values == read_npy(dir / "b.npy").values);
  check_bad_input("attend --q q.npy --k k.npy --v v.npy --precision bfloat16 --out x.npy",
                  "--precision bfloat16 is a GPU format: the cpu backend multiplies in float32 or float64", dir,
                  "x.npy");
  check_bad_input("attend --q q.npy --k k.npy --v v.npy --precision tf32 --mechanism exact --backend cuda --out x.npy",
                  "--precision tf32: exact attention runs in float32, or in bfloat16 through cuDNN's fused attention",
                  dir, "x.npy");
  check_bad_input("attend --q q.npy --k k.npy --v v.npy --precision fp8 --out x.npy",
                  "--precision must be float32, tf32 or bfloat16 (got 'fp8')", dir, "x.npy");
  fs::remove_all(dir);
}

TEST_CASE("attend: bad input exits 2 with one line naming the file, and writes nothing", "[cli][attend]") {
  const auto dir = scratch_dir("attend-bad");
  write_inputs(dir, 1);
  save(dir / "k_wide.npy", {gaussian_input(kL, kD + 1, 1.0, 5, 9, 0)}, false);
  save(dir / "v_short.npy", {gaussian_input(kL - 1, kDv, 1.0, 5, 9, 0)}, false);
  save(dir / "q3.npy", {gaussian_input(kL, kD, 1.0, 5, 9, 0)}, true);
  Eigen::MatrixXd nan = gaussian_input(kL, kD, 1.0, 5, 9, 0);
  nan(7, 2) = std::numeric_limits<double>::quiet_NaN();
  save(dir / "k_nan.npy", {nan}, false);
  std::ofstream(dir / "junk.npy") << "not an array";
  {
    std::ifstream in(dir / "q.npy", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir / "q_cut.npy", std::ios::binary) << bytes.substr(0, bytes.size() - 8);
  }
  // An int32 array: a valid .npy of an unsupported dtype.
  {
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }";
    header.append(128 - 10 - header.size() - 1, ' ');
    header += '\n';
    std::ofstream f(dir / "ints.npy", std::ios::binary);
    f << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff) << char(header.size() >> 8) << header;
    for (int i = 0; i < 16; ++i) f << char(i % 4 == 0 ? 1 : 0);
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"attend --q q.npy --k k_wide.npy --v v.npy --out o.npy", "same dimension d"},
      {"attend --q q.npy --k k.npy --v v_short.npy --out o.npy", "same length L"},
      {"attend --q q3.npy --k k.npy --v v.npy --out o.npy", "head axis"},
      {"attend --q q.npy --k k_nan.npy --v v.npy --out o.npy", "k_nan.npy"},
      {"attend --q junk.npy --k k.npy --v v.npy --out o.npy", "junk.npy"},
      {"attend --q q_cut.npy --k k.npy --v v.npy --out o.npy", "q_cut.npy"},
      {"attend --q ints.npy --k k.npy --v v.npy --out o.npy", "ints.npy"},
      {"attend --q missing.npy --k k.npy --v v.npy --out o.npy", "missing.npy"},
      {"attend --q q.npy --k k.npy --v v.npy --m 0 --out o.npy", "--m must be positive"},
      {"attend --q q.npy --k k.npy --v v.npy --features softmax --out o.npy", "unknown feature map"},
      {"attend --q q.npy --k k.npy --v v.npy --w v.npy --out o.npy", "v.npy"},
      {"attend --q q.npy --k k.npy --v v.npy --dtype int8 --out o.npy", "--dtype"},
      {"attend --q q.npy --k k.npy --v v.npy --out o.npy --matrix no/such/dir/a.npy", "no/such/dir"},
      {"attend --q q.npy --k k.npy --v v.npy", "--out"},
  };
  for (const auto& [args, needle] : cases) check_bad_input(args, needle, dir, "o.npy");
  fs::remove_all(dir);
}
