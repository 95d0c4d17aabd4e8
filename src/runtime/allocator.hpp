#pragma once
// keep_freed_memory(): tells glibc's malloc to keep freed memory in the process instead of handing it back to the
// kernel, for a process that allocates and frees the same large temporaries over and over — favorlab's blocked
// kernels allocate several blocks of 128 KiB – 1 MiB per block of rows (a 512 × 256 float block is 512 KiB).
// glibc's defaults serve such a request with a fresh mmap (or, once its threshold has adapted, from the heap, whose
// top it trims again as soon as more than twice that much lies free), so each one comes back as new pages: a page
// fault and a zeroed page per 4 KiB, every time. perf of 8-head PermuteFormer at L = 1024 (one thread): the kernel's
// page-fault path ≈ 19 % of all samples. With mmap only from 32 MiB up and trimming only past 256 MiB free
// (measured, best of 7, 8 heads, one thread, float): PermuteFormer bidirectional 40.7 → 23.3 ms at L = 1024, causal
// FAVOR 40.4 → 31.9 ms, bidirectional FAVOR 25.5 → 22.9 ms, its bare GEMMs 24.5 → 19.4 ms; 0–10 % at L = 4096 (two runs).
// The cost: up to 256 MiB of freed memory may stay resident. `favorlab` calls this once at start; a library user
// decides for their own process. Peak-memory measurements are unaffected: they run in a child that trims first
// (runtime/peak_memory.hpp), and reusing a freed page never raises the high-water mark.
// Returns whether glibc accepted both settings.
namespace favorlab {

bool keep_freed_memory();

}  // namespace favorlab
