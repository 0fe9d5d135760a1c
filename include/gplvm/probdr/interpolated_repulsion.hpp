#pragma once
// The repulsive half of the t-SNE gradient by polynomial interpolation on a regular grid and FFT
// convolution (Linderman et al. 2019, "FIt-SNE"; docs/math/neighbour_embedding.md), for 1-D and 2-D
// embeddings distributed by rows, for the heavy-tailed kernel w(d) = (1 + d^2 / alpha)^(-alpha)
// (alpha = 1: t-SNE's Cauchy kernel). For each local row i it gives
//   Z   = sum_{i != j} w_ij                              (one number, the normaliser)
//   F_i = sum_j w_ij^{1 + 1/alpha} (y_i - y_j)           (l numbers per row)
// Each rank spreads its rows' charges onto the grid's interpolation nodes, one allreduce sums the
// charges of every rank, the ranks share the FFT convolutions (FFTW) of the channels and Z between
// them and sum their potentials in a second allreduce, and each rank interpolates the potentials
// back to its rows. An approximation, named as one in the output; its
// error falls with the nodes per box (tests/probdr/test_interpolated_repulsion.cpp).
//
// How (src/probdr/interpolation_grid.hpp, grid_convolution.hpp): the grid is square, its side the
// largest extent of the rows over every rank, cut into B boxes per dimension (B = max(min_boxes,
// ceil(extent * boxes_per_unit)), rounded up to a product of 2, 3, 5 and 7 for the FFT), each with
// nodes_per_box Lagrange nodes per dimension at the box's interior points (k + 1/2) / nodes_per_box,
// so the nodes form one regular grid on which both kernels are translation-invariant. Charges are
// 1 and y_d - c_d (c the grid's centre): kernel w on charge 1 gives sum_j w_ij (j = i included,
// n subtracted for Z), kernel w^{1 + 1/alpha} on [1, y - c] gives F_i = (y_i - c) phi_0 - phi_{1..l}.
// Z is the charges' quadratic form on the nodes, q_0^T (K_w q_0) - n, the same number as the sum of
// the rows' interpolated potentials, computed from the replicated grid alone.
//
// Bits: every row's charges are split into two parts on fixed power-of-two grids chosen from a bound
// on every charge and the row count (src/probdr/order_independent_split.hpp), so that the parts' sums,
// within a rank and in the allreduce, are exact in any order: the grid's charges, hence Z and every
// F_i, have the same bits at any rank count and thread count. The FFTs use FFTW_ESTIMATE plans,
// chosen without timing, the same on every rank and every run.
#include <memory>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct InterpolationOptions {
  Index nodes_per_box = 3;      // probdr.interpolation_nodes: Lagrange nodes per box and dimension
  Index min_boxes = 50;         // probdr.min_boxes: boxes per dimension at least
  double boxes_per_unit = 1.0;  // boxes per unit of the embedding's extent (FIt-SNE's intervals_per_integer)
};

struct RepulsionSums {
  double normaliser = 0.0;        // Z, over every ordered pair i != j of the whole data set
  RowMatrix forces;               // local rows x l: F_i
  Index boxes_per_dimension = 0;  // the grid used (0 for the exact sums)
};

// By interpolation; y: this rank's rows (l = 1 or 2). Collective: an allgather of each rank's row
// count and extent, the allreduce of the charges and, above one rank, that of the potentials. The
// result does not depend on the rank count (the charges are summed exactly, the potentials' sum adds
// zeros). Throws InputError naming model.latent_dim for
// other l, probdr.interpolation_nodes for nodes_per_box outside [2, 16], probdr.min_boxes for
// min_boxes < 1; NumericalError (on every rank) when a row is not finite.
RepulsionSums interpolated_repulsion(const RowMatrix& y, double alpha, const InterpolationOptions& options,
                                     const Communicator& comm);

// The same, keeping the FFT plans, the kernels' and the charges' buffers between calls while the
// grid's size repeats (an optimiser calls it every iteration; the grid grows only with the extent).
// The results are those of the free function, bit for bit.
class InterpolatedRepulsion {
 public:
  explicit InterpolatedRepulsion(const InterpolationOptions& options);  // validates the options
  ~InterpolatedRepulsion();
  InterpolatedRepulsion(InterpolatedRepulsion&&) noexcept;
  InterpolatedRepulsion& operator=(InterpolatedRepulsion&&) noexcept;
  // Collective.
  RepulsionSums evaluate(const RowMatrix& y, double alpha, const Communicator& comm);

 private:
  struct Workspace;
  InterpolationOptions options_;
  std::unique_ptr<Workspace> workspace_;
};

// Sums over a fixed reference set, for rows placed against it (encode, as openTSNE's transform): for
// each local query row i, over every rank's reference rows r_k,
//   z_i = sum_k w(y_i - r_k)   and   F_i = sum_k w^{1 + 1/alpha}(y_i - r_k) (y_i - r_k).
struct CrossRepulsionSums {
  Vector z;                       // local query rows
  RowMatrix forces;               // local query rows x l
  Index boxes_per_dimension = 0;  // the grid used (0 for the exact sums)
};

// By the same interpolation, on a grid over both sets' extent: the reference's charges spread and
// summed exactly over the ranks, both kernels convolved, the potentials interpolated at the queries.
// The same bits at any rank count. Errors as interpolated_repulsion's.
CrossRepulsionSums interpolated_cross_repulsion(const RowMatrix& reference, const RowMatrix& query,
                                                double alpha, const InterpolationOptions& options,
                                                const Communicator& comm);
// Exactly, O(m n / P) with the reference gathered on every rank: for small sets and for tests.
CrossRepulsionSums exact_cross_repulsion(const RowMatrix& reference, const RowMatrix& query, double alpha,
                                         const Communicator& comm);

// The same sums exactly, O(n^2 / P) (every rank gathers every row; any l). Collective. Z is summed
// exactly over the rows (the same bits at any rank count), each F_i over j in global row order.
RepulsionSums exact_repulsion(const RowMatrix& y, double alpha, const Communicator& comm);

}  // namespace gplvm
