#include "gplvm/probdr/interpolated_repulsion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"
#include "grid_convolution.hpp"
#include "interpolation_grid.hpp"
#include "order_independent_split.hpp"

namespace gplvm {
namespace {

constexpr int kKernelW = 0;       // w = (1 + d^2 / alpha)^-alpha: gives Z
constexpr int kKernelForces = 1;  // w^{1 + 1/alpha} = w / (1 + d^2 / alpha): gives F
constexpr Index kRowsPerShareUnit = 64;

void check_alpha(double alpha) {
  require(std::isfinite(alpha) && alpha > 0.0,
          "the t-SNE kernel's degrees of freedom must be finite and positive",
          {"", "probdr.tsne_dof", std::to_string(alpha)});
}

void check_options(const InterpolationOptions& options) {
  require(options.nodes_per_box >= 2 && options.nodes_per_box <= kMostNodesPerBox,
          "the interpolation nodes per box must be between 2 and 16",
          {"", "probdr.interpolation_nodes", std::to_string(options.nodes_per_box)});
  require(options.min_boxes >= 1, "the interpolation grid needs at least one box per dimension",
          {"", "probdr.min_boxes", std::to_string(options.min_boxes)});
  require(std::isfinite(options.boxes_per_unit) && options.boxes_per_unit >= 0.0,
          "the boxes per unit of the embedding's extent must be finite and >= 0",
          {"", "boxes_per_unit", std::to_string(options.boxes_per_unit)});
}

// The rows of every rank and their smallest and largest coordinate per dimension: one allgather of
// (rows, finite, lower, upper) per rank. Every rank throws the same NumericalError when a row of any
// rank is not finite.
struct GlobalExtent {
  std::uint64_t rows = 0;
  double lower[2] = {0.0, 0.0}, upper[2] = {0.0, 0.0};
};

GlobalExtent global_extent(const RowMatrix& y, int dims, const Communicator& comm) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> mine{
      static_cast<double>(y.rows()), y.allFinite() ? 1.0 : 0.0, kInf, -kInf, kInf, -kInf};
  for (int d = 0; d < dims; ++d)
    if (y.rows() > 0 && mine[1] == 1.0) {
      mine[static_cast<std::size_t>(2 + 2 * d)] = y.col(d).minCoeff();
      mine[static_cast<std::size_t>(3 + 2 * d)] = y.col(d).maxCoeff();
    }
  const std::vector<double> all = comm.allgatherv(mine);
  GlobalExtent extent;
  for (int d = 0; d < 2; ++d) {
    extent.lower[d] = kInf;
    extent.upper[d] = -kInf;
  }
  bool finite = true;
  for (std::size_t r = 0; r + 6 <= all.size(); r += 6) {
    extent.rows += static_cast<std::uint64_t>(all[r]);
    finite = finite && all[r + 1] == 1.0;
    for (int d = 0; d < dims; ++d) {
      extent.lower[d] = std::min(extent.lower[d], all[r + 2 + 2 * static_cast<std::size_t>(d)]);
      extent.upper[d] = std::max(extent.upper[d], all[r + 3 + 2 * static_cast<std::size_t>(d)]);
    }
  }
  if (!finite)
    throw NumericalError("the embedding has a coordinate that is not finite (NaN or Inf)", {"", "y"});
  return extent;
}

// Both kernels at the node offsets (i, j) >= 0, spacing apart: nodes^dims values each, row-major.
void kernels_at_offsets(const InterpolationGrid& grid, double alpha, std::vector<double>& w,
                        std::vector<double>& forces_kernel) {
  const Index n = grid.nodes(), columns = grid.dims == 1 ? 1 : n;
  w.resize(static_cast<std::size_t>(grid.total_nodes()));
  forces_kernel.resize(w.size());
  const double scaled = grid.spacing() * grid.spacing() / alpha;  // d^2 / alpha per squared offset
  for_each_thread_share(n, 16, [&](Index first, Index end) {
    for (Index i = first; i < end; ++i)
      for (Index j = 0; j < columns; ++j) {
        const double offset2 = static_cast<double>(i * i + j * j);
        const double base = 1.0 + offset2 * scaled;
        const double value = alpha == 1.0 ? 1.0 / base : std::pow(base, -alpha);
        w[static_cast<std::size_t>(i * columns + j)] = value;
        forces_kernel[static_cast<std::size_t>(i * columns + j)] = value / base;
      }
  });
}

// One row's exact sums over every row (global order), j = i left out: one function for every row.
[[gnu::noinline, gnu::noclone]] double exact_row(const RowMatrix& all, Index self, double alpha,
                                                 double* force) {
  const Index l = all.cols();
  const double* yi = all.row(self).data();
  double sum = 0.0;
  for (Index d = 0; d < l; ++d) force[d] = 0.0;
  for (Index j = 0; j < all.rows(); ++j) {
    if (j == self) continue;
    const double* yj = all.row(j).data();
    double d2 = 0.0;
    for (Index d = 0; d < l; ++d) d2 += (yi[d] - yj[d]) * (yi[d] - yj[d]);
    const double base = 1.0 + d2 / alpha;
    const double w = alpha == 1.0 ? 1.0 / base : std::pow(base, -alpha);
    const double w_forces = w / base;
    sum += w;
    for (Index d = 0; d < l; ++d) force[d] += w_forces * (yi[d] - yj[d]);
  }
  return sum;
}

}  // namespace

