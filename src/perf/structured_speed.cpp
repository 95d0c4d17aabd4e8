#include "perf/structured_speed.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <utility>

#include "features/structured_projection.hpp"
#include "perf/interleaved_timing.hpp"
#include "perf/memory_estimate.hpp"
#include "stats/sample_quantile.hpp"

namespace favorlab {

void measure_structured_speed(const std::vector<int>& dims, int batch, int repeats, std::uint64_t seed,
                              Result& result) {
  const int eigen_threads = Eigen::nbThreads();
  Eigen::setNbThreads(1);
  double checksum = 0;
  for (int d : dims) {
    PhiloxStream rng(seed, (std::uint64_t{1} << 40) | static_cast<std::uint64_t>(d), 0);
    const HadamardProjection had = HadamardProjection::draw(d, d, RowNorms::sqrt_d, rng);
    const GivensProjection giv = GivensProjection::draw(d, d, RowNorms::sqrt_d, rng);
    const Eigen::MatrixXd w = had.dense();
    Eigen::MatrixXd x(d, batch);
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      for (Eigen::Index i = 0; i < x.rows(); ++i) x(i, j) = rng.normal();
    Eigen::MatrixXd out(d, batch);
    const auto seconds = time_interleaved(repeats, {[&] {
                                                      out.noalias() = w * x;
                                                      checksum += out(0, 0);
                                                    },
                                                    [&] { checksum += had.apply(x)(0, 0); },
                                                    [&] { checksum += giv.apply(x)(0, 0); }});
    const double t_dense = sample_median(seconds[0]);
    const std::pair<const char*, double> methods[] = {
        {"dense", t_dense}, {"hadamard", sample_median(seconds[1])}, {"givens", sample_median(seconds[2])}};
    for (const auto& [method, t] : methods)
      result.rows.push_back(Json{{"kind", "speed"},
                                 {"estimator", nullptr},
                                 {"coupling", nullptr},
                                 {"x_norm", nullptr},
                                 {"y_norm", nullptr},
                                 {"cos_angle", nullptr},
                                 {"method", method},
                                 {"d", d},
                                 {"m", d},
                                 {"batch", batch},
                                 {"repeats", repeats},
                                 {"seconds", t},
                                 {"vectors_per_second", batch / t},
                                 {"time_ratio_to_dense", t / t_dense},
                                 {"threads", 1}});
  }
  Eigen::setNbThreads(eigen_threads);
  result.measurements["speed_checksum"] = checksum;
}

double structured_speed_bytes(const std::vector<int>& dims, int batch) {
  using namespace memory;
  double peak = 0;
  const double b = std::max(0, batch);
  for (int d : dims)
    peak =
        std::max(peak, (static_cast<double>(d) * d + 6.0 * d * b) * kDouble + projection_bytes(Coupling::givens, d, d));
  return peak;
}

}  // namespace favorlab
