#pragma once
// Prediction of held-out vertices of one graph (docs/math/probdr.md, "Graph GP"): train and test
// vertices share the graph, whose covariance K = sigma_s^2 s(L) covers both; the training rows are
// observed with noise sigma_n^2. For the test vertices t and training vertices r,
//   E[f_t | Y_r]   = K_tr (K_rr + sigma_n^2 I)^-1 Y_r,
//   Var[f_t | Y_r] = diag(K_tt - K_tr (K_rr + sigma_n^2 I)^-1 K_rt),
// the noise-free value at each test vertex (a new noisy observation adds sigma_n^2). Serial and
// dense: one Cholesky factor of the n_r x n_r block (linalg/cholesky.hpp), O(n_r^3).
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/probdr/graph_gp_kernel.hpp"
#include "gplvm/probdr/graph_gp_spectrum.hpp"

namespace gplvm {

struct GraphGpPrediction {
  Matrix mean;          // n_t x d, rows in the order of `test`
  Vector variance;      // n_t, the posterior variance of the noise-free value, the same for every column
  double jitter = 0.0;  // added to K_rr + sigma_n^2 I by the Cholesky helper, 0 when none was needed
};

// `signal` is K over all n vertices; `train` and `test` are disjoint vertex lists without repeats,
// `y_train` has one row per training vertex. InputError naming "train", "test", "y_train" or
// kGraphGpNoiseKey for inputs that break these rules.
GraphGpPrediction predict_graph_gp(const Matrix& signal, double noise_variance,
                                   const std::vector<Index>& train, const std::vector<Index>& test,
                                   const ConstMatrixRef& y_train);

// The same with K = graph_gp_covariance(spectrum, kernel, hyper, normalise, without noise).
GraphGpPrediction predict_graph_gp(const GraphSpectrum& spectrum, const GraphKernel& kernel,
                                   const GraphGpHyperparameters& hyper, bool normalise,
                                   const std::vector<Index>& train, const std::vector<Index>& test,
                                   const ConstMatrixRef& y_train);

}  // namespace gplvm
