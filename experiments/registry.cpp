#include "experiments/experiment.hpp"

namespace favorlab {

std::unique_ptr<Experiment> make_unbiased_experiment();
std::unique_ptr<Experiment> make_mse_experiment();
std::unique_ptr<Experiment> make_smreg_experiment();
std::unique_ptr<Experiment> make_orthogonal_experiment();
std::unique_ptr<Experiment> make_tails_experiment();
std::unique_ptr<Experiment> make_moments_experiment();
std::unique_ptr<Experiment> make_structured_experiment();
std::unique_ptr<Experiment> make_uniform_experiment();
std::unique_ptr<Experiment> make_kernels_experiment();
std::unique_ptr<Experiment> make_layers_experiment();

std::vector<std::unique_ptr<Experiment>> make_experiments() {
  std::vector<std::unique_ptr<Experiment>> all;
  all.push_back(make_unbiased_experiment());
  all.push_back(make_mse_experiment());
  all.push_back(make_smreg_experiment());
  all.push_back(make_orthogonal_experiment());
  all.push_back(make_tails_experiment());
  all.push_back(make_moments_experiment());
  all.push_back(make_structured_experiment());
  all.push_back(make_uniform_experiment());
  all.push_back(make_kernels_experiment());
  all.push_back(make_layers_experiment());
  return all;
}

}  // namespace favorlab