struct InterpolatedRepulsion::Workspace {
  GridConvolution convolution;
  std::vector<double> parts;                    // per node: the channels' high parts, then their low parts
  std::vector<double> charges;                  // per node: the channels' charges
  std::vector<double> potentials;               // per node: the channels' w^{1 + 1/alpha} potentials
  std::vector<double> kernel_w, kernel_forces;  // the kernels at node offsets >= 0
};

InterpolatedRepulsion::InterpolatedRepulsion(const InterpolationOptions& options)
    : options_(options), workspace_(std::make_unique<Workspace>()) {
  check_options(options);
}

InterpolatedRepulsion::~InterpolatedRepulsion() = default;
InterpolatedRepulsion::InterpolatedRepulsion(InterpolatedRepulsion&&) noexcept = default;
InterpolatedRepulsion& InterpolatedRepulsion::operator=(InterpolatedRepulsion&&) noexcept = default;

RepulsionSums InterpolatedRepulsion::evaluate(const RowMatrix& y, double alpha, const Communicator& comm) {
  const Index l = y.cols();
  require(l == 1 || l == 2, "the interpolated t-SNE repulsion needs a 1-D or 2-D embedding",
          {"", "model.latent_dim", std::to_string(l)});
  check_alpha(alpha);
  const int dims = static_cast<int>(l);
  const GlobalExtent extent = global_extent(y, dims, comm);
  RepulsionSums sums;
  sums.forces = RowMatrix::Zero(y.rows(), l);
  if (extent.rows == 0) return sums;
  if (extent.rows > OrderIndependentSplit::kMostTerms)
    throw InputError("the interpolated repulsion sums at most 2^32 rows",
                     {"", "rows", std::to_string(extent.rows)});

  const InterpolationGrid grid = make_interpolation_grid(dims, extent.lower, extent.upper, options_);
  const LagrangeBasis basis(grid.nodes_per_box);
  const ChargeSplits splits(grid, basis, extent.rows);
  const Index nodes = grid.total_nodes(), channels = grid.channels();
  Workspace& ws = *workspace_;

  // Every rank's charges on the nodes, summed exactly.
  ws.parts.assign(static_cast<std::size_t>(nodes * 2 * channels), 0.0);
  spread_charges(grid, basis, splits, y, ws.parts.data());
  comm.allreduce_sum(ws.parts.data(), static_cast<Index>(ws.parts.size()));
  ws.charges.resize(static_cast<std::size_t>(nodes * channels));
  for (Index q = 0; q < nodes; ++q)
    for (Index c = 0; c < channels; ++c)
      ws.charges[static_cast<std::size_t>(q * channels + c)] =
          ws.parts[static_cast<std::size_t>(q * 2 * channels + c)] +
          ws.parts[static_cast<std::size_t>(q * 2 * channels + channels + c)];

  // The potentials on the nodes. The transforms are tasks, channel c's convolution (task c) and Z
  // (task `channels`), dealt round-robin to the ranks; each rank's results, zero elsewhere, are then
  // summed over the ranks, which adds only zeros to each value: every rank ends with the potentials
  // of one process, bit for bit, having done 1 / P of the transforms.
  const int ranks = comm.size();
  auto mine = [&](Index task) { return ranks == 1 || task % ranks == comm.rank(); };
  bool forces_task = false;
  for (Index c = 0; c < channels; ++c) forces_task = forces_task || mine(c);
  const bool z_task = mine(channels);
  GridConvolution& convolution = ws.convolution;
  convolution.reshape(dims, grid.nodes(), 2, static_cast<int>(channels));
  kernels_at_offsets(grid, alpha, ws.kernel_w, ws.kernel_forces);
  if (z_task) convolution.set_kernel(kKernelW, ws.kernel_w.data());
  if (forces_task) convolution.set_kernel(kKernelForces, ws.kernel_forces.data());
  for_each_thread_share(channels, 1, [&](Index first, Index end) {
    for (Index c = first; c < end; ++c)
      if (mine(c) || (c == 0 && z_task))
        convolution.set_charges(static_cast<int>(c), ws.charges.data() + c, channels);
  });
  // Z = q_0^T (K_w q_0) - n: every row's interpolated sum over j, j = i included, less the n self-pairs.
  // The last slot of the potentials carries it through the sum over the ranks.
  ws.potentials.assign(ws.charges.size() + 1, 0.0);
  if (z_task)
    ws.potentials.back() = convolution.quadratic_form(kKernelW, 0) - static_cast<double>(extent.rows);
  for_each_thread_share(channels, 1, [&](Index first, Index end) {
    for (Index c = first; c < end; ++c)
      if (mine(c))
        convolution.convolve(kKernelForces, static_cast<int>(c), ws.potentials.data() + c, channels);
  });
  if (ranks > 1) comm.allreduce_sum(ws.potentials.data(), static_cast<Index>(ws.potentials.size()));
  sums.normaliser = ws.potentials.back();
  interpolate_forces(grid, basis, ws.potentials.data(), y, sums.forces);
  sums.boxes_per_dimension = grid.boxes;
  return sums;
}

