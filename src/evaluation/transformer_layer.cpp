#include "evaluation/transformer_layer.hpp"

#include "attention/backend.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/attend.hpp"
#include "rng/philox_stream.hpp"

namespace favorlab {

namespace {

// N(0, 1/rows) entries: rows is the fan-in of x ↦ x·W.
Eigen::MatrixXd scaled_gaussian(int rows, int cols, PhiloxStream& rng) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(rows));
  Eigen::MatrixXd w(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) w(i, j) = scale * rng.normal();
  return w;
}

}  // namespace

TransformerLayerWeights random_transformer_layer(int width, int heads, std::uint64_t seed, std::uint64_t stream,
                                                 std::uint64_t index) {
  if (width < 1) throw std::invalid_argument("model width must be >= 1, got " + std::to_string(width));
  if (heads < 1 || width % heads != 0)
    throw std::invalid_argument("heads must be >= 1 and divide the model width " + std::to_string(width) + ", got " +
                                std::to_string(heads));
  PhiloxStream rng(seed, stream, index);
  TransformerLayerWeights w;
  w.heads = heads;
  w.query = scaled_gaussian(width, width, rng);
  w.key = scaled_gaussian(width, width, rng);
  w.value = scaled_gaussian(width, width, rng);
  w.output = scaled_gaussian(width, width, rng);
  w.mlp_in = scaled_gaussian(width, 4 * width, rng);
  w.mlp_in_bias = Eigen::VectorXd::Zero(4 * width);
  w.mlp_out = scaled_gaussian(4 * width, width, rng);
  w.mlp_out_bias = Eigen::VectorXd::Zero(width);
  return w;
}

Eigen::MatrixXd layer_norm(const Eigen::MatrixXd& x) {
  constexpr double kEpsilon = 1e-5;
  const Eigen::VectorXd mean = x.rowwise().mean();
  Eigen::MatrixXd centred = x.colwise() - mean;
  const Eigen::ArrayXd variance = centred.rowwise().squaredNorm().array() / static_cast<double>(x.cols());
  return (centred.array().colwise() / (variance + kEpsilon).sqrt()).matrix();
}

Eigen::MatrixXd transformer_layer(const Eigen::MatrixXd& x, const TransformerLayerWeights& weights,
                                  const AttentionConfig& config, const Eigen::MatrixXd& projection, int threads,
                                  Backend backend) {
  const int width = weights.width(), heads = weights.heads, size = weights.head_size();
  if (x.cols() != width)
    throw std::invalid_argument("layer input has " + std::to_string(x.cols()) + " columns, the layer's width is " +
                                std::to_string(width));
  const Eigen::MatrixXd h = layer_norm(x);
  const Eigen::MatrixXd q = h * weights.query, k = h * weights.key, v = h * weights.value;
  Heads<double> qs, ks, vs;
  for (int i = 0; i < heads; ++i) {
    qs.push_back(q.middleCols(i * size, size));
    ks.push_back(k.middleCols(i * size, size));
    vs.push_back(v.middleCols(i * size, size));
  }
  // Exact attention takes no projection: pass the empty 0×size matrix attend() expects for it.
  const Eigen::MatrixXd w = config.mechanism == Mechanism::exact ? Eigen::MatrixXd(0, size) : projection;
  const Heads<double> out = attend_double_on_backend(backend, qs, ks, vs, w, config, threads);
  Eigen::MatrixXd concat(x.rows(), width);
  for (int i = 0; i < heads; ++i) concat.middleCols(i * size, size) = out[static_cast<std::size_t>(i)];
  const Eigen::MatrixXd x1 = x + concat * weights.output;

  Eigen::MatrixXd hidden = layer_norm(x1) * weights.mlp_in;
  hidden.rowwise() += weights.mlp_in_bias.transpose();
  hidden = hidden.unaryExpr([](double t) { return 0.5 * t * (1.0 + std::erf(t / std::sqrt(2.0))); });
  Eigen::MatrixXd x2 = x1 + hidden * weights.mlp_out;
  x2.rowwise() += weights.mlp_out_bias.transpose();
  return x2;
}

}  // namespace favorlab
