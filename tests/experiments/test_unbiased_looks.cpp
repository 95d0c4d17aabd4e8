// `favorlab unbiased --until-conclusive`: open points get looks, rows say which look decided them, the run is the
// same at 1 and 2 threads and when repeated with --max-looks set to the looks it reached, a fixed run is unchanged,
// and bad look options are refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "looks_runs.hpp"

using namespace favorlab::testing;
using nlohmann::json;

namespace {

const std::string kGrid = "unbiased --x-norm 0.5,1.5 --y-norm 0.5,1.5 --cos -0.5,0.5 --d 4 --m 4 --quiet ";

}  // namespace

TEST_CASE("unbiased --until-conclusive: looks settle open points, bit-identical across threads and on a rerun",
          "[cli][looks]") {
  const auto dir = scratch_dir("unbiased-looks");
  run_with_looks(kGrid, 2000, 6, "mean", dir);
  std::filesystem::remove_all(dir);
}

TEST_CASE("look options: bad values and experiments without looks are refused with one line", "[cli][looks]") {
  const auto dir = scratch_dir("look-options");
  check_bad_input(kGrid + "--budget 0 --out o.json", "--budget", dir, "o.json");
  check_bad_input(kGrid + "--budget 5x --out o.json", "units are s, m and h", dir, "o.json");
  check_bad_input(kGrid + "--budget nan --out o.json", "--budget", dir, "o.json");
  check_bad_input(kGrid + "--max-looks 0 --out o.json", "--max-looks", dir, "o.json");
  check_bad_input(kGrid + "--max-looks 41 --out o.json", "--max-looks", dir, "o.json");
  check_bad_input(kGrid + "--trials 1000000000000 --max-looks 20 --out o.json", "1e15", dir, "o.json");
  check_bad_input("kernels --until-conclusive --quiet --out o.json", "fixed number of trials", dir, "o.json");
  std::filesystem::remove_all(dir);
}
