#pragma once
// The log marginal likelihood of Y (n x d, its d columns independent draws from N(0, C)) under the
// graph-GP covariance C = Q diag(v) Q^T, v_i = sigma_s^2 s(lambda_i) + sigma_n^2, by the eigen
// route (docs/math/probdr.md, "Graph GP"): with r_i = ||(Q^T Y)_i||^2, formed once,
//   log p(Y) = -nd/2 log 2pi - d/2 sum_i log v_i - 1/2 sum_i r_i / v_i,
// O(n) per evaluation, and its gradient in (log kappa, log sigma_s^2, log sigma_n^2) by hand.
// The marginal-variance normalisation has no such route (graph_gp_spectrum.hpp).
#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/graph_gp_kernel.hpp"
#include "gplvm/probdr/graph_gp_spectrum.hpp"

namespace gplvm {

struct GraphGpEvaluation {
  double log_marginal = 0.0;
  Vector d_log_parameters;  // d log p / d (log kappa, log sigma_s^2, log sigma_n^2)
};

class GraphGpMarginal {
 public:
  // From the Laplacian's eigenvalues, the squared row norms r_i of Q^T Y and d.
  GraphGpMarginal(Vector eigenvalues, Vector projected_square_norms, Index columns, GraphKernel kernel);

  Index vertices() const noexcept { return eigenvalues_.size(); }
  Index columns() const noexcept { return columns_; }
  // ||Y||_F^2 / (n d): Q is orthogonal, so the sum of the r_i is ||Y||_F^2.
  double mean_square() const noexcept { return mean_square_; }
  const GraphKernel& kernel() const noexcept { return kernel_; }
  const Vector& eigenvalues() const noexcept { return eigenvalues_; }

  // InputError as require_valid(hyper), or naming kGraphGpNoiseKey when some v_i is not > 0.
  GraphGpEvaluation evaluate(const GraphGpHyperparameters& hyper) const;

 private:
  Vector eigenvalues_, square_norms_;
  Index columns_;
  GraphKernel kernel_;
  double mean_square_;
};

// Collective: Q^T Y from this rank's rows of Y (project_onto_spectrum), then the marginal; the same
// object on every rank.
GraphGpMarginal graph_gp_marginal(const GraphSpectrum& spectrum, const ConstMatrixRef& local_y,
                                  const GraphKernel& kernel, const Communicator& comm);

}  // namespace gplvm
