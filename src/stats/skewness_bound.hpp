#pragma once
// A gate for the z test of a mean whose skewness is not known in advance (redraw's MSEs over projection draws).
// The sample skewness g1 is biased low for heavy tails — most samples miss the draws that make the tail — so gating
// on it passes exactly the samples that are least trustworthy. Instead: an upper confidence bound on |γ| from a
// delete-a-block jackknife over J contiguous blocks, |J·g1 − (J − 1)·ḡ_(·)| + t_{J−1, 0.975}·SE_jack. A single
// extreme draw moves the leave-its-block-out values far apart, which widens the bound rather than slipping through.
#include <vector>

namespace favorlab {

// Needs at least 3 values per block (x.size() ≥ 3·blocks) and blocks ≥ 2; returns +∞ (no usable bound: not gated
// through) otherwise or when a block's values have no spread.
double skewness_upper_bound(const std::vector<double>& x, int blocks = 20);

}  // namespace favorlab
