#include "experiments/experiment.hpp"

namespace favorlab {

std::unique_ptr<Experiment> make_unbiased_experiment();
std::unique_ptr<Experiment> make_mse_experiment();
std::unique_ptr<Experiment> make_smreg_experiment();
std::unique_ptr<Experiment> make_orthogonal_experiment();
std::unique_ptr<Experiment> make_estimators_experiment();
std::unique_ptr<Experiment> make_tails_experiment();
std::unique_ptr<Experiment> make_moments_experiment();
std::unique_ptr<Experiment> make_structured_experiment();
std::unique_ptr<Experiment> make_perm_order_experiment();
std::unique_ptr<Experiment> make_permute_properties_experiment();
std::unique_ptr<Experiment> make_attention_error_experiment();
std::unique_ptr<Experiment> make_attention_report_experiment();
std::unique_ptr<Experiment> make_redraw_experiment();
std::unique_ptr<Experiment> make_attention_matrix_experiment();
std::unique_ptr<Experiment> make_speed_experiment();
std::unique_ptr<Experiment> make_uniform_experiment();
std::unique_ptr<Experiment> make_kernels_experiment();
std::unique_ptr<Experiment> make_layers_experiment();

std::vector<std::unique_ptr<Experiment>> make_experiments() {
  std::vector<std::unique_ptr<Experiment>> all;
  all.push_back(make_unbiased_experiment());
  all.push_back(make_mse_experiment());
  all.push_back(make_smreg_experiment());
  all.push_back(make_orthogonal_experiment());
  all.push_back(make_estimators_experiment());
  all.push_back(make_tails_experiment());
  all.push_back(make_moments_experiment());
  all.push_back(make_structured_experiment());
  all.push_back(make_attention_error_experiment());
  all.push_back(make_attention_report_experiment());
  all.push_back(make_redraw_experiment());
  all.push_back(make_attention_matrix_experiment());
  all.push_back(make_uniform_experiment());
  all.push_back(make_kernels_experiment());
  all.push_back(make_layers_experiment());
  all.push_back(make_speed_experiment());
  all.push_back(make_perm_order_experiment());
  all.push_back(make_permute_properties_experiment());
  return all;
}

}  // namespace favorlab
