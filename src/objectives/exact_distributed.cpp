#include "gplvm/objectives/exact_distributed.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/parse_number.hpp"
#include "gplvm/parallel/block_cyclic_matrix.hpp"
#include "gplvm/parallel/scalapack.hpp"

namespace gplvm {
namespace {

constexpr const char* kMatrixName = "K_NN + noise I (exact GPLVM, distributed)";
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Input validation

std::pair<int, int> grid_shape(const ExactDistributedOptions& o, int ranks) {
  return o.grid_rows > 0 ? std::pair{o.grid_rows, o.grid_cols} : BlacsGrid::default_shape(ranks);
}

void validate_options(const ExactDistributedOptions& o) {
  require(o.block_size >= 1, "block size must be positive", {"", "block_size", std::to_string(o.block_size)});
  require(o.grid_rows >= 0 && o.grid_cols >= 0 && (o.grid_rows == 0) == (o.grid_cols == 0),
          "grid shape must be both 0 (automatic) or both positive",
          {"", "grid", std::to_string(o.grid_rows) + "x" + std::to_string(o.grid_cols)});
}

// Inputs every rank holds identically, so a failure throws the same InputError on every rank.
void validate_replicated(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                         const RowPartition& partition, const Communicator& comm,
                         const ExactDistributedOptions& options) {
  validate_options(options);
  require(X.rows() > 0, "exact GPLVM of an empty point set", {"", "rows", "0"});
  require(static_cast<std::uint64_t>(X.rows()) == partition.num_rows(),
          "latents and data have different numbers of rows",
          {"", "rows", std::to_string(X.rows()) + " vs " + std::to_string(partition.num_rows())});
  require(partition.num_ranks() == comm.size(), "row partition is over a different number of ranks",
          {"", "ranks", std::to_string(partition.num_ranks()) + " vs " + std::to_string(comm.size())});
  require(X.rows() <= std::numeric_limits<int>::max(), "N exceeds ScaLAPACK's 32-bit index range",
          {"", "rows", std::to_string(X.rows())});
  require(X.cols() == kernel.input_dim(), "latents have the wrong number of dimensions for the kernel",
          {"", "latent_dim", std::to_string(X.cols())});
  require(X.allFinite(), "latents contain NaN or Inf", {"", "latents", "non-finite"});
  require(std::isfinite(noise_variance) && noise_variance > 0, "noise variance must be positive and finite",
          {"", "noise_variance", std::to_string(noise_variance)});
  require(kernel.hyperparameters().allFinite(), "kernel hyperparameters must be finite",
          {"", "kernel", "non-finite"});
}

// What this rank's own rows of Y get wrong, if anything ("" if nothing).
std::string local_data_problem(const DataRef& Y_local, const RowPartition& partition, int rank) {
  const auto expected = static_cast<Index>(partition.count(rank));
  if (Y_local.rows() != expected)
    return "rank " + std::to_string(rank) + " holds " + std::to_string(Y_local.rows()) +
           " data rows but the row partition gives it " + std::to_string(expected);
  if (!Y_local.allFinite()) return "data rows of rank " + std::to_string(rank) + " contain NaN or Inf";
  return "";
}

// Inputs that differ per rank: the ranks first agree on the lowest failing rank, whose message
// every rank then throws (a throw on some ranks only would leave the others in a collective).
void validate_distributed(const DataRef& Y_local, const RowPartition& partition, const Communicator& comm) {
  std::string problem = local_data_problem(Y_local, partition, comm.rank());
  const double d = static_cast<double>(Y_local.cols());
  if (comm.allreduce_max(d) != -comm.allreduce_max(-d))
    problem = "ranks disagree on the number of data columns";
  if (problem.empty() && Y_local.cols() == 0) problem = "data have no columns";
  comm.agree_on_problem(problem, "data");
}

// ---------------------------------------------------------------------------------------------
// Memory

// "MemAvailable:  123 kB" from /proc/meminfo, in bytes.
double meminfo_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, rest;
  double kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024.0;
    std::getline(in, rest);
  }
  return kUnlimited;
}

