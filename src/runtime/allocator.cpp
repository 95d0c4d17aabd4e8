#include "runtime/allocator.hpp"

#include <malloc.h>

namespace favorlab {

bool keep_freed_memory() {
  constexpr int kMmapFrom = 32 << 20;   // glibc's largest dynamic threshold on 64-bit systems
  constexpr int kTrimPast = 256 << 20;
  const bool mmap_set = ::mallopt(M_MMAP_THRESHOLD, kMmapFrom) == 1;
  const bool trim_set = ::mallopt(M_TRIM_THRESHOLD, kTrimPast) == 1;
  return mmap_set && trim_set;
}

}  // namespace favorlab
