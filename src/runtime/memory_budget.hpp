#pragma once
// The memory budget of a command: every command predicts its peak memory from its options (and input headers)
// before it allocates anything sized by them, and refuses with one line and exit status 2 when the prediction exceeds
// what this machine can give it, or the user's --max-memory:
//   "mse needs ≈ 41 GiB, 23 GiB are available; lower --m or pass --max-memory"
// so no option or input can end in std::bad_alloc, an out-of-memory kill or hours of swapping.
// --max-memory replaces the machine's figure (a job scheduler's allocation, or a deliberate larger run).
#include <string>

namespace favorlab {

// Bytes this process may still take: MemAvailable (/proc/meminfo), capped by the control group's limit less its
// current usage (cgroup v2 memory.max/memory.current, v1 memory.limit_in_bytes/usage_in_bytes); +∞ where neither is
// readable.
double available_memory_bytes();

// A size as users write it: "24G", "512M", "1.5GiB", "800MB", "100000" (bytes); suffixes K, M, G, T (with or without
// "B" or "iB", any case) are powers of 1024. Throws std::invalid_argument "<option> must be ..." for anything else,
// zero, a negative, NaN or ∞.
double parse_memory_size(const std::string& text, const std::string& option = "--max-memory");

// "1.5 GiB", "640 MiB", "12 KiB", "800 B" (three significant digits).
std::string format_bytes(double bytes);

// Throws std::invalid_argument when `bytes` (a prediction: non-negative, possibly +∞) exceeds the budget: the parsed
// `max_memory` if it is not empty, else available_memory_bytes(). `what` names the command, `lower` the options that
// drive the prediction ("--m or --L").
void check_memory_budget(const std::string& what, double bytes, const std::string& lower,
                         const std::string& max_memory);

}  // namespace favorlab
