#pragma once
// Small LL-LVM problems for the tests: random connected graphs with random data, and points on
// curves and surfaces with their known coordinates.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/lllvm_problem.hpp"
#include "gplvm/lllvm/neighbourhood_graph.hpp"
#include "lllvm_oracle.hpp"

namespace gplvm::testing {

inline double test_normal(std::uint64_t seed, std::uint64_t step, std::uint64_t index) {
  return CounterRng(seed).normal(RngPurpose::test, 0, step, index);
}

inline Matrix random_matrix(Index rows, Index cols, std::uint64_t seed, std::uint64_t step) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = test_normal(seed, step, static_cast<std::uint64_t>(i));
  return m;
}

// A symmetric positive-definite matrix with entries of order 1.
inline Matrix random_spd(Index size, std::uint64_t seed, std::uint64_t step) {
  const Matrix a = random_matrix(size, size, seed, step);
  return a * a.transpose() / static_cast<double>(size) + 0.1 * Matrix::Identity(size, size);
}

// A connected graph on n vertices: a path through them all (so it is connected) plus each other
// pair with probability about 0.3.
inline Matrix random_connected_adjacency(Index n, std::uint64_t seed) {
  Matrix g = Matrix::Zero(n, n);
  const CounterRng rng(seed);
  for (Index i = 0; i < n; ++i)
    for (Index j = i + 1; j < n; ++j) {
      const bool edge =
          j == i + 1 || rng.uniform(RngPurpose::test, 1, 0, static_cast<std::uint64_t>(i * n + j)) < 0.3;
      g(i, j) = g(j, i) = edge ? 1.0 : 0.0;
    }
  return g;
}

inline NeighbourhoodGraph graph_of(const Matrix& adjacency) {
  return neighbourhood_graph(adjacency.sparseView(), lllvm_oracle::laplacian(adjacency).sparseView());
}

// The symmetric (union) k-NN graph of the rows, brute force.
inline Matrix knn_adjacency(const Matrix& y, Index k) {
  const Index n = y.rows();
  Matrix g = Matrix::Zero(n, n);
  for (Index i = 0; i < n; ++i) {
    Vector d = (y.rowwise() - y.row(i)).rowwise().squaredNorm();
    d[i] = std::numeric_limits<double>::infinity();
    for (Index t = 0; t < k; ++t) {
      Index nearest = 0;
      d.minCoeff(&nearest);
      g(i, nearest) = g(nearest, i) = 1.0;
      d[nearest] = std::numeric_limits<double>::infinity();
    }
  }
  return g;
}

// Rows centred and scaled by the largest absolute entry, as the LL-LVM authors preprocess.
inline Matrix centred_and_scaled(Matrix y) {
  y.rowwise() -= y.colwise().mean();
  return y / y.cwiseAbs().maxCoeff();
}

struct CurveSample {
  Matrix y;    // n x 3
  Vector arc;  // arc length (or any monotone function of it)
};

// n points along a helix, evenly spaced in its parameter up to a small jitter, with isotropic noise:
// arc length is proportional to the parameter.
inline CurveSample helix(Index n, double noise, std::uint64_t seed) {
  CurveSample s{Matrix(n, 3), Vector(n)};
  for (Index i = 0; i < n; ++i) {
    const double t = 1.5 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n - 1) +
                     0.02 * test_normal(seed, 2, static_cast<std::uint64_t>(i));
    s.arc[i] = t;
    s.y.row(i) << std::cos(t), std::sin(t), 0.3 * t;
  }
  s.y += noise * random_matrix(n, 3, seed, 3);
  s.y = centred_and_scaled(s.y);
  return s;
}

// The LL-LVM authors' swiss roll: t = (5 pi / 4)(1 + 2u), h = 10 v, y = (0.35 t cos t, h, 0.35 t sin t).
inline Matrix swiss_roll(Index n, std::uint64_t seed) {
  Matrix y(n, 3);
  const CounterRng rng(seed);
  for (Index i = 0; i < n; ++i) {
    const double t = 1.25 * std::numbers::pi *
                     (1.0 + 2.0 * rng.uniform(RngPurpose::test, 4, 0, static_cast<std::uint64_t>(i)));
    const double h = 10.0 * rng.uniform(RngPurpose::test, 4, 1, static_cast<std::uint64_t>(i));
    y.row(i) << 0.35 * t * std::cos(t), h, 0.35 * t * std::sin(t);
  }
  return centred_and_scaled(y);
}

}  // namespace gplvm::testing
