#include "interpolation_grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"

namespace gplvm {
namespace {

// Nodes per dimension beyond which the grid would not fit a rank's memory: a 2-D grid of 4096^2
// nodes already holds about 2.5 GB of charges, spectra and potentials (grid_convolution.hpp).
constexpr Index kMostNodes2d = 4096;
constexpr Index kMostNodes1d = Index{1} << 22;
constexpr Index kRowsPerShareUnit = 256;

// Where a row falls: its box per dimension and its place within the box, in [0, 1].
struct GridLocation {
  Index box[2] = {0, 0};
  double t[2] = {0.0, 0.0};
};

// One compiled function for every row (noinline, noclone): a row's box and weights do not depend
// on where it sits in a loop (a vectorised body and its scalar remainder may contract differently).
[[gnu::noinline, gnu::noclone]] GridLocation locate(const InterpolationGrid& grid, const double* y) {
  GridLocation at;
  for (int d = 0; d < grid.dims; ++d) {
    const double s = (y[d] - grid.lower[d]) / grid.box_width;
    const double box = std::clamp(std::floor(s), 0.0, static_cast<double>(grid.boxes - 1));
    at.box[d] = static_cast<Index>(box);
    at.t[d] = std::clamp(s - box, 0.0, 1.0);
  }
  return at;
}

// L_k(t) for the P nodes of the basis (P = 0: as many as it has), by prefix and suffix products of
// t - x_m.
template <int P>
inline void lagrange_weights(const LagrangeBasis& basis, double t, double* w) {
  const Index p = P > 0 ? P : basis.nodes();
  const double* x = basis.node_positions();
  const double* inverse = basis.inverse_denominators();
  double before[kMostNodesPerBox + 1], after[kMostNodesPerBox + 1];
  before[0] = 1.0;
  for (Index m = 0; m < p; ++m) before[m + 1] = before[m] * (t - x[m]);
  after[p] = 1.0;
  for (Index m = p; m-- > 0;) after[m] = after[m + 1] * (t - x[m]);
  for (Index k = 0; k < p; ++k) w[k] = before[k] * after[k + 1] * inverse[k];
}

// Dims: l; P: the nodes per box, compiled for the common counts (0: any count, read from the grid).
template <int Dims, int P>
[[gnu::noinline, gnu::noclone]] void spread_row(const InterpolationGrid& grid, const LagrangeBasis& basis,
                                                const ChargeSplits& splits, const double* y,
                                                const GridLocation& at, double* parts) {
  constexpr int kChannels = Dims + 1, kStride = 2 * kChannels;
  const Index p = P > 0 ? P : grid.nodes_per_box, n = grid.nodes();
  double w[2][kMostNodesPerBox];
  for (int d = 0; d < Dims; ++d) lagrange_weights<P>(basis, at.t[d], w[d]);
  double charge[kChannels];
  charge[0] = 1.0;
  for (int d = 0; d < Dims; ++d) charge[d + 1] = y[d] - grid.centre[d];
  for (Index a = 0; a < p; ++a) {
    if constexpr (Dims == 1) {
      double* node = parts + (at.box[0] * p + a) * kStride;
      for (int c = 0; c < kChannels; ++c) {
        double high, low;
        splits.channel[c].split(w[0][a] * charge[c], high, low);
        node[c] += high;
        node[kChannels + c] += low;
      }
    } else {
      double* node = parts + ((at.box[0] * p + a) * n + at.box[1] * p) * kStride;
      for (Index b = 0; b < p; ++b, node += kStride) {
        const double wab = w[0][a] * w[1][b];
        for (int c = 0; c < kChannels; ++c) {
          double high, low;
          splits.channel[c].split(wab * charge[c], high, low);
          node[c] += high;
          node[kChannels + c] += low;
        }
      }
    }
  }
}

// phi[c], c < Channels: the nodes' potentials (Channels per node) interpolated at `at`.
template <int Dims, int P, int Channels>
void interpolate_channels(const InterpolationGrid& grid, const LagrangeBasis& basis, const double* potentials,
                          const GridLocation& at, double* phi) {
  const Index p = P > 0 ? P : grid.nodes_per_box, n = grid.nodes();
  double w[2][kMostNodesPerBox];
  for (int d = 0; d < Dims; ++d) lagrange_weights<P>(basis, at.t[d], w[d]);
  for (int c = 0; c < Channels; ++c) phi[c] = 0.0;
  for (Index a = 0; a < p; ++a) {
    if constexpr (Dims == 1) {
      const double* node = potentials + (at.box[0] * p + a) * Channels;
      for (int c = 0; c < Channels; ++c) phi[c] += w[0][a] * node[c];
    } else {
      const double* node = potentials + ((at.box[0] * p + a) * n + at.box[1] * p) * Channels;
      double column[Channels] = {};
      for (Index b = 0; b < p; ++b, node += Channels)
        for (int c = 0; c < Channels; ++c) column[c] += w[1][b] * node[c];
      for (int c = 0; c < Channels; ++c) phi[c] += w[0][a] * column[c];
    }
  }
}

template <int Dims, int P>
[[gnu::noinline, gnu::noclone]] void interpolate_row(const InterpolationGrid& grid,
                                                     const LagrangeBasis& basis, const double* potentials,
                                                     const double* y, const GridLocation& at, double* force) {
  double phi[Dims + 1];
  interpolate_channels<Dims, P, Dims + 1>(grid, basis, potentials, at, phi);
  for (int d = 0; d < Dims; ++d) force[d] = (y[d] - grid.centre[d]) * phi[0] - phi[d + 1];
}

template <int Dims, int P>
[[gnu::noinline, gnu::noclone]] double interpolate_row_potential(const InterpolationGrid& grid,
                                                                 const LagrangeBasis& basis,
                                                                 const double* potentials,
                                                                 const GridLocation& at) {
  double phi[1];
  interpolate_channels<Dims, P, 1>(grid, basis, potentials, at, phi);
  return phi[0];
}

template <int Dims, int P>
void spread_all(const InterpolationGrid& grid, const LagrangeBasis& basis, const ChargeSplits& splits,
                const RowMatrix& y, double* parts) {
  // Each thread takes the rows of a range of box columns: the nodes it adds to are its own.
  for_each_thread_share(grid.boxes, 1, [&](Index first_box, Index end_box) {
    for (Index i = 0; i < y.rows(); ++i) {
      const double* row = y.row(i).data();
      const GridLocation at = locate(grid, row);
      if (at.box[0] >= first_box && at.box[0] < end_box)
        spread_row<Dims, P>(grid, basis, splits, row, at, parts);
    }
  });
}

template <int Dims, int P>
void interpolate_all(const InterpolationGrid& grid, const LagrangeBasis& basis, const double* potentials,
                     const RowMatrix& y, RowMatrix& forces) {
  for_each_thread_share(y.rows(), kRowsPerShareUnit, [&](Index first, Index end) {
    for (Index i = first; i < end; ++i) {
      const double* row = y.row(i).data();
      interpolate_row<Dims, P>(grid, basis, potentials, row, locate(grid, row), forces.row(i).data());
    }
  });
}

template <int Dims, int P>
void interpolate_all_potentials(const InterpolationGrid& grid, const LagrangeBasis& basis,
                                const double* potentials, const RowMatrix& y, Vector& values) {
  for_each_thread_share(y.rows(), kRowsPerShareUnit, [&](Index first, Index end) {
    for (Index i = first; i < end; ++i)
      values[i] = interpolate_row_potential<Dims, P>(grid, basis, potentials, locate(grid, y.row(i).data()));
  });
}

// f.template operator()<P>() for the node count compiled for it (3, 4, 5: FIt-SNE's range), else P = 0.
template <typename F>
void with_nodes_per_box(Index nodes, F&& f) {
  switch (nodes) {
    case 3:
      return f.template operator()<3>();
    case 4:
      return f.template operator()<4>();
    case 5:
      return f.template operator()<5>();
    default:
      return f.template operator()<0>();
  }
}

}  // namespace

Index fft_friendly_size(Index n) {
  for (Index m = std::max<Index>(n, 1);; ++m) {
    Index rest = m;
    for (const Index f : {2, 3, 5, 7})
      while (rest % f == 0) rest /= f;
    if (rest == 1) return m;
  }
}

InterpolationGrid make_interpolation_grid(int dims, const double* lower, const double* upper,
                                          const InterpolationOptions& options) {
  InterpolationGrid grid;
  grid.dims = dims;
  grid.nodes_per_box = options.nodes_per_box;
  double extent = 0.0;
  for (int d = 0; d < dims; ++d) extent = std::max(extent, upper[d] - lower[d]);
  if (!(extent > 0.0)) extent = 1.0;  // every row at one point: any box holds it
  const double wanted =
      std::max(static_cast<double>(options.min_boxes), std::ceil(extent * options.boxes_per_unit));
  const Index most_nodes = dims == 1 ? kMostNodes1d : kMostNodes2d;
  if (!(wanted * static_cast<double>(options.nodes_per_box) <= static_cast<double>(most_nodes)))
    throw NumericalError(
        "the embedding's extent needs more interpolation nodes per dimension than the grid allows (" +
            std::to_string(most_nodes) + "); lower the boxes per unit of extent",
        {"", "extent", std::to_string(extent)});
  grid.boxes = fft_friendly_size(static_cast<Index>(wanted));
  grid.box_width = extent / static_cast<double>(grid.boxes);
  for (int d = 0; d < dims; ++d) {
    grid.lower[static_cast<std::size_t>(d)] = lower[d];
    grid.centre[static_cast<std::size_t>(d)] = lower[d] + 0.5 * extent;
  }
  return grid;
}

LagrangeBasis::LagrangeBasis(Index nodes) {
  require(nodes >= 2 && nodes <= kMostNodesPerBox, "the interpolation nodes per box must be between 2 and 16",
          {"", "probdr.interpolation_nodes", std::to_string(nodes)});
  const double p = static_cast<double>(nodes);
  for (Index k = 0; k < nodes; ++k) nodes_.push_back((static_cast<double>(k) + 0.5) / p);
  for (Index k = 0; k < nodes; ++k) {
    double denominator = 1.0;
    for (Index m = 0; m < nodes; ++m)
      if (m != k) denominator *= nodes_[static_cast<std::size_t>(k)] - nodes_[static_cast<std::size_t>(m)];
    inverse_denominators_.push_back(1.0 / denominator);
  }
  double largest = 0.0;
  double w[kMostNodesPerBox];
  constexpr int kSamples = 4096;
  for (int s = 0; s <= kSamples; ++s) {
    weights(static_cast<double>(s) / kSamples, w);
    for (Index k = 0; k < nodes; ++k) largest = std::max(largest, std::abs(w[k]));
  }
  bound_ = 2.0 * largest;
}

void LagrangeBasis::weights(double t, double* w) const {
  lagrange_weights<0>(*this, t, w);
}

ChargeSplits::ChargeSplits(const InterpolationGrid& grid, const LagrangeBasis& basis,
                           std::uint64_t total_rows) {
  const double weight_bound = grid.dims == 1 ? basis.bound() : basis.bound() * basis.bound();
  channel[0] = OrderIndependentSplit(weight_bound, total_rows);
  // |y_d - c_d| <= half the extent; the whole extent leaves room for the rounding of y - c.
  const double extent = grid.box_width * static_cast<double>(grid.boxes);
  for (int d = 0; d < grid.dims; ++d)
    channel[static_cast<std::size_t>(d + 1)] = OrderIndependentSplit(weight_bound * extent, total_rows);
}

void spread_charges(const InterpolationGrid& grid, const LagrangeBasis& basis, const ChargeSplits& splits,
                    const RowMatrix& y, double* parts) {
  with_nodes_per_box(grid.nodes_per_box, [&]<int P>() {
    if (grid.dims == 1)
      spread_all<1, P>(grid, basis, splits, y, parts);
    else
      spread_all<2, P>(grid, basis, splits, y, parts);
  });
}

void interpolate_forces(const InterpolationGrid& grid, const LagrangeBasis& basis, const double* potentials,
                        const RowMatrix& y, RowMatrix& forces) {
  forces.resize(y.rows(), grid.dims);
  with_nodes_per_box(grid.nodes_per_box, [&]<int P>() {
    if (grid.dims == 1)
      interpolate_all<1, P>(grid, basis, potentials, y, forces);
    else
      interpolate_all<2, P>(grid, basis, potentials, y, forces);
  });
}

void interpolate_potential(const InterpolationGrid& grid, const LagrangeBasis& basis,
                           const double* potentials, const RowMatrix& y, Vector& values) {
  values.resize(y.rows());
  with_nodes_per_box(grid.nodes_per_box, [&]<int P>() {
    if (grid.dims == 1)
      interpolate_all_potentials<1, P>(grid, basis, potentials, y, values);
    else
      interpolate_all_potentials<2, P>(grid, basis, potentials, y, values);
  });
}

}  // namespace gplvm
