// evaluation/content_rows.hpp: draws take the user's rows in turn (cycling a short file, heads stacked) or, without
// files, the same Gaussian row the stream gives; mismatched or lone files are refused with the files named.
#include <catch2/catch.hpp>

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "attention/random_inputs.hpp"
#include "cli_runner.hpp"
#include "evaluation/content_rows.hpp"
#include "io/npy.hpp"

using namespace favorlab;

TEST_CASE("content rows: the files' rows in turn, else the stream's Gaussian row", "[evaluation]") {
  const auto dir = testing::scratch_dir("content-rows");
  const std::vector<double> q{0, 1, 2, 10, 11, 12, 20, 21, 22};  // (3, 1, 3): three heads of one row
  const std::vector<double> k{5, 6, 7, 8, 9, 10};                 // (2, 3)
  write_npy(dir / "q.npy", {3, 1, 3}, q, NpyDtype::float64);
  write_npy(dir / "k.npy", {2, 3}, k, NpyDtype::float64);
  write_npy(dir / "k4.npy", {1, 4}, std::vector<double>{1, 2, 3, 4}, NpyDtype::float64);
  const std::string qf = (dir / "q.npy").string(), kf = (dir / "k.npy").string();

  const ContentRows rows = read_content_rows(qf, kf);
  REQUIRE(rows.q.rows() == 3);
  REQUIRE(rows.k.rows() == 2);
  CHECK(content_row(rows.q, 3, 1.0, 1, 2, 1)(0, 0) == 10);  // draw 1: head 1's row
  CHECK(content_row(rows.q, 3, 1.0, 1, 2, 5)(0, 2) == 22);  // draw 5 = 2 mod 3
  CHECK(content_row(rows.k, 3, 1.0, 1, 2, 3)(0, 1) == 9);   // draw 3 = 1 mod 2

  const ContentRows none = read_content_rows("", "");
  CHECK(none.q.size() == 0);
  CHECK(content_row(none.q, 3, 2.0, 7, 4, 9) == gaussian_input(1, 3, 2.0, 7, 4, 9));
  CHECK(content_row(none.q, 3, 2.0, 7, 4, 9) != content_row(none.q, 3, 2.0, 7, 4, 10));

  CHECK_THROWS_WITH(read_content_rows(qf, ""), "--q and --k go together");
  CHECK_THROWS_WITH(read_content_rows("", kf), "--q and --k go together");
  CHECK_THROWS_WITH(read_content_rows(qf, (dir / "k4.npy").string()),
                    (dir / "k4.npy").string() + ": keys have d = 4 but " + qf + " has d = 3");
  CHECK_THROWS_WITH(read_content_rows(qf, (dir / "missing.npy").string()), Catch::Contains("missing.npy"));
  std::filesystem::remove_all(dir);
}
