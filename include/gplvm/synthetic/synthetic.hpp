#pragma once
// Synthetic data sets with a known generating latent, for tests, examples and scaling studies.
//
// Every generator is a pure function of (parameters, seed): each random number is a CounterRng
// draw with RngPurpose::generator, keyed by a stream number private to its use (passed as the
// RNG epoch) and by the global index of what it belongs to (row, column, tree node ...). Nothing
// depends on the thread or rank count, and changing one noise level does not move any other draw
// (the latents of a noise-free and a noisy set with the same seed are identical).
//
// Choosing a generator:
//   gp_samples          exact GP prior sample; O(N^3) time, O(N^2) memory, N <= kMaxExactGpRows.
//   GpRandomFeatures    approximate GP sample (random Fourier features of the EQ kernel); O(N M (Q + D)),
//                       and any row block can be generated alone (one MPI rank's rows).
//   swiss_roll          2-D manifold rolled up in 3-D, isometrically embedded in D dimensions.
//   rotating_pattern_cycle  images of one pattern at N rotation angles: a closed 1-D manifold.
//   binary_tree         hierarchical clusters: points around the leaves of a random binary tree.
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

struct SyntheticData {
  RowMatrix Y;                       // N x D observations
  Matrix latent_true;                // N x Q_true generating latent (its meaning is per generator)
  std::vector<std::int64_t> labels;  // N class labels for colouring plots and for metrics
  std::string description;           // one line naming the generator and every parameter
  // Data on an output manifold (synthetic/manifold_generators.hpp): each row's array shape and the
  // manifold's name, stored with /Y; empty for Euclidean rows.
  std::vector<std::uint64_t> point_shape;
  std::string output_space;
};

// Above this, an exact GP sample (an N x N Cholesky) is too slow and too big: use GpRandomFeatures.
inline constexpr Index kMaxExactGpRows = 20000;

// Exact GP-LVM data: X ~ N(0, I_Q) row-wise, y_d ~ N(0, K(X, X) + noise_variance I) for d = 1..D with
// the EQ kernel (variance, isotropic lengthscale). latent_true = X (N x Q).
// labels = orthant of the latent over its first min(Q, 3) dimensions: sum_q [x_q > 0] 2^q, so 2..8 classes.
// Throws InputError for N > kMaxExactGpRows, naming the scalable generators.
SyntheticData gp_samples(Index N, Index D, Index Q, std::uint64_t seed, double kernel_variance = 1.0,
                         double lengthscale = 1.0, double noise_variance = 0.01);

// Approximate GP-LVM data at any N: f(x) = phi(x)^T W with M random Fourier features of the EQ kernel,
//   phi(x) = sqrt(variance / H) [cos(omega_h . x), sin(omega_h . x)]_{h=1..H},  H = M / 2,
//   omega_h ~ N(0, I / lengthscale^2),  W ~ N(0, I) (M x D),
// so phi(x).phi(x') -> k(x, x') as M grows and Var f(x) = variance exactly. Y = f(X) + N(0, noise_variance).
// The latents use the same draws as gp_samples: with the same (N, Q, seed) both give the same X.
// Labels as in gp_samples. Row n depends only on (parameters, seed, n), bit for bit: generate_rows
// uses no BLAS and no reductions whose order could depend on the block.
class GpRandomFeatures {
 public:
  static constexpr Index kDefaultFeatures = 256;

  GpRandomFeatures(Index N, Index D, Index Q, std::uint64_t seed, double kernel_variance = 1.0,
                   double lengthscale = 1.0, double noise_variance = 0.01,
                   Index num_features = kDefaultFeatures);

  Index rows() const noexcept { return N_; }
  Index output_dim() const noexcept { return W_.cols(); }
  Index latent_dim() const noexcept { return omega_.cols(); }

