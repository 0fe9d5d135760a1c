#include "gplvm/model/psi_quadrature.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// The counter RNG's key of the Monte Carlo nodes: part of the reproducibility contract.
constexpr std::uint64_t kPsiNodeSeed = 0x5053494e4f444553ULL;  // "PSINODES"

void require_setting(Index value, const char* key) {
  if (value < 1)
    throw InputError("psi quadrature setting must be at least 1", {"", key, std::to_string(value)});
}

// One-dimensional Gauss-Hermite rule for the standard normal (Golub-Welsch): the nodes are the
// eigenvalues of the Jacobi matrix of the monic Hermite polynomials He_k (x He_k = He_{k+1} +
// k He_{k-1}), the weights the squared first components of its unit eigenvectors.
void hermite_rule(Index order, Vector& nodes, Vector& weights) {
  Matrix jacobi = Matrix::Zero(order, order);
  for (Index k = 1; k < order; ++k) jacobi(k, k - 1) = jacobi(k - 1, k) = std::sqrt(static_cast<double>(k));
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(jacobi);
  nodes = eigen.eigenvalues();
  weights = eigen.eigenvectors().row(0).array().square().transpose();
  weights /= weights.sum();  // one to rounding already; exact normalisation keeps sum_k w_k = 1
}

}  // namespace

PsiNodes gauss_hermite_nodes(Index input_dim, Index order) {
  require_setting(input_dim, "latent_dim");
  require_setting(order, "psi.hermite_order");
  Vector nodes, weights;
  hermite_rule(order, nodes, weights);
  Index count = 1;
  for (Index q = 0; q < input_dim; ++q) count *= order;
  PsiNodes out{Matrix(count, input_dim), Vector(count)};
  for (Index s = 0; s < count; ++s) {
    // Node s has digit (s / order^q) % order in dimension q.
    Index rest = s;
    double w = 1.0;
    for (Index q = 0; q < input_dim; ++q, rest /= order) {
      out.epsilon(s, q) = nodes[rest % order];
      w *= weights[rest % order];
    }
    out.weights[s] = w;
  }
  return out;
}

PsiNodes monte_carlo_nodes(Index input_dim, Index count) {
  require_setting(input_dim, "latent_dim");
  require_setting(count, "psi.monte_carlo_nodes");
  const Index pairs = (count + 1) / 2;
  const CounterRng rng(kPsiNodeSeed);
  PsiNodes out{Matrix(2 * pairs, input_dim),
               Vector::Constant(2 * pairs, 1.0 / static_cast<double>(2 * pairs))};
  for (Index k = 0; k < pairs; ++k)
    for (Index q = 0; q < input_dim; ++q) {
      const double e =
          rng.normal(RngPurpose::psi_nodes, 0, static_cast<std::uint64_t>(q), static_cast<std::uint64_t>(k));
      out.epsilon(2 * k, q) = e;
      out.epsilon(2 * k + 1, q) = -e;
    }
  return out;
}

Index default_hermite_order(Index input_dim) {
  // Q = 1, 2, 3: 32, 20, 10 points (accuracy in the header); above, about a thousand nodes.
  if (input_dim <= 1) return 32;
  if (input_dim == 2) return 20;
  if (input_dim == 3) return 10;
  return std::max<Index>(2, static_cast<Index>(std::pow(1000.0, 1.0 / static_cast<double>(input_dim))));
}

PsiNodes psi_nodes(Index input_dim, const PsiQuadrature& settings) {
  // 0 is allowed: Monte Carlo at every Q.
  if (settings.max_tensor_dim < 0)
    throw InputError("psi quadrature setting must be non-negative",
                     {"", "psi.max_tensor_dim", std::to_string(settings.max_tensor_dim)});
  if (settings.hermite_order < 0)
    throw InputError("psi quadrature setting must be non-negative",
                     {"", "psi.hermite_order", std::to_string(settings.hermite_order)});
  if (input_dim > settings.max_tensor_dim) return monte_carlo_nodes(input_dim, settings.monte_carlo_nodes);
  const Index order = settings.hermite_order > 0 ? settings.hermite_order : default_hermite_order(input_dim);
  return gauss_hermite_nodes(input_dim, order);
}

}  // namespace gplvm
