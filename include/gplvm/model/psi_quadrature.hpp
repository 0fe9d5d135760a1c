#pragma once
// The nodes of the numerical Psi-statistics (Kernel's default psi_statistics / psi_backward).
//
// Every expectation E[f(x)] under x ~ N(mu, diag(s)) is written as sum_k w_k f(mu + sqrt(s) o e_k)
// over standard-normal nodes e_k with weights w_k summing to one. The nodes depend only on Q and
// on these settings, never on the data: the statistics are a deterministic, differentiable
// function of (mu, s, Z, hyperparameters), the same on every rank and at every call, so the
// adjoint is the exact derivative of the value and finite differences can check it.
//
//   Q <= max_tensor_dim: the tensor product of one-dimensional Gauss-Hermite rules, of
//     `hermite_order` points each, or when that is 0 of 32, 20 and 10 points for Q = 1, 2, 3 (32,
//     400 and 1000 nodes: about the cost of the Monte Carlo rule). The rule's error grows with
//     rho = s / l^2 (the input variance against the kernel's lengthscale); for the EQ kernel's psi2,
//     the hardest of these integrands, these orders give relative errors below about 1e-9 up to
//     rho = 1 (Q = 1), 3e-10 up to rho = 0.5 (Q = 2) and 2e-8 up to rho = 0.2 (Q = 3); psi1 is
//     one to three orders of magnitude more accurate (docs/math/kernels.md has the table).
//   Q > max_tensor_dim: `monte_carlo_nodes` fixed Monte Carlo nodes from the counter RNG
//     (RngPurpose::psi_nodes), in antithetic pairs (e, -e): odd moments of the node set are exactly
//     zero, and the error is O(1 / sqrt(monte_carlo_nodes)) (docs/math/kernels.md).
#include "gplvm/core/types.hpp"

namespace gplvm {

struct PsiQuadrature {
  Index max_tensor_dim = 3;       // 0: Monte Carlo at every Q
  Index hermite_order = 0;        // points per dimension; 0: by Q (see above)
  Index monte_carlo_nodes = 512;  // rounded up to an even count
};

// Standard-normal nodes (one per row of `epsilon`, S x Q) and their weights (S, summing to one).
struct PsiNodes {
  Matrix epsilon;
  Vector weights;
};

// The nodes the settings choose for Q latent dimensions; InputError for Q < 1 or a setting < 1.
PsiNodes psi_nodes(Index input_dim, const PsiQuadrature& settings = {});
// The two rules on their own: order^Q tensor Gauss-Hermite nodes, and `count` Monte Carlo nodes.
// default_hermite_order(Q) is the order hermite_order = 0 stands for.
Index default_hermite_order(Index input_dim);
PsiNodes gauss_hermite_nodes(Index input_dim, Index order);
PsiNodes monte_carlo_nodes(Index input_dim, Index count);

}  // namespace gplvm
