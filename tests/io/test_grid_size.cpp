// io/grid_size.hpp: "WxH" read as two integers, anything else refused with the option's name and the text.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "io/grid_size.hpp"

using namespace favorlab;

TEST_CASE("parse_grid_size reads WxH and refuses every other form", "[io]") {
  CHECK(parse_grid_size("32x16", "--grid") == std::pair<std::int64_t, std::int64_t>{32, 16});
  CHECK(parse_grid_size("2x3000000000", "--grid") == std::pair<std::int64_t, std::int64_t>{2, 3000000000});
  // The form only: the caller bounds the sides.
  CHECK(parse_grid_size("0x-4", "--grid") == std::pair<std::int64_t, std::int64_t>{0, -4});
  for (const char* bad : {"", "32", "x", "32x", "x16", "32x16x2", "32 x16", "32x16 ", "3.5x2", "32X16", "axb",
                          "99999999999999999999x2"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_grid_size(bad, "--grid"),
                      "--grid must be WxH with positive integers, got '" + std::string(bad) + "'");
  }
}