RepulsionSums interpolated_repulsion(const RowMatrix& y, double alpha, const InterpolationOptions& options,
                                     const Communicator& comm) {
  InterpolatedRepulsion repulsion(options);
  return repulsion.evaluate(y, alpha, comm);
}

RepulsionSums exact_repulsion(const RowMatrix& y, double alpha, const Communicator& comm) {
  check_alpha(alpha);
  const std::vector<std::int64_t> counts = comm.allgather(static_cast<std::int64_t>(y.rows()));
  std::vector<int> rows_of(counts.size());
  std::int64_t first = 0, total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    rows_of[r] = static_cast<int>(counts[r]);
    if (static_cast<int>(r) < comm.rank()) first += counts[r];
    total += counts[r];
  }
  const RowMatrix all = comm.allgather_rows(DataRef(y), rows_of);
  RepulsionSums sums;
  sums.forces = RowMatrix::Zero(y.rows(), y.cols());
  std::vector<double> row_sums(static_cast<std::size_t>(y.rows()));
  for_each_thread_share(y.rows(), kRowsPerShareUnit, [&](Index begin, Index end) {
    for (Index i = begin; i < end; ++i)
      row_sums[static_cast<std::size_t>(i)] = exact_row(all, first + i, alpha, sums.forces.row(i).data());
  });
  // Z: each row's sum (< n, as w <= 1) split so that the sum over rows and ranks is exact.
  const std::uint64_t terms = static_cast<std::uint64_t>(std::max<std::int64_t>(total, 1));
  const OrderIndependentSplit split(static_cast<double>(terms), terms);
  double parts[2] = {0.0, 0.0};
  for (const double s : row_sums) {
    double high, low;
    split.split(s, high, low);
    parts[0] += high;
    parts[1] += low;
  }
  comm.allreduce_sum(parts, 2);
  sums.normaliser = parts[0] + parts[1];
  return sums;
}

namespace {

// The smallest box holding both extents.
GlobalExtent union_extent(const GlobalExtent& a, const GlobalExtent& b, int dims) {
  GlobalExtent u = a;
  for (int d = 0; d < dims; ++d) {
    u.lower[d] = std::min(a.lower[d], b.lower[d]);
    u.upper[d] = std::max(a.upper[d], b.upper[d]);
  }
  return u;
}

}  // namespace

