#pragma once
// Covariances on the vertices of a graph, as functions of its Laplacian L (docs/math/probdr.md,
// "Graph GP"): for L = Q diag(lambda) Q^T,
//   C = sigma_s^2 Q diag(s(lambda)) Q^T + sigma_n^2 I,
// with the spectral function s of
//   matern  s(lambda) = (2 nu / kappa^2 + lambda)^-nu      (nu = 1: (L + 2/kappa^2 I)^-1)
//   heat    s(lambda) = exp(-kappa^2 lambda / 2)           (the nu -> infinity limit, up to scale)
// Both are positive and decreasing in lambda, so C is SPD whenever sigma_s^2 > 0 or sigma_n^2 > 0.
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm {

// The configuration keys the graph GP's InputErrors name.
inline constexpr const char* kGraphGpKernelKey = "probdr.graph_gp.kernel";
inline constexpr const char* kGraphGpSmoothnessKey = "probdr.graph_gp.nu";
inline constexpr const char* kGraphGpLengthscaleKey = "probdr.graph_gp.kappa";
inline constexpr const char* kGraphGpSignalKey = "probdr.graph_gp.signal_variance";
inline constexpr const char* kGraphGpNoiseKey = "probdr.graph_gp.noise_variance";

enum class GraphKernelKind { matern, heat };

struct GraphKernel {
  GraphKernelKind kind = GraphKernelKind::matern;
  double nu = 1.0;  // the Matern smoothness (not used by heat)
};

// By name ("matern", "heat"); InputError naming kGraphGpKernelKey otherwise.
GraphKernelKind parse_graph_kernel(const std::string& name);
// InputError naming kGraphGpSmoothnessKey unless nu is finite and > 0 (Matern only).
void require_valid(const GraphKernel& kernel);

// kappa (the lengthscale, in hops of the graph), sigma_s^2 and sigma_n^2.
struct GraphGpHyperparameters {
  double kappa = 1.0;
  double signal_variance = 1.0;
  double noise_variance = 0.1;
};
// InputError naming the key of the first bad one: kappa finite and > 0, the variances finite and
// >= 0. A zero noise is allowed (prediction from the precision); the likelihood needs C SPD.
void require_valid(const GraphGpHyperparameters& hyper);

// The unconstrained coordinates an optimiser moves: (log kappa, log sigma_s^2, log sigma_n^2).
Vector to_log_parameters(const GraphGpHyperparameters& hyper);
GraphGpHyperparameters from_log_parameters(const ConstVectorRef& log_parameters);

// s(lambda) elementwise, and its derivative in log kappa (the spectral functions above).
Vector spectral_values(const GraphKernel& kernel, double kappa, const ConstVectorRef& eigenvalues);
Vector spectral_log_kappa_derivative(const GraphKernel& kernel, double kappa,
                                     const ConstVectorRef& eigenvalues);

}  // namespace gplvm
