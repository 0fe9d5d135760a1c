#pragma once
// Posteriors the geometry tests share: a GP decoder conditioned on observed rows (no spread) or on
// inducing values (with a spread R), both on smooth 2-D latents, and a dense reference of the
// noise-free posterior's mean and covariance written out from the textbook formulas.
#include <cmath>

#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/models/gp_posterior.hpp"
#include "support/test_support.hpp"

namespace gplvm::testing {

inline constexpr Index kGeometryQ = 2;
inline constexpr Index kGeometryD = 4;

// Latents on a noisy circle, outputs smooth functions of them: a decoder with structure to follow.
inline Matrix circle_latents(Index n, std::uint64_t seed) {
  Matrix Z(n, kGeometryQ);
  const Matrix noise = random_normal(n, kGeometryQ, seed);
  for (Index i = 0; i < n; ++i) {
    const double a = 2.0 * M_PI * static_cast<double>(i) / static_cast<double>(n);
    Z(i, 0) = 1.5 * std::cos(a) + 0.05 * noise(i, 0);
    Z(i, 1) = 1.5 * std::sin(a) + 0.05 * noise(i, 1);
  }
  return Z;
}

inline Matrix smooth_outputs(const Matrix& Z) {
  Matrix Y(Z.rows(), kGeometryD);
  for (Index i = 0; i < Z.rows(); ++i) {
    const double x = Z(i, 0), y = Z(i, 1);
    Y.row(i) << std::sin(x), std::cos(y), x * y, std::sin(x + y);
  }
  return Y;
}

inline std::unique_ptr<Kernel> geometry_kernel(const std::string& expression) {
  auto k = make_kernel(expression, kGeometryQ, KernelInit{1.2, 0.9, 2.0});
  const Vector h = k->hyperparameters() + 0.2 * random_normal(k->num_hyperparameters(), 1, 5).col(0);
  k->set_hyperparameters(h);
  return k;
}

inline GpPosterior observed_posterior(const std::string& expression, Index n = 24) {
  const Matrix Z = circle_latents(n, 3);
  return GpPosterior::given_observations(*geometry_kernel(expression), Z, smooth_outputs(Z), 0.01);
}

inline GpPosterior inducing_posterior(const std::string& expression, Index m = 12) {
  const Matrix Z = circle_latents(m, 4);
  InducingPosterior q;
  q.mean = smooth_outputs(Z);
  q.scale = 0.1 * Matrix::Identity(m, m);
  q.scale.triangularView<Eigen::StrictlyLower>() = 0.02 * random_normal(m, m, 6);
  return GpPosterior::given_inducing(*geometry_kernel(expression), Z, q, 0.01);
}

// A decoder on the sphere S^2: sphere_eq on n random unit vectors of R^3, 3 smooth outputs, noise 0.05.
inline GpPosterior sphere_posterior(Index n, std::uint64_t seed) {
  Matrix Z = random_normal(n, 3, seed);
  Z.rowwise().normalize();
  Matrix Y(n, 3);
  Y << Z.col(0).array().sin(), Z.col(1).array() * Z.col(2).array(), Z.col(2).array().cos();
  return GpPosterior::given_observations(*make_kernel("sphere_eq", 3, KernelInit{1.0, 0.7, 1.0}), Z, Y, 0.05);
}

// cov(f(a), f(b)) of the noise-free posterior given observed rows, from the dense formula
// k(a, b) - k(Z, a)^T (K + s2 I)^{-1} k(Z, b), independent of GpPosterior's factorisation.
inline double dense_posterior_covariance(const Kernel& k, const Matrix& Z, double noise, const Matrix& a,
                                         const Matrix& b) {
  Matrix K, ka, kb, kab;
  k.cross(Z, Z, K);
  K.diagonal().array() += noise;
  k.cross(Z, a, ka);
  k.cross(Z, b, kb);
  k.cross(a, b, kab);
  return kab(0, 0) - (ka.transpose() * K.ldlt().solve(kb))(0, 0);
}

}  // namespace gplvm::testing
