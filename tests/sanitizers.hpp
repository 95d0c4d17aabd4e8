#pragma once
// Whether the tests run under AddressSanitizer (the asan preset). ASan reserves shadow memory and keeps freed blocks
// in quarantine, so a process's resident set is no longer the program's working set: tests of measured peak memory
// are skipped there (they pass with a warning saying so) rather than loosened. Everything else runs.
#include <catch2/catch.hpp>

namespace favorlab::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace favorlab::testing

// In a TEST_CASE measuring resident memory: under ASan, warn and leave the test.
#define FAVORLAB_SKIP_UNDER_ASAN()                                                                  \
  do {                                                                                              \
    if (favorlab::testing::kUnderAddressSanitizer) {                                                \
      WARN("skipped under AddressSanitizer: its shadow memory inflates the resident set measured"); \
      return;                                                                                       \
    }                                                                                               \
  } while (false)
