#pragma once
// UMAP's data-space memberships (docs/math/neighbour_embedding.md): the smooth k-NN distances
// v_{j|i} = exp(-(d_ij - rho_i) / sigma_i) on each row's k neighbours, with rho_i the distance to
// the nearest neighbour that is not a duplicate and sigma_i such that sum_j v_{j|i} = log2 k, and
// their fuzzy union v_ij = v_{j|i} + v_{i|j} - v_{j|i} v_{i|j}; and the latent-space curve
// w(d) = 1 / (1 + a d^{2b}) fitted to min_dist and spread as umap-learn fits it.
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct UmapMembershipOptions {
  double local_connectivity = 1.0;  // probdr.local_connectivity: rho_i interpolates the nearest neighbours
  double bandwidth = 1.0;           // the target sum is bandwidth * log2 k (umap-learn's)
  double tolerance = 1e-5;          // |sum - target| relative, umap-learn's SMOOTH_K_TOLERANCE
  int max_iterations = 64;          // bisection steps (umap-learn's n_iter)
};

// Directed memberships v_{j|i} on each local row's k neighbours (knn.distances Euclidean), as
// umap-learn's smooth_knn_dist and compute_membership_strengths make them, with two differences: k
// counts the neighbours only (umap-learn's n_neighbors counts the point itself, and sums over
// n_neighbors - 1 others to log2 n_neighbors), and the floor sigma_i >= 1e-3 mean_j d_ij
// (MIN_K_DIST_SCALE) uses the row's own mean always (umap-learn's mean over every row where rho_i =
// 0 needs communication). v_{j|i} = 1 where d_ij <= rho_i (duplicates, the nearest neighbour).
// sigma_i by bisection from the row's mean distance beyond rho_i (scale-free: a step factor that
// squares while unbracketed, geometric midpoints of wide brackets); where the neighbours within
// rho_i already number the target, no sigma reaches it and sigma_i is the floor (the limit sigma ->
// 0; 0 for a row of duplicates only, all of whose memberships are 1). A search that ends further
// than 1e-3 (relative) from the target after max_iterations is a NumericalError. `rho` and `sigma`,
// when not null, receive the local rows' values. Errors: InputError naming
// probdr.local_connectivity (< 0), probdr.bandwidth (<= 0, or bandwidth log2 k >= k: out of reach)
// and `rows` for a non-finite or negative distance. Local: no communication.
SparseGraph smooth_knn_memberships(const KnnGraph& knn, const UmapMembershipOptions& options,
                                   std::vector<double>* rho = nullptr, std::vector<double>* sigma = nullptr);

// The fuzzy union of directed memberships, v_ij = a + b - a b on every edge of either direction (a,
// b the directed weights, 0 where absent), symmetric bit for bit, distributed as `directed`
// (collective: one transpose).
SparseGraph fuzzy_union(const SparseGraph& directed, const Communicator& comm);

struct UmapCurve {
  double a = 1.0, b = 1.0;
};

// (a, b) minimising the squared misfit of 1 / (1 + a d^{2b}) to the curve that is 1 below min_dist
// and exp(-(d - min_dist) / spread) above, on 300 points of [0, 3 spread] (umap-learn's
// find_ab_params, by Levenberg-Marquardt here, in (log a, b) and in units of spread, so that every
// spread converges from the same start). InputError naming probdr.min_dist / probdr.spread for
// min_dist < 0, spread <= 0 or min_dist > spread (or either not finite).
UmapCurve fit_umap_curve(double spread, double min_dist);

}  // namespace gplvm
