#pragma once
// Where one timing curve overtakes another: the sequence length from which method `a` (e.g. exact attention, growing
// like L²) takes longer than method `b` (e.g. FAVOR, growing like L), read off curves measured at a few lengths
// (`favorlab speed`'s crossover rows). Between the last length where a was not slower and the first where it is,
// log(time_a/time_b) is interpolated linearly in log L and its zero returned: exact when the ratio of the two curves
// is a power law between those lengths.
#include <map>

namespace favorlab {

// a, b: seconds by length. Walks the lengths of `a` upwards, stopping at the first that `b` lacks:
//   the first length, when a is already slower there (the crossover lies at or below it);
//   the interpolated length, when a becomes slower between two measured lengths (a tie, time_a = time_b, counts as
//   not slower: a tie followed by a slower point gives the tied length);
//   NaN when a is never slower within the lengths walked.
double crossover_length(const std::map<int, double>& a, const std::map<int, double>& b);

}  // namespace favorlab
