#include "gplvm/probdr/graph_gp_prediction.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/cholesky.hpp"

namespace gplvm {
namespace {

// Each vertex in [0, n) and in neither list twice (a vertex both observed and predicted, or listed
// twice, would make K_rr singular or the prediction ambiguous).
void require_vertex_lists(Index n, const std::vector<Index>& train, const std::vector<Index>& test) {
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  const auto check = [&](const std::vector<Index>& list, const char* key) {
    require(!list.empty(), "the graph-GP prediction needs at least one vertex in each list",
            {"", key, "empty"});
    for (Index v : list) {
      require(v >= 0 && v < n, "a vertex index is outside the graph", {"", key, std::to_string(v)});
      require(seen[static_cast<std::size_t>(v)]++ == 0,
              "a vertex appears twice among the training and test vertices", {"", key, std::to_string(v)});
    }
  };
  check(train, "train");
  check(test, "test");
}

Matrix submatrix(const Matrix& m, const std::vector<Index>& rows, const std::vector<Index>& cols) {
  Matrix out(static_cast<Index>(rows.size()), static_cast<Index>(cols.size()));
  for (Index j = 0; j < out.cols(); ++j)
    for (Index i = 0; i < out.rows(); ++i) out(i, j) = m(rows[i], cols[j]);
  return out;
}

}  // namespace

GraphGpPrediction predict_graph_gp(const Matrix& signal, double noise_variance,
                                   const std::vector<Index>& train, const std::vector<Index>& test,
                                   const ConstMatrixRef& y_train) {
  require(signal.rows() == signal.cols(), "the graph-GP covariance must be square",
          {"", "signal", std::to_string(signal.rows()) + " x " + std::to_string(signal.cols())});
  require_vertex_lists(signal.rows(), train, test);
  require(y_train.rows() == static_cast<Index>(train.size()), "Y_train needs one row per training vertex",
          {"", "y_train", std::to_string(y_train.rows()) + " rows for " + std::to_string(train.size())});
  require(std::isfinite(noise_variance) && noise_variance >= 0, "the graph-GP noise variance must be >= 0",
          {"", kGraphGpNoiseKey, std::to_string(noise_variance)});
  Matrix k_rr = submatrix(signal, train, train);
  k_rr.diagonal().array() += noise_variance;
  const CholeskyFactor factor = CholeskyFactor::factorize(std::move(k_rr), "graph-GP training covariance");
  // With K_rr + sigma_n^2 I = R R^T: B = R^-1 K_rt and W = R^-1 Y_r give the mean B^T W and the
  // variance reduction as the squared column norms of B.
  Matrix b = submatrix(signal, train, test);
  factor.solve_lower_in_place(b);
  Matrix w = y_train;
  factor.solve_lower_in_place(w);
  GraphGpPrediction out;
  out.mean = b.transpose() * w;
  out.variance = submatrix(signal, test, test).diagonal() - b.colwise().squaredNorm().transpose();
  out.jitter = factor.jitter();
  return out;
}

GraphGpPrediction predict_graph_gp(const GraphSpectrum& spectrum, const GraphKernel& kernel,
                                   const GraphGpHyperparameters& hyper, bool normalise,
                                   const std::vector<Index>& train, const std::vector<Index>& test,
                                   const ConstMatrixRef& y_train) {
  return predict_graph_gp(graph_gp_covariance(spectrum, kernel, hyper, normalise, false),
                          hyper.noise_variance, train, test, y_train);
}

}  // namespace gplvm