double read_limit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return kUnlimited;
  return read_real(text).value_or(kUnlimited);
}

// The cgroup limit (v2, else v1): batch systems such as SLURM confine a job's memory with one,
// and MemAvailable inside it still shows the whole node.
double cgroup_limit_bytes() {
  const double v2 = read_limit("/sys/fs/cgroup/memory.max");
  return std::isfinite(v2) ? v2 : read_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes");
}

// ---------------------------------------------------------------------------------------------
// Distributed pieces

// pdpotrf's failing column, agreed over the whole communicator (the smallest reported, 0 if none)
// so that every rank, inside the grid or not, escalates jitter in lockstep.
Index agree_on_failing_column(int info, const Communicator& comm) {
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  const std::int64_t column = comm.allreduce_min(info > 0 ? info : none);
  return column == none ? 0 : static_cast<Index>(column);
}

// The lower-triangle blocks of k(X, X) + shift I (pdpotrf('L') never reads strictly upper blocks).
// Called again on each jitter retry: regenerating restores what a failed pdpotrf overwrote without
// keeping a copy of the N x N matrix.
void fill_covariance(BlockCyclicMatrix& K, const Kernel& kernel, const Matrix& X, double shift) {
  Matrix block;
  K.for_each_block([&](const LocalBlock& b) {
    if (b.global_row + b.rows <= b.global_col) return;
    kernel.cross(X.middleRows(b.global_row, b.rows), X.middleRows(b.global_col, b.cols), block);
    for (Index c = 0; c < b.cols; ++c) {
      const Index a = b.global_col + c - b.global_row;  // the row of this column's diagonal entry
      if (a >= 0 && a < b.rows) block(a, c) += shift;
    }
    K.local().block(b.local_row, b.local_col, b.rows, b.cols) = block;
  });
}

// Sum of log of the diagonal entries this rank holds.
double local_log_diagonal(const BlockCyclicMatrix& L) {
  double sum = 0.0;
  for (Index li = 0; li < L.local_rows(); ++li) {
    const Index i = L.global_row(li);
    if (L.col_owner(i) == L.grid().mycol()) sum += std::log(L.local()(li, L.local_col(i)));
  }
  return sum;
}

void copy_rows(const DataRef& rows, BlockCyclicMatrix& into) {
  if (into.local_rows() != rows.rows() || into.local_cols() != rows.cols())
    throw Error("row-block layout mismatch: " + std::to_string(rows.rows()) + " rows for a local block of " +
                std::to_string(into.local_rows()));
  into.local() = rows;
}

// Y from the RowPartition layout to block-cyclic on `grid`. The RowPartition is not one
// block-cyclic layout (its first N mod P ranks hold one row more) but it is two on the P x 1 grid
// `all_ranks`: rows [0, e(q+1)) in blocks of q + 1 on ranks 0..e-1, and the rest in blocks of q
// starting at rank e (q = N div P, e = N mod P). One pdgemr2d each; ranks without rows take part.
BlockCyclicMatrix distribute_rows(const DataRef& Y_local, const RowPartition& partition,
                                  const BlacsGrid& all_ranks, const BlacsGrid& grid, int block) {
  const auto n = static_cast<Index>(partition.num_rows());
  const Index d = Y_local.cols(), p = partition.num_ranks(), q = n / p, e = n % p;
  const int rank = all_ranks.communicator().rank(), width = static_cast<int>(d);
  BlockCyclicMatrix out(grid, n, d, block, block);
  if (e > 0) {
    BlockCyclicMatrix head(all_ranks, e * (q + 1), d, static_cast<int>(q + 1), width, 0, 0);
    if (rank < e) copy_rows(Y_local, head);
    scalapack::pdgemr2d(head.rows(), d, head, 0, 0, out, 0, 0, all_ranks);
  }
  if (q > 0) {
    BlockCyclicMatrix tail(all_ranks, (p - e) * q, d, static_cast<int>(q), width, static_cast<int>(e), 0);
    if (rank >= e) copy_rows(Y_local, tail);
    scalapack::pdgemr2d(tail.rows(), d, tail, 0, 0, out, e * (q + 1), 0, all_ranks);
  }
  return out;
}

