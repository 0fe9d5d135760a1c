#pragma once
// The expected energy and length of a discrete latent curve under a GP decoder
// (docs/math/geometry.md, "Curves"). For nodes c_1..c_N the decoded segments
// Delta_i = f(c_{i+1}) - f(c_i) of the noise-free decoder have
//   e_i = E|Delta_i|^2 = |mu_{i+1} - mu_i|^2 + D (s_ii + s_{i+1,i+1} - 2 s_{i,i+1}),
// mu the posterior mean and s the posterior covariance of f between nodes (shared by the D outputs;
// the two end variances differ in general). Over a fine discretisation sum_i e_i (N - 1) tends to
// the energy integral of x'^T E[G] x' over [0, 1], so
//   energy = (N - 1) sum_i e_i,   length = sum_i sqrt(e_i).
// Written as energy = (N - 1) (|W^{1/2} mu|^2 + D <W, S>) with W the path's Laplacian, its gradient
// with respect to the nodes goes through the kernel's adjoints, never forming a derivative of k.
#include "gplvm/core/types.hpp"
#include "gplvm/models/gp_posterior.hpp"

namespace gplvm {

struct CurveEnergy {
  double energy = 0.0;
  double length = 0.0;  // expected length in data space (each segment's sqrt(e_i))
  Vector segments;      // e_i (N - 1)
  Matrix gradient;      // d energy / d nodes (N x Q); empty unless asked for
};

// nodes: N >= 2 rows of the decoder's input coordinates. InputError for fewer than 2 nodes or
// non-finite ones. `reduction` (posterior_reduction below) turns each evaluation's two triangular
// solves into one matrix product, for many evaluations on one posterior (a geodesic's solve).
CurveEnergy expected_curve_energy(const GpPosterior& posterior, const ConstMatrixRef& nodes,
                                  bool with_gradient, const Matrix* reduction = nullptr);

// P = K^{-1} - R R^T (M x M): the posterior covariance is k(a, b) - k(Z, a)^T P k(Z, b).
Matrix posterior_reduction(const GpPosterior& posterior);

// sum_i |c_{i+1} - c_i|: the curve's length in latent coordinates.
double latent_length(const ConstMatrixRef& nodes);

}  // namespace gplvm
