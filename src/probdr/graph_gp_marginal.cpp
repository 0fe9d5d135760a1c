#include "gplvm/probdr/graph_gp_marginal.hpp"

#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "gplvm/core/error.hpp"

namespace gplvm {

GraphGpMarginal::GraphGpMarginal(Vector eigenvalues, Vector projected_square_norms, Index columns,
                                 GraphKernel kernel)
    : eigenvalues_(std::move(eigenvalues)),
      square_norms_(std::move(projected_square_norms)),
      columns_(columns),
      kernel_(kernel) {
  require_valid(kernel_);
  require(eigenvalues_.size() > 0 && square_norms_.size() == eigenvalues_.size(),
          "the graph GP needs one projected row norm per eigenvalue",
          {"", "y",
           std::to_string(square_norms_.size()) + " norms, " + std::to_string(eigenvalues_.size()) +
               " eigenvalues"});
  require(columns_ > 0, "the graph GP needs at least one column of Y", {"", "y", std::to_string(columns_)});
  mean_square_ = square_norms_.sum() / static_cast<double>(eigenvalues_.size() * columns_);
}

// With g_i = d log p / d v_i = -d / (2 v_i) + r_i / (2 v_i^2), each log parameter theta moves
// log p by sum_i g_i dv_i/dtheta, where dv_i/dlog sigma_s^2 = sigma_s^2 s_i,
// dv_i/dlog sigma_n^2 = sigma_n^2 and dv_i/dlog kappa = sigma_s^2 ds_i/dlog kappa.
GraphGpEvaluation GraphGpMarginal::evaluate(const GraphGpHyperparameters& hyper) const {
  require_valid(hyper);
  const Vector s = spectral_values(kernel_, hyper.kappa, eigenvalues_);
  const Vector v = (hyper.signal_variance * s).array() + hyper.noise_variance;
  require(v.minCoeff() > 0, "the graph-GP covariance is singular: give it a noise variance > 0",
          {"", kGraphGpNoiseKey, std::to_string(hyper.noise_variance)});
  const auto n = static_cast<double>(vertices()), d = static_cast<double>(columns_);
  GraphGpEvaluation out;
  out.log_marginal = -0.5 * n * d * std::log(2.0 * std::numbers::pi) - 0.5 * d * v.array().log().sum() -
                     0.5 * (square_norms_.array() / v.array()).sum();
  const Vector g = (-0.5 * d / v.array() + 0.5 * square_norms_.array() / v.array().square()).matrix();
  const Vector ds = spectral_log_kappa_derivative(kernel_, hyper.kappa, eigenvalues_);
  out.d_log_parameters = Vector{
      {hyper.signal_variance * g.dot(ds), hyper.signal_variance * g.dot(s), hyper.noise_variance * g.sum()}};
  return out;
}

GraphGpMarginal graph_gp_marginal(const GraphSpectrum& spectrum, const ConstMatrixRef& local_y,
                                  const GraphKernel& kernel, const Communicator& comm) {
  const Matrix projected = project_onto_spectrum(spectrum, local_y, comm);
  return GraphGpMarginal(spectrum.eigenvalues, projected.rowwise().squaredNorm(), projected.cols(), kernel);
}

}  // namespace gplvm