CrossRepulsionSums interpolated_cross_repulsion(const RowMatrix& reference, const RowMatrix& query,
                                                double alpha, const InterpolationOptions& options,
                                                const Communicator& comm) {
  const Index l = reference.cols();
  require((l == 1 || l == 2) && query.cols() == l,
          "the interpolated t-SNE repulsion needs 1-D or 2-D embeddings of one dimension",
          {"", "model.latent_dim", std::to_string(l)});
  check_alpha(alpha);
  check_options(options);
  const int dims = static_cast<int>(l);
  const GlobalExtent from = global_extent(reference, dims, comm), to = global_extent(query, dims, comm);
  CrossRepulsionSums sums;
  sums.z = Vector::Zero(query.rows());
  sums.forces = RowMatrix::Zero(query.rows(), l);
  if (from.rows == 0 || to.rows == 0) return sums;
  if (from.rows > OrderIndependentSplit::kMostTerms)
    throw InputError("the interpolated repulsion sums at most 2^32 rows",
                     {"", "rows", std::to_string(from.rows)});
  const GlobalExtent extent = union_extent(from, to, dims);
  const InterpolationGrid grid = make_interpolation_grid(dims, extent.lower, extent.upper, options);
  const LagrangeBasis basis(grid.nodes_per_box);
  const ChargeSplits splits(grid, basis, from.rows);
  const Index nodes = grid.total_nodes(), channels = grid.channels();

  // The reference's charges on the nodes, summed exactly over the ranks.
  std::vector<double> parts(static_cast<std::size_t>(nodes * 2 * channels), 0.0);
  spread_charges(grid, basis, splits, reference, parts.data());
  comm.allreduce_sum(parts.data(), static_cast<Index>(parts.size()));
  std::vector<double> charges(static_cast<std::size_t>(nodes * channels));
  for (Index q = 0; q < nodes; ++q)
    for (Index c = 0; c < channels; ++c)
      charges[static_cast<std::size_t>(q * channels + c)] =
          parts[static_cast<std::size_t>(q * 2 * channels + c)] +
          parts[static_cast<std::size_t>(q * 2 * channels + channels + c)];

  // Tasks c < channels: the forces kernel on channel c; task `channels`: kernel w on charge 1 (a
  // second copy of channel 0, whose spectrum the forces convolution consumes). Dealt round-robin;
  // each rank's potentials, zero elsewhere, summed over the ranks (adding zeros: the same bits).
  const int ranks = comm.size();
  auto mine = [&](Index task) { return ranks == 1 || task % ranks == comm.rank(); };
  GridConvolution convolution;
  convolution.reshape(dims, grid.nodes(), 2, static_cast<int>(channels + 1));
  std::vector<double> kernel_w, kernel_forces;
  kernels_at_offsets(grid, alpha, kernel_w, kernel_forces);
  convolution.set_kernel(kKernelW, kernel_w.data());
  convolution.set_kernel(kKernelForces, kernel_forces.data());
  std::vector<double> potentials(static_cast<std::size_t>(nodes * (channels + 1)), 0.0);
  for (Index c = 0; c <= channels; ++c) {
    if (!mine(c)) continue;
    const Index source = c < channels ? c : 0;
    convolution.set_charges(static_cast<int>(c), charges.data() + source, channels);
    convolution.convolve(c < channels ? kKernelForces : kKernelW, static_cast<int>(c), potentials.data() + c,
                         channels + 1);
  }
  if (ranks > 1) comm.allreduce_sum(potentials.data(), static_cast<Index>(potentials.size()));
  std::vector<double> forces_potentials(static_cast<std::size_t>(nodes * channels)),
      w_potentials(static_cast<std::size_t>(nodes));
  for (Index q = 0; q < nodes; ++q) {
    for (Index c = 0; c < channels; ++c)
      forces_potentials[static_cast<std::size_t>(q * channels + c)] =
          potentials[static_cast<std::size_t>(q * (channels + 1) + c)];
    w_potentials[static_cast<std::size_t>(q)] =
        potentials[static_cast<std::size_t>(q * (channels + 1) + channels)];
  }
  interpolate_forces(grid, basis, forces_potentials.data(), query, sums.forces);
  interpolate_potential(grid, basis, w_potentials.data(), query, sums.z);
  sums.boxes_per_dimension = grid.boxes;
  return sums;
}

CrossRepulsionSums exact_cross_repulsion(const RowMatrix& reference, const RowMatrix& query, double alpha,
                                         const Communicator& comm) {
  check_alpha(alpha);
  const std::vector<std::int64_t> counts = comm.allgather(static_cast<std::int64_t>(reference.rows()));
  std::vector<int> rows_of(counts.begin(), counts.end());
  const RowMatrix all = comm.allgather_rows(DataRef(reference), rows_of);
  const Index l = reference.cols();
  CrossRepulsionSums sums;
  sums.z = Vector::Zero(query.rows());
  sums.forces = RowMatrix::Zero(query.rows(), l);
  for_each_thread_share(query.rows(), kRowsPerShareUnit, [&](Index begin, Index end) {
    for (Index i = begin; i < end; ++i)
      for (Index k = 0; k < all.rows(); ++k) {
        const Eigen::RowVectorXd diff = query.row(i) - all.row(k);
        const double base = 1.0 + diff.squaredNorm() / alpha;
        const double w = alpha == 1.0 ? 1.0 / base : std::pow(base, -alpha);
        sums.z[i] += w;
        sums.forces.row(i) += (w / base) * diff;
      }
  });
  return sums;
}

}  // namespace gplvm
