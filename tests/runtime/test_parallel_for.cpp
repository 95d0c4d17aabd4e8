// parallel_for: every index once when nothing throws; an exception thrown by a body (std::bad_alloc included) leaves
// the OpenMP region and reaches the caller instead of calling std::terminate.
#include <catch2/catch.hpp>

#include <new>
#include <stdexcept>
#include <vector>

#include "runtime/parallel_for.hpp"

using favorlab::parallel_for;

TEST_CASE("parallel_for runs every index once and rethrows a body's exception after the region", "[runtime]") {
  for (int threads : {1, 2, 4}) {
    std::vector<int> seen(1000, 0);
    parallel_for(std::int64_t{1000}, threads, [&](std::int64_t i) { ++seen[static_cast<std::size_t>(i)]; });
    CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));

    // Without the guard this aborts the test binary (an exception escaping an OpenMP region is std::terminate).
    CHECK_THROWS_AS(parallel_for(1000, threads,
                                 [](int i) {
                                   if (i == 37) throw std::bad_alloc();
                                 }),
                    std::bad_alloc);
    CHECK_THROWS_WITH(parallel_for(8, threads, [](int i) {
                        if (i % 2 == 1) throw std::invalid_argument("odd");
                      }),
                      "odd");
  }
  parallel_for(0, 2, [](int) { FAIL("no index to run"); });
}
