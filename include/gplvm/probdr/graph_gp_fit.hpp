#pragma once
// Maximum-likelihood graph-GP hyperparameters: L-BFGS (TAO, optim/tao_minimizer.hpp) on
// -log p(Y) / (n d) in (log kappa, log sigma_s^2, log sigma_n^2), by the eigen route
// (graph_gp_marginal.hpp). Each evaluation is O(n) and the same on every rank; the optimiser's
// three coordinates live on rank 0 and are broadcast to the others at each evaluation.
#include <optional>

#include "gplvm/core/types.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/graph_gp_kernel.hpp"
#include "gplvm/probdr/graph_gp_marginal.hpp"

namespace gplvm {

struct GraphGpFitOptions {
  // Without one: kappa = 1 and half the data's mean square m = ||Y||^2 / (n d) to each of the
  // signal (sigma_s^2 = (m / 2) / mean_i s(lambda_i), so that its average variance is m / 2) and the
  // noise (sigma_n^2 = m / 2).
  std::optional<GraphGpHyperparameters> start;
  double gradient_tolerance = 1e-9;  // TAO's gatol on the gradient of -log p / (n d)
  int max_iterations = 500;
};

struct GraphGpFit {
  GraphGpHyperparameters hyper;
  GraphGpHyperparameters start;
  GraphGpEvaluation at_optimum;  // log p and its gradient at `hyper`
  TaoStopReason reason = TaoStopReason::still_iterating;
  bool converged = false;
  int iterations = 0;
};

// The default start described above.
GraphGpHyperparameters default_graph_gp_start(const GraphGpMarginal& marginal);

// Collective (the same marginal on every rank); needs a PetscSession. The log parameters are bounded
// to |log kappa| <= 7 and log variances within 28 of log m (factors of about 1e3 and 1e12), which
// keeps every evaluation finite; an estimate at a bound says the data do not determine it.
GraphGpFit fit_graph_gp(const GraphGpMarginal& marginal, const Communicator& comm,
                        const GraphGpFitOptions& options = {});

}  // namespace gplvm
