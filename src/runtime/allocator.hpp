#pragma once
// keep_freed_memory(): tells glibc's malloc to keep freed memory in the process instead of handing it back to the
// kernel, for a process that allocates and frees the same large temporaries over and over — favorlab's blocked
// kernels allocate several blocks of 128 KiB – 1 MiB per block of rows (a 512 × 256 float block is 512 KiB).
// glibc's defaults serve such a request with a fresh mmap (or, once its threshold has adapted, from the heap, whose
// top it trims again as soon as more than twice that much lies free), so each one comes back as new pages: a page
// fault and a zeroed page per 4 KiB, every time. Hence mmap only from 32 MiB up and trimming only past 256 MiB free:
// the buffers stay in the process and are reused (glibc's defaults: docs/performance.md#tried-and-dropped).
// The cost: up to 256 MiB of freed memory may stay resident. `favorlab` calls this once at start; a library user
// decides for their own process. Peak-memory measurements are unaffected: they run in a child that trims first
// (runtime/peak_memory.hpp), and reusing a freed page never raises the high-water mark.
// Returns whether glibc accepted both settings.
namespace favorlab {

bool keep_freed_memory();

}  // namespace favorlab
