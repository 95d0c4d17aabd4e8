#pragma once
// Can this process start the OpenMP threads a run asks for? When libgomp cannot create a worker (an OMP_STACKSIZE the
// memory cannot back, a process or thread limit) it prints its own line and calls exit(1) in the middle of a run.
// Starting the same number of threads first, with the stack size libgomp would give them, turns that into one clear
// error (exit 2 at the command line) before any work is done or any file is opened.
#include <cstddef>
#include <optional>
#include <string>

namespace favorlab {

// libgomp's reading of a stack-size setting: "<digits>[B|K|M|G]" with optional blanks around the unit, default unit
// KiB (OMP_STACKSIZE); nullopt when empty, unreadable, zero or too large for size_t (libgomp then ignores it).
std::optional<std::size_t> parse_openmp_stack_size(const std::string& text);

// Throws std::invalid_argument ("cannot start 8 threads: ...") when threads − 1 threads with the stack size of
// OMP_STACKSIZE (else GOMP_STACKSIZE, in KiB; else the system default) cannot all be alive at once. threads ≤ 1:
// nothing to start.
void check_threads_can_start(int threads);

}  // namespace favorlab
