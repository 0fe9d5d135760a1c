#pragma once
// The regular grid of FIt-SNE's interpolation (interpolated_repulsion.hpp): square boxes over the
// rows' extent, nodes_per_box Lagrange nodes per box and dimension at the box's interior points
// (k + 1/2) / nodes_per_box, so that the nodes of every box form one regular grid of spacing
// box_width / nodes_per_box. A row's charges are spread onto the nodes of its box with the Lagrange
// weights of its place in the box, and the nodes' potentials are interpolated back with the same
// weights.
//
// Each row's spreading and interpolation is one function call (not inlined, not cloned), so a row
// gives the same bits whichever rank, thread or position in a loop handles it: its charges are then
// split (order_independent_split.hpp) and summed exactly.
#include <array>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/probdr/interpolated_repulsion.hpp"
#include "order_independent_split.hpp"

namespace gplvm {

inline constexpr Index kMostNodesPerBox = 16;

struct InterpolationGrid {
  int dims = 1;                    // l: 1 or 2
  Index nodes_per_box = 3;         // p
  Index boxes = 1;                 // per dimension
  std::array<double, 2> lower{};   // the grid's lower corner
  std::array<double, 2> centre{};  // its middle: the charges are y - centre
  double box_width = 1.0;

  Index nodes() const { return boxes * nodes_per_box; }  // per dimension
  Index total_nodes() const { return dims == 1 ? nodes() : nodes() * nodes(); }
  double spacing() const { return box_width / static_cast<double>(nodes_per_box); }
  Index channels() const { return dims + 1; }  // charges per node: 1, y_1 - c_1, ..., y_l - c_l
};

// The smallest product of 2, 3, 5 and 7 that is >= n (an FFT length FFTW's codelets cover).
Index fft_friendly_size(Index n);

// The grid over [lower_d, upper_d] (the rows' smallest and largest coordinates over every rank): its
// side the largest extent (1 when every row is the same point), boxes per dimension
// max(min_boxes, ceil(extent * boxes_per_unit)) rounded up by fft_friendly_size.
InterpolationGrid make_interpolation_grid(int dims, const double* lower, const double* upper,
                                          const InterpolationOptions& options);

// The Lagrange basis of the nodes (k + 1/2) / p, k < p, of the unit box.
class LagrangeBasis {
 public:
  explicit LagrangeBasis(Index nodes);
  Index nodes() const { return static_cast<Index>(nodes_.size()); }
  // w[k] = L_k(t), k < nodes().
  void weights(double t, double* w) const;
  // A bound on |L_k(t)| over t in [0, 1] and k (twice the largest on a fine sampling).
  double bound() const { return bound_; }
  const double* node_positions() const { return nodes_.data(); }
  const double* inverse_denominators() const { return inverse_denominators_.data(); }  // 1 / prod (x_k - x_m)

 private:
  std::vector<double> nodes_, inverse_denominators_;
  double bound_ = 1.0;
};

// The splits of each channel's charges, from bounds every rank computes alike (the basis's and the
// grid's extent), for sums of up to total_rows terms (the rows of every rank).
struct ChargeSplits {
  std::array<OrderIndependentSplit, 3> channel{OrderIndependentSplit(1.0, 1), OrderIndependentSplit(1.0, 1),
                                               OrderIndependentSplit(1.0, 1)};
  ChargeSplits(const InterpolationGrid& grid, const LagrangeBasis& basis, std::uint64_t total_rows);
};

// Adds every row's charges' split parts to `parts`: per node (row-major over the node grid) 2C values,
// the C highs then the C lows. Split among threads by columns of boxes.
void spread_charges(const InterpolationGrid& grid, const LagrangeBasis& basis, const ChargeSplits& splits,
                    const RowMatrix& y, double* parts);

// potentials: per node C values (the w^{1 + 1/alpha} potentials of charges 1, y - c); forces: local
// rows x l, F_i = (y_i - c) phi_0(y_i) - phi_{1..l}(y_i). Split among threads by rows.
void interpolate_forces(const InterpolationGrid& grid, const LagrangeBasis& basis, const double* potentials,
                        const RowMatrix& y, RowMatrix& forces);
// potentials: one per node; values: the potential interpolated at each local row.
void interpolate_potential(const InterpolationGrid& grid, const LagrangeBasis& basis,
                           const double* potentials, const RowMatrix& y, Vector& values);

}  // namespace gplvm
