#include "mc/sphere_moment_sweep.hpp"

#include <chrono>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "rng/philox_stream.hpp"

namespace favorlab {

namespace {

struct PowerMoments {
  std::vector<RunningMoments> by_power;
  auto fields() { return std::tie(by_power); }  // for the exchange between MPI ranks (block_codec.hpp)
  void merge(const PowerMoments& other) {
    for (std::size_t i = 0; i < by_power.size(); ++i) by_power[i].merge(other.by_power[i]);
  }
};

// ‖(g_2, …, g_d)‖² for independent standard normals g_i, drawn in Box–Muller pairs. A pair (R cos Θ, R sin Θ) with
// R² = −2 log U has squared norm exactly R² = −2 log U, so the angle — a sine, a cosine and half the uniforms — need
// not be drawn: a pair costs one uniform, and the logs of up to 16 of them are taken at once as the log of their
// product (each uniform is ≥ 2^−54, so a product of 16 is ≥ 2^−864 and cannot underflow). This is the same random
// variable as summing the squares of rng.normal() draws, several times faster, and independent of the formula under
// test.
double squared_norm_of_normals(PhiloxStream& rng, int count) {
  double log_sum = 0, product = 1;
  int in_product = 0;
  for (int pair = 0; pair < count / 2; ++pair) {
    product *= rng.uniform();
    if (++in_product == 16) {
      log_sum += std::log(product);
      product = 1;
      in_product = 0;
    }
  }
  double sum = -2 * (log_sum + std::log(product));
  if (count % 2 == 1) {
    const double g = rng.normal();
    sum += g * g;
  }
  return sum;
}

void validate(const SphereMomentConfig& c) {
  if (c.dims.empty()) throw std::invalid_argument("sphere moment sweep needs at least one dimension");
  std::set<int> seen;
  for (int d : c.dims) {
    if (d < 1) throw std::invalid_argument("--d values must be >= 1, got " + std::to_string(d));
    if (!seen.insert(d).second) throw std::invalid_argument("--d lists dimension " + std::to_string(d) + " twice");
  }
  if (c.max_power < 1) throw std::invalid_argument("sphere moment sweep needs max power >= 1");
  if (c.trials < 2) throw std::invalid_argument("--trials must be at least 2");
  if (c.threads < 1) throw std::invalid_argument("--threads must be at least 1");
}

}  // namespace

SphereMomentResult run_sphere_moment_sweep(const SphereMomentConfig& c, const ProgressFn& progress) {
  validate(c);
  const auto start = std::chrono::steady_clock::now();
  SphereMomentResult r;
  r.dims = c.dims;
  r.max_power = c.max_power;

  // Progress in units of normal draws, the cost of a trial (d of them).
  std::int64_t total_cost = 0, done_cost = 0;
  for (int d : c.dims) total_cost += static_cast<std::int64_t>(d) * c.trials;

  for (int d : c.dims) {
    const PowerMoments zero{std::vector<RunningMoments>(static_cast<std::size_t>(c.max_power))};
    ProgressFn part;
    if (progress)
      part = [&, d](std::int64_t done, std::int64_t) { progress(done_cost + d * done, total_cost); };
    PowerMoments acc = run_parallel_trials(
        c.trials, c.threads, zero,
        [&](std::int64_t t, PowerMoments& a) {
          PhiloxStream rng(c.seed, static_cast<std::uint64_t>(d), static_cast<std::uint64_t>(t));
          const double first = rng.normal();
          const double norm_sq = first * first + squared_norm_of_normals(rng, d - 1);
          const double u = first / std::sqrt(norm_sq);
          double power = 1;
          for (auto& m : a.by_power) {
            power *= u;
            m.add(power);
          }
        },
        part);
    r.moments.push_back(std::move(acc.by_power));
    done_cost += static_cast<std::int64_t>(d) * c.trials;
  }
  r.normal_draws = total_cost;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace favorlab
