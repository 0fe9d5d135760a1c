#include "gplvm/lllvm/lllvm_problem.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

void require_valid_inputs(const Matrix& y, const NeighbourhoodGraph& graph, Index latent_dims,
                          double epsilon) {
  require(y.rows() == graph.size(), "LL-LVM needs one data row per graph vertex",
          {"", "y", std::to_string(y.rows()) + " rows for " + std::to_string(graph.size()) + " vertices"});
  require(y.cols() >= 1 && y.allFinite(), "the data must have at least one column and no NaN or Inf",
          {"", "y"});
  require(latent_dims >= 1, "the latent dimension must be at least 1",
          {"", "lllvm.latent_dims", std::to_string(latent_dims)});
  require(epsilon > 0.0 && std::isfinite(epsilon),
          "eps (the prior precision of the mean linear map) must be > 0",
          {"", "lllvm.epsilon", std::to_string(epsilon)});
}

}  // namespace

LllvmProblem lllvm_problem(Matrix y, NeighbourhoodGraph graph, Index latent_dims, double epsilon) {
  require_valid_inputs(y, graph, latent_dims, epsilon);
  LaplacianSpectrum spectrum = laplacian_spectrum(graph);
  CouplingOperators operators = coupling_operators(graph, spectrum.pseudo_inverse);
  const double laplacian_trace = (y.transpose() * (graph.laplacian * y)).trace();
  const double sum_squared = y.colwise().sum().squaredNorm();
  return {std::move(y), std::move(graph), std::move(spectrum), std::move(operators),
          latent_dims,  epsilon,          laplacian_trace,     sum_squared};
}

}  // namespace gplvm
