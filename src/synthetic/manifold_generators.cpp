#include "gplvm/synthetic/manifold_generators.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/manifold/kendall_shape_space.hpp"
#include "gplvm/manifold/spd_log_euclidean.hpp"
#include "gplvm/manifold/spd_matrix_functions.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"

namespace gplvm {
namespace {

constexpr double kPi = std::numbers::pi;

// Streams of RngPurpose::generator for these data sets (the epoch argument), apart from the
// other generators' (which use small step tags under epoch 0).
enum Stream : std::uint64_t { kLatent = 1001, kNoise = 1002, kPose = 1003, kBasis = 1004 };

double uniform(const CounterRng& rng, Stream stream, Index row, Index j) {
  return rng.uniform(RngPurpose::generator, stream, static_cast<std::uint64_t>(row),
                     static_cast<std::uint64_t>(j));
}

double normal(const CounterRng& rng, Stream stream, Index row, Index j) {
  return rng.normal(RngPurpose::generator, stream, static_cast<std::uint64_t>(row),
                    static_cast<std::uint64_t>(j));
}

void require_rows(Index N, double noise) {
  require(N >= 1, "synthetic data: at least one row", {"", "num_rows", std::to_string(N)});
  require(noise >= 0 && std::isfinite(noise), "synthetic data: noise must be finite and non-negative",
          {"", "noise", std::to_string(noise)});
}

std::int64_t bin_of(double value, double lo, double hi, int bins) {
  const auto b = static_cast<std::int64_t>(std::floor((value - lo) / (hi - lo) * bins));
  return std::clamp<std::int64_t>(b, 0, bins - 1);
}

// P^1/2 exp(noise S) P^1/2 with S a symmetric matrix of N(0, 1) entries (row's own stream).
Matrix perturb_spd(const Matrix& p, const CounterRng& rng, Index row, double noise) {
  const Index n = p.rows();
  Matrix s(n, n);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) s(i, j) = normal(rng, kNoise, row, i * n + j);
  const Matrix root = spd::sqrt(p);
  return spd::symmetric_part(root * spd::exp(noise * spd::symmetric_part(s)) * root);
}

std::string str(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

double fractional_anisotropy(const Vector& eigenvalues) {
  const double mean = eigenvalues.mean();
  return std::sqrt(1.5) * (eigenvalues.array() - mean).matrix().norm() / eigenvalues.norm();
}

SyntheticData sphere_curve(Index N, std::uint64_t seed, double noise) {
  require_rows(N, noise);
  const CounterRng rng(seed);
  const Vector pole{{0.0, 0.0, 1.0}}, e1{{1.0, 0.0, 0.0}}, e2{{0.0, 1.0, 0.0}};
  SyntheticData data;
  data.Y.resize(N, 3);
  data.latent_true.resize(N, 1);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index n = 0; n < N; ++n) {
    const double t = 2.0 * kPi * uniform(rng, kLatent, n, 0);
    const Vector v = (0.5 * std::cos(t) + noise * normal(rng, kNoise, n, 0)) * e1 +
                     (0.5 * std::sin(t) + noise * normal(rng, kNoise, n, 1)) * e2;
    data.Y.row(n) = sphere::exp_map(pole, v).transpose();
    data.latent_true(n, 0) = t;
    data.labels[static_cast<std::size_t>(n)] = bin_of(t, 0.0, 2.0 * kPi, 6);
  }
  data.point_shape = {3};
  data.output_space = kSphereSpace;
  data.description =
      "sphere_curve: N=" + std::to_string(N) + " seed=" + std::to_string(seed) + " noise=" + str(noise);
  return data;
}

SyntheticData planar_shapes(Index N, Index landmarks, std::uint64_t seed, double noise) {
  require_rows(N, noise);
  require(landmarks >= 3, "synthetic shapes need at least 3 landmarks",
          {"", "landmarks", std::to_string(landmarks)});
  const CounterRng rng(seed);
  SyntheticData data;
  data.Y.resize(N, 2 * landmarks);
  data.latent_true.resize(N, 2);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index n = 0; n < N; ++n) {
    const double a = 2.0 * uniform(rng, kLatent, n, 0) - 1.0, b = 2.0 * uniform(rng, kLatent, n, 1) - 1.0;
    const double angle = 2.0 * kPi * uniform(rng, kPose, n, 0),
                 scale = std::exp(uniform(rng, kPose, n, 1) - 0.5);
    const double dx = 10.0 * uniform(rng, kPose, n, 2) - 5.0, dy = 10.0 * uniform(rng, kPose, n, 3) - 5.0;
    for (Index j = 0; j < landmarks; ++j) {
      const double theta = 2.0 * kPi * static_cast<double>(j) / static_cast<double>(landmarks);
      const double x = std::cos(theta) + noise * normal(rng, kNoise, n, 2 * j);
      const double y =
          std::exp(0.5 * a) * std::sin(theta) + 0.4 * b * x * x + noise * normal(rng, kNoise, n, 2 * j + 1);
      data.Y(n, 2 * j) = scale * (std::cos(angle) * x - std::sin(angle) * y) + dx;
      data.Y(n, 2 * j + 1) = scale * (std::sin(angle) * x + std::cos(angle) * y) + dy;
    }
    data.latent_true.row(n) << a, b;
    data.labels[static_cast<std::size_t>(n)] = (a > 0) + 2 * (b > 0);
  }
  data.point_shape = {static_cast<std::uint64_t>(landmarks), 2};
  data.output_space = kKendallSpace;
  data.description = "shapes: N=" + std::to_string(N) + " landmarks=" + std::to_string(landmarks) +
                     " seed=" + std::to_string(seed) + " noise=" + str(noise);
  return data;
}