// The inverse of distribute_rows: this rank's RowPartition block of rows of a block-cyclic matrix
// (the same two pdgemr2d calls, the other way).
RowMatrix collect_rows(const BlockCyclicMatrix& from, const RowPartition& partition,
                       const BlacsGrid& all_ranks) {
  const auto n = static_cast<Index>(partition.num_rows());
  const Index d = from.cols(), p = partition.num_ranks(), q = n / p, e = n % p;
  const int rank = all_ranks.communicator().rank(), width = static_cast<int>(d);
  RowMatrix out(static_cast<Index>(partition.count(rank)), d);
  if (e > 0) {
    BlockCyclicMatrix head(all_ranks, e * (q + 1), d, static_cast<int>(q + 1), width, 0, 0);
    scalapack::pdgemr2d(head.rows(), d, from, 0, 0, head, 0, 0, all_ranks);
    if (rank < e) out = head.local();
  }
  if (q > 0) {
    BlockCyclicMatrix tail(all_ranks, (p - e) * q, d, static_cast<int>(q), width, static_cast<int>(e), 0);
    scalapack::pdgemr2d(tail.rows(), d, from, e * (q + 1), 0, tail, 0, 0, all_ranks);
    if (rank >= e) out = tail.local();
  }
  return out;
}

// The adjoint block G of W's local block b for cross_backward, using only W's lower triangle:
// 2 W_ij below the diagonal, W_ii on it, 0 above. Summing G o dK over the lower triangle equals
// the full symmetric sum (W and K are symmetric), without a distributed transpose to fill W's
// upper triangle. Returns the block's share of tr(W).
double lower_adjoint(const BlockCyclicMatrix& W, const LocalBlock& b, Matrix& G) {
  G = W.local().block(b.local_row, b.local_col, b.rows, b.cols);
  if (b.global_row >= b.global_col + b.cols) {  // wholly below the diagonal
    G *= 2.0;
    return 0.0;
  }
  double trace = 0.0;
  for (Index c = 0; c < b.cols; ++c)
    for (Index a = 0; a < b.rows; ++a) {
      const Index i = b.global_row + a, j = b.global_col + c;
      if (i > j)
        G(a, c) *= 2.0;
      else if (i == j)
        trace += G(a, c);
      else
        G(a, c) = 0.0;
    }
  return trace;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Memory estimate and check

double exact_distributed_bytes_per_rank(Index n, Index d, int ranks, const ExactDistributedOptions& options) {
  validate_options(options);
  require(n >= 0 && d >= 0 && ranks >= 1, "memory estimate needs N, D >= 0 and at least one rank",
          {"", "N", std::to_string(n)});
  const auto [pr, pc] = grid_shape(options, ranks);
  const Index nb = options.block_size;
  // Process (0, 0) is the busiest: it holds the first block in each dimension, and never fewer.
  const double rows = static_cast<double>(BlockCyclicAxis{n, nb, pr, 0}.local_count(0));
  const double cols = static_cast<double>(BlockCyclicAxis{n, nb, pc, 0}.local_count(0));
  const double outputs = static_cast<double>(BlockCyclicAxis{d, nb, pc, 0}.local_count(0));
  const double row_block = std::ceil(static_cast<double>(n) / ranks) * static_cast<double>(d);
  const double panel = static_cast<double>(nb);
  double words = rows * cols                     // K + s2 I, then L, K^{-1} and W in place
                 + rows * outputs                // Y, then L^{-1} Y and alpha in place
                 + 2.0 * row_block               // the row-block copy of Y and pdgemr2d's buffers
                 + 2.0 * panel * (rows + cols);  // panels broadcast inside pdpotrf / pdtrsm / pdsyrk
  if (options.with_gradient) words += 4.0 * panel * panel;  // kernel block, adjoint block, their gradients
  return 8.0 * words;
}

double available_bytes_per_rank(const Communicator& comm) {
  const double node = std::min(meminfo_available_bytes(), cgroup_limit_bytes());
  return node / comm.ranks_on_node();
}

void check_exact_distributed_memory(Index n, Index d, const Communicator& comm,
                                    const ExactDistributedOptions& options) {
  const double need = exact_distributed_bytes_per_rank(n, d, comm.size(), options);
  const double available = -comm.allreduce_max(-available_bytes_per_rank(comm));  // the tightest rank
  if (need <= available) return;
  const auto [pr, pc] = grid_shape(options, comm.size());
  std::ostringstream msg;
  msg << std::setprecision(3) << "exact GPLVM with N = " << n << ", D = " << d << " on a " << pr << "x" << pc
      << " process grid (block " << options.block_size << ") needs " << need / kGiB << " GiB per rank, "
      << available / kGiB << " GiB available; use more ranks/nodes";
  throw InputError(msg.str(), {"", "N", std::to_string(n)});
}

// ---------------------------------------------------------------------------------------------
// ExactDistributedGp

struct ExactDistributedGp::State {
  State(const Kernel& k, double s2, const ConstMatrixRef& latents, Index outputs, const Communicator& c,
        const ExactDistributedOptions& o)
      : comm(c),
        kernel(k.clone()),
        noise_variance(s2),
        X(latents),
        d(outputs),
        options(o),
        grid(c, o.grid_rows, o.grid_cols),
        all_ranks(c, c.size(), 1) {}

  void factorise();
  void evaluate(const DataRef& Y_local, const RowPartition& partition);
  void ensure_alpha();
  GpGradient backpropagate() const;
  void predict_chunk(const ConstMatrixRef& X_star, Eigen::Ref<Matrix> mean,
                     Eigen::Ref<Vector> explained) const;
  void jacobian_chunk(const ConstMatrixRef& X_star, double* mean, double* gram) const;
  // Throws unless the factor is there (gradient() overwrites it) and X_star are finite test latents
  // of the right width; then makes sure alpha is. `what`: the calling function, for the message.
  void prepare_prediction(const ConstMatrixRef& X_star, const char* what);

  Index n() const { return X.rows(); }

  Communicator comm;
  std::unique_ptr<Kernel> kernel;
  double noise_variance;
  Matrix X;
  Index d;
  ExactDistributedOptions options;
  BlacsGrid grid;       // Pr x Pc: where K and Y live
  BlacsGrid all_ranks;  // P x 1 over every rank: Y's row-block layout, and pdgemr2d's span
  std::optional<BlockCyclicMatrix> factor;  // L; gradient() turns it into K^{-1}, then W
  std::optional<BlockCyclicMatrix> solved;  // L^{-1} Y; then alpha = K^{-1} Y
  bool have_alpha = false;
  bool factor_overwritten = false;
  double value = 0.0;
  double jitter = 0.0;
  std::optional<GpGradient> result;
  std::optional<RowPartition> partition;  // Y's row blocks, for local_alpha
};

void ExactDistributedGp::State::factorise() {
  const int nb = options.block_size;
  factor.emplace(grid, n(), n(), nb, nb);
  Vector diagonal;
  kernel->diagonal(X, diagonal);
  diagonal.array() += noise_variance;  // as the serial helper: mean of diag(K + s2 I)
  const auto attempt = [&](double extra, bool /*retry: regenerated either way*/) -> Index {
    fill_covariance(*factor, *kernel, X, noise_variance + extra);
    return agree_on_failing_column(scalapack::pdpotrf(*factor), comm);
  };
  jitter =
      factorize_with_jitter(attempt, kMatrixName, n(), diagonal.mean(), options.cholesky, comm.is_root());
}

void ExactDistributedGp::State::evaluate(const DataRef& Y_local, const RowPartition& partition) {
  this->partition.emplace(partition);
  solved.emplace(distribute_rows(Y_local, partition, all_ranks, grid, options.block_size));
  scalapack::pdtrsm('L', 'L', 'N', 'N', 1.0, *factor, *solved);  // L^{-1} Y: never Y Y^T
  double sums[2] = {local_log_diagonal(*factor), solved->local().squaredNorm()};
  comm.allreduce_sum(sums, 2);
  const double nd = static_cast<double>(n()) * static_cast<double>(d);
  // log |K + s2 I| = 2 sum log L_ii.
  value = -0.5 * nd * std::log(2.0 * std::numbers::pi) - static_cast<double>(d) * sums[0] - 0.5 * sums[1];
}

void ExactDistributedGp::State::ensure_alpha() {
  if (have_alpha) return;
  scalapack::pdtrsm('L', 'L', 'T', 'N', 1.0, *factor, *solved);  // L^{-T} (L^{-1} Y)
  have_alpha = true;
}

GpGradient ExactDistributedGp::State::backpropagate() const {
  const Index q = X.cols(), h = kernel->num_hyperparameters();
  // [dX (N x Q), d_hyper, tr W] in one buffer: one allreduce finishes the gradient.
  Vector packed = Vector::Zero(n() * q + h + 1);
  Eigen::Map<Matrix> dX(packed.data(), n(), q);
  Eigen::Map<Vector> d_hyper(packed.data() + n() * q, h);
  double& trace = packed[n() * q + h];
  Matrix G, K, dX_rows, dX_cols;
  factor->for_each_block([&](const LocalBlock& b) {
    if (b.global_row + b.rows <= b.global_col) return;  // strictly upper: W holds only the lower triangle
    trace += lower_adjoint(*factor, b, G);
    const auto X_rows = X.middleRows(b.global_row, b.rows), X_cols = X.middleRows(b.global_col, b.cols);
    kernel->cross(X_rows, X_cols, K);  // regenerated: cheaper than keeping k(X, X)
    dX_rows.setZero(b.rows, q);
    dX_cols.setZero(b.cols, q);
    kernel->cross_backward(X_rows, X_cols, K, G, &dX_rows, &dX_cols, d_hyper);
    dX.middleRows(b.global_row, b.rows) += dX_rows;
    dX.middleRows(b.global_col, b.cols) += dX_cols;
  });
  comm.allreduce_sum(packed.data(), packed.size());
  GpGradient g;
  g.value = value;
  g.d_latents = dX;
  g.d_kernel = d_hyper;
  g.d_log_noise = noise_variance * trace;  // d/dlog s2 of (K + s2 I) is s2 I
  return g;
}

void ExactDistributedGp::State::predict_chunk(const ConstMatrixRef& X_star, Eigen::Ref<Matrix> mean,
                                              Eigen::Ref<Vector> explained) const {
  const int nb = options.block_size;
  BlockCyclicMatrix cross(grid, n(), X_star.rows(), nb, nb);  // K_{N*}, generated locally
  Matrix block;
  cross.for_each_block([&](const LocalBlock& b) {
    kernel->cross(X.middleRows(b.global_row, b.rows), X_star.middleRows(b.global_col, b.cols), block);
    cross.local().block(b.local_row, b.local_col, b.rows, b.cols) = block;
  });
  BlockCyclicMatrix mu(grid, X_star.rows(), d, nb, nb);
  scalapack::pdgemm('T', 'N', 1.0, cross, *solved, 0.0, mu);  // K_{*N} alpha
  mu.for_each_local([&](Index i, Index j, const double& v) { mean(i, j) = v; });
  // The variance as a squared norm of the half solve, not k^T K^{-1} k: no cancellation.
  scalapack::pdtrsm('L', 'L', 'N', 'N', 1.0, *factor, cross);
  for (Index lj = 0; lj < cross.local_cols(); ++lj)
    explained[cross.global_col(lj)] += cross.local().col(lj).squaredNorm();
}

// Partial sums of E[J] (c blocks of D x Q, column-major) and of the Grams of L^{-1} G (c blocks of
// Q x Q) for the c test points of X_star, until the caller's one allreduce. G (N x cQ) is laid out
// with one column block per test point (Q columns), so that each point's Gram is local to one
// process column; its row blocks are alpha's, so the rows this process generates serve both.
void ExactDistributedGp::State::jacobian_chunk(const ConstMatrixRef& X_star, double* mean,
                                               double* gram) const {
  const Index q_dim = X.cols(), c = X_star.rows();
  BlockCyclicMatrix gradients(grid, n(), c * q_dim, options.block_size, static_cast<int>(q_dim));
  const BlockCyclicAxis &rows = gradients.row_axis(), &alpha_rows = solved->row_axis();
  if (rows.block != alpha_rows.block || rows.source != alpha_rows.source || rows.procs != alpha_rows.procs)
    throw Error("exact GPLVM Jacobian: the gradient and alpha row layouts differ");
  // This process's rows of alpha, and d k(x_n, x*) / dx* for those rows n.
  Matrix row_latents(solved->local_rows(), q_dim);
  for (Index l = 0; l < solved->local_rows(); ++l) row_latents.row(l) = X.row(solved->global_row(l));
  for (Index i = 0; i < c; ++i) {
    const Matrix G = kernel->input_gradients(X_star.row(i), row_latents);  // local rows x Q
    // E[J](d, :) = sum_n alpha(n, d) G(n, :), over this process's (n, d) entries of alpha.
    const Matrix partial = solved->local().transpose() * G;  // local cols x Q
    for (Index lc = 0; lc < solved->local_cols(); ++lc)
      for (Index q = 0; q < q_dim; ++q) mean[(i * q_dim + q) * d + solved->global_col(lc)] += partial(lc, q);
    if (gradients.col_owner(i * q_dim) == grid.mycol() && gradients.local_rows() > 0)
      gradients.local().middleCols(gradients.col_axis().local_index(i * q_dim), q_dim) = G;
  }
  scalapack::pdtrsm('L', 'L', 'N', 'N', 1.0, *factor, gradients);  // L^{-1} G
  for (Index lc = 0; lc < gradients.local_cols(); lc += q_dim) {
    const Index i = gradients.global_col(lc) / q_dim;
    const auto block = gradients.local().middleCols(lc, q_dim);
    Eigen::Map<Matrix>(gram + i * q_dim * q_dim, q_dim, q_dim).noalias() += block.transpose() * block;
  }
}

void ExactDistributedGp::State::prepare_prediction(const ConstMatrixRef& X_star, const char* what) {
  if (factor_overwritten)
    throw Error(std::string("exact GPLVM ") + what +
                "() needs the Cholesky factor, which gradient() has overwritten; call it before gradient()");
  require(X_star.cols() == X.cols(), "test latents have the wrong number of dimensions",
          {"", "latent_dim", std::to_string(X_star.cols())});
  require(X_star.allFinite(), "test latents contain NaN or Inf", {"", "test_latents", "non-finite"});
  ensure_alpha();
}

ExactJacobianPrediction ExactDistributedGp::predict_jacobian(const ConstMatrixRef& X_star) {
  State& s = *state_;
  s.prepare_prediction(X_star, "predict_jacobian");
  const Index m = X_star.rows(), q_dim = s.X.cols();
  // Before any communication, so that every rank refuses a kernel without derivatives alike.
  std::vector<Matrix> second(static_cast<std::size_t>(m));
  for (Index i = 0; i < m; ++i)
    second[static_cast<std::size_t>(i)] = s.kernel->gradient_covariance(X_star.row(i));
  const Index per_point = s.d * q_dim + q_dim * q_dim;
  // Test points in chunks whose gradients (N x cQ) take about a quarter of K's memory, as predict.
  const Index chunk = std::max<Index>(1, s.n() / (4 * q_dim));
  ExactJacobianPrediction out;
  for (Index first = 0; first < m; first += chunk) {
    const Index count = std::min(chunk, m - first);
    Vector packed = Vector::Zero(count * per_point);
    s.jacobian_chunk(X_star.middleRows(first, count), packed.data(), packed.data() + count * s.d * q_dim);
    s.comm.allreduce_sum(packed.data(), packed.size());
    for (Index i = 0; i < count; ++i) {
      out.mean.emplace_back(Eigen::Map<const Matrix>(packed.data() + i * s.d * q_dim, s.d, q_dim));
      const Eigen::Map<const Matrix> gram(packed.data() + count * s.d * q_dim + i * q_dim * q_dim, q_dim,
                                          q_dim);
      out.covariance.emplace_back(second[static_cast<std::size_t>(first + i)] - gram);
    }
  }
  return out;
}

ExactDistributedGp::ExactDistributedGp(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                                       const DataRef& Y_local, const RowPartition& partition,
                                       const Communicator& comm, const ExactDistributedOptions& options) {
  validate_replicated(kernel, noise_variance, X, partition, comm, options);
  validate_distributed(Y_local, partition, comm);
  state_ = std::make_unique<State>(kernel, noise_variance, X, Y_local.cols(), comm, options);
  if (options.check_memory) check_exact_distributed_memory(X.rows(), Y_local.cols(), comm, options);
  state_->factorise();
  state_->evaluate(Y_local, partition);
}

ExactDistributedGp::~ExactDistributedGp() = default;

double ExactDistributedGp::log_marginal_likelihood() const noexcept {
  return state_->value;
}
double ExactDistributedGp::jitter() const noexcept {
  return state_->jitter;
}
const BlacsGrid& ExactDistributedGp::grid() const noexcept {
  return state_->grid;
}

ExactPrediction ExactDistributedGp::predict(const ConstMatrixRef& X_star) {
  State& s = *state_;
  s.prepare_prediction(X_star, "predict");
  const Index m = X_star.rows();
  // [mean (M x D), ||L^{-1} k_N*||^2 (M)], partial sums until the one allreduce.
  Vector packed = Vector::Zero(m * s.d + m);
  Eigen::Map<Matrix> mean(packed.data(), m, s.d);
  Eigen::Map<Vector> explained(packed.data() + m * s.d, m);
  // Test points in chunks of about N / 4 columns bound K_{N*}'s memory to a quarter of K's.
  const Index nb = s.options.block_size, chunk = std::max<Index>(nb, (s.n() / 4 + nb - 1) / nb * nb);
  for (Index first = 0; first < m; first += chunk) {
    const Index count = std::min(chunk, m - first);
    s.predict_chunk(X_star.middleRows(first, count), mean.middleRows(first, count),
                    explained.segment(first, count));
  }
  s.comm.allreduce_sum(packed.data(), packed.size());
  ExactPrediction out;
  out.mean = mean;
  s.kernel->diagonal(X_star, out.variance);
  out.variance.array() += s.noise_variance - explained.array();
  return out;
}

GpGradient ExactDistributedGp::gradient() {
  State& s = *state_;
  if (s.result) return *s.result;
  s.ensure_alpha();
  s.factor_overwritten = true;
  scalapack::pdpotri(*s.factor);  // lower triangle of (K + s2 I)^{-1}, in place of L
  // W = dL/d(K + s2 I) = 1/2 alpha alpha^T - D/2 K^{-1}: one rank-D update of the lower triangle.
  scalapack::pdsyrk('L', 'N', 0.5, *s.solved, -0.5 * static_cast<double>(s.d), *s.factor);
  s.result = s.backpropagate();
  return *s.result;
}

RowMatrix ExactDistributedGp::local_alpha() {
  State& s = *state_;
  s.ensure_alpha();
  return collect_rows(*s.solved, *s.partition, s.all_ranks);
}

GpGradient exact_log_marginal_likelihood_distributed(const Kernel& kernel, double noise_variance,
                                                     const ConstMatrixRef& X, const DataRef& Y_local,
                                                     const RowPartition& partition, const Communicator& comm,
                                                     const ExactDistributedOptions& options) {
  ExactDistributedGp gp(kernel, noise_variance, X, Y_local, partition, comm, options);
  if (options.with_gradient) return gp.gradient();
  GpGradient value_only;
  value_only.value = gp.log_marginal_likelihood();
  return value_only;
}

}  // namespace gplvm