  // Rows [row_begin, row_begin + row_count) of the full set, identical to those rows of generate_all().
  // row_count may be 0 (a rank with no rows). Cost O(row_count M (Q + D)), memory O(row_count D + M D).
  SyntheticData generate_rows(Index row_begin, Index row_count) const;
  SyntheticData generate_all() const { return generate_rows(0, N_); }

 private:
  void fill_row(Index n, double* latent, double* features, double* y) const;

  Index N_;
  std::uint64_t seed_;
  double noise_std_;
  double feature_scale_;
  Matrix omega_;  // H x Q frequencies
  RowMatrix W_;   // M x D feature weights; row-major so one feature's weights are contiguous
  std::string description_;
};

// The whole set; equals GpRandomFeatures(...).generate_all().
SyntheticData gp_random_features(Index N, Index D, Index Q, std::uint64_t seed, double kernel_variance = 1.0,
                                 double lengthscale = 1.0, double noise_variance = 0.01,
                                 Index num_features = GpRandomFeatures::kDefaultFeatures);

// Swiss roll: t ~ U(1.5 pi, 4.5 pi), h ~ U(0, 21) (the usual parametrisation), point
// (t cos t, h, t sin t) in 3-D, mapped into D >= 3 dimensions by a fixed random D x 3 matrix with
// orthonormal columns (an isometry, so distances on the roll are kept), plus N(0, noise^2) in every
// one of the D coordinates (noise is a standard deviation). latent_true = (t, h).
// labels = 6 equal-width bins of t (0 = innermost turn).
SyntheticData swiss_roll(Index N, Index D, std::uint64_t seed, double noise = 0.05);

// N images (side x side pixels, D = side^2, side >= 2) of one asymmetric pattern rotated about the image
// centre by angle a_k = 2 pi k / N, k = 0..N-1, in that row order, plus N(0, noise^2) per pixel.
// The pattern is a sum of Gaussian blobs: a fixed bright off-centre blob (so no rotation but the
// identity maps the pattern onto itself) and three blobs drawn from the seed; it is evaluated
// analytically at the rotated pixel centres, so there is no interpolation. Pixel (i, j) is Y column
// i * side + j (row-major image). latent_true = (cos a_k, sin a_k); labels = 8 equal angle bins.
SyntheticData rotating_pattern_cycle(Index N, Index D, std::uint64_t seed, double noise = 0.02);

// Hierarchical clusters. A complete binary tree with 2^depth leaves (1 <= depth <= 20): the root centre is 0
// in R^D, and a node at level l (root = 0) sits at its parent's centre plus N(0, s_l^2 I_D), s_l =
// branch_scale * 2^{-(l-1)/2} (variance halves per level, so subtrees stay apart from their siblings'
// subtrees). Each leaf gets points_per_leaf points: leaf centre + N(0, point_noise^2 I_D). Rows are grouped
// by leaf, leaves in left-to-right order; N = 2^depth * points_per_leaf. labels = leaf index 0 .. 2^depth - 1
// (its binary digits, most significant first, are the left/right turns).
// latent_true = the leaf's position in a 2-D "H-tree" layout of the tree: turn l (1-based from the root)
// moves -2^-l (left) or +2^-l (right) along x for odd l and along y for even l. Every subtree occupies its
// own rectangle and a leaf's nearest leaf is its sibling; all points of a leaf share its position.
SyntheticData binary_tree(Index depth, Index points_per_leaf, Index D, std::uint64_t seed,
                          double point_noise = 0.1, double branch_scale = 1.0);

// The same tree with N points in all (N >= 2^depth): leaf l holds rows [ceil(l N / L), ceil((l + 1) N / L)),
// L = 2^depth, so leaf sizes differ by at most one; binary_tree(depth, p, ...) is binary_tree_rows(depth,
// 2^depth p, ...) row for row.
SyntheticData binary_tree_rows(Index depth, Index N, Index D, std::uint64_t seed, double point_noise = 0.1,
                               double branch_scale = 1.0);

}  // namespace gplvm
