#pragma once
// The three checks of `favorlab kernels` over its (kernel, scale) points, from the denominators and outputs each point
// tallied (evaluation/kernel_denominators.hpp): positive denominators for the FAVOR+ families (measured: true by
// construction, violated only by a counterexample), trig's non-positive denominators (an existence claim), and NaN/Inf
// anywhere (measured).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attention/attention_config.hpp"
#include "evaluation/kernel_denominators.hpp"
#include "features/feature_family.hpp"
#include "stats/check.hpp"

namespace favorlab {

// One kernel of the run: a feature family, with or without the projection W (generalized kernels only).
struct KernelCase {
  Family kind;
  bool project;
  std::string label() const;  // "relu", "relu (no projection)"
};

class KernelChecks {
 public:
  // The FAVOR+ claim is about positive random features of the softmax kernel: every family the table marks so
  // (positive, hyperbolic, regularized, and gerf, oprf, sderf when asked for), never a hand-kept list.
  static bool positive_softmax(Family k);

  KernelChecks(const std::vector<KernelCase>& cases, std::size_t scales);
  // Tallies one (kernel, scale) point of `draws` draws.
  void add(const KernelCase& c, double s, std::int64_t draws, const DenominatorStats& st);

  // The checks, `setting` naming the run (inputs, sizes) in each where.
  Check positive(const std::string& setting) const;
  Check trig(const std::string& setting) const;
  Check finite(const std::string& setting) const;

 private:
  std::size_t kernels_, softmax_points_ = 0, trig_points_ = 0;
  std::ostringstream positive_detail_, trig_detail_, nonfinite_detail_;
  double positive_min_ = std::numeric_limits<double>::infinity();
  std::int64_t positive_bad_ = 0, positive_nonfinite_ = 0, trig_nonpositive_ = 0, trig_total_ = 0;
  std::int64_t nonfinite_kernels_ = 0;
};

}  // namespace favorlab
