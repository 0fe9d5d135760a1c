#pragma once
// What stays fixed through an LL-LVM fit (docs/math/lllvm.md, "The model"): the data, the graph,
// the spectrum and pseudo-inverse of its Laplacian, the coupling operators built on L^+, the latent
// dimension d_x and eps (the scale of the average linear map in C's prior), with the data's
// statistics the bound reads.
#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/coupling_forms.hpp"
#include "gplvm/lllvm/laplacian_spectrum.hpp"
#include "gplvm/lllvm/neighbourhood_graph.hpp"

namespace gplvm {

struct LllvmProblem {
  Matrix y;  // n x d_y, one row per graph vertex
  NeighbourhoodGraph graph;
  LaplacianSpectrum spectrum;
  CouplingOperators operators;  // with K = L^+
  Index latent_dims = 0;        // d_x
  double epsilon = 0.0;
  double data_laplacian_trace = 0.0;  // tr(Y^T L Y) = (1/2) sum_ij eta_ij |y_i - y_j|^2
  double data_sum_squared = 0.0;      // |sum_i y_i|^2

  Index nodes() const noexcept { return y.rows(); }
  Index data_dims() const noexcept { return y.cols(); }
  Index latent_size() const noexcept { return nodes() * latent_dims; }  // n d_x
};

// InputError naming the key: y's rows not the graph's vertices ("y"), d_x < 1 ("lllvm.latent_dims"),
// eps <= 0 ("lllvm.epsilon"), a NaN or Inf in y ("y").
LllvmProblem lllvm_problem(Matrix y, NeighbourhoodGraph graph, Index latent_dims, double epsilon);

}  // namespace gplvm