SyntheticData spd_tensors(Index N, std::uint64_t seed, double noise) {
  require_rows(N, noise);
  const CounterRng rng(seed);
  SyntheticData data;
  data.Y.resize(N, 9);
  data.latent_true.resize(N, 2);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index n = 0; n < N; ++n) {
    const double u = uniform(rng, kLatent, n, 0), phi = kPi * uniform(rng, kLatent, n, 1);
    const Vector values{{std::exp(2.0 * u), std::exp(-u), std::exp(-u)}};
    Matrix rotation = Matrix::Identity(3, 3);
    rotation.topLeftCorner(2, 2) << std::cos(phi), -std::sin(phi), std::sin(phi), std::cos(phi);
    const Matrix p = perturb_spd(rotation * values.asDiagonal() * rotation.transpose(), rng, n, noise);
    data.Y.row(n) = spd::as_flat(p).transpose();
    data.latent_true.row(n) << u, phi;
    const Vector observed = Eigen::SelfAdjointEigenSolver<Matrix>(p).eigenvalues();
    data.labels[static_cast<std::size_t>(n)] = bin_of(fractional_anisotropy(observed), 0.0, 1.0, 5);
  }
  data.point_shape = {3, 3};
  data.output_space = kSpdLogEuclideanSpace;
  data.description =
      "spd_tensors: N=" + std::to_string(N) + " seed=" + std::to_string(seed) + " noise=" + str(noise);
  return data;
}

SyntheticData spd_covariances(Index N, std::uint64_t seed, double noise) {
  require_rows(N, noise);
  const CounterRng rng(seed);
  const Index n_order = 10;
  // A fixed random orthonormal frame (QR of a Gaussian matrix from the seed's own stream).
  Matrix gaussian(n_order, n_order);
  for (Index i = 0; i < n_order; ++i)
    for (Index j = 0; j < n_order; ++j) gaussian(i, j) = normal(rng, kBasis, 0, i * n_order + j);
  const Matrix frame =
      Eigen::HouseholderQR<Matrix>(gaussian).householderQ() * Matrix::Identity(n_order, n_order);
  SyntheticData data;
  data.Y.resize(N, n_order * n_order);
  data.latent_true.resize(N, 2);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index n = 0; n < N; ++n) {
    const double t = uniform(rng, kLatent, n, 0), s = 2.0 * uniform(rng, kLatent, n, 1) - 1.0;
    Vector log_values(n_order);
    for (Index i = 0; i < n_order; ++i) {
      const double centred = (static_cast<double>(i) - 4.5) / 4.5;
      log_values[i] = std::log(10.0) * 5.0 * static_cast<double>(i) / 9.0 + s * centred;
    }
    Matrix turn = Matrix::Identity(n_order, n_order);
    const double angle = t * kPi / 2.0;
    turn.topLeftCorner(2, 2) << std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle);
    const Matrix axes = frame * turn;
    const Matrix p = axes * log_values.array().exp().matrix().asDiagonal() * axes.transpose();
    data.Y.row(n) = spd::as_flat(perturb_spd(spd::symmetric_part(p), rng, n, noise)).transpose();
    data.latent_true.row(n) << t, s;
    data.labels[static_cast<std::size_t>(n)] = bin_of(t, 0.0, 1.0, 5);
  }
  data.point_shape = {10, 10};
  data.output_space = kSpdLogEuclideanSpace;
  data.description =
      "spd_covariances: N=" + std::to_string(N) + " seed=" + std::to_string(seed) + " noise=" + str(noise);
  return data;
}

}  // namespace gplvm
