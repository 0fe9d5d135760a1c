// Times the distributed exact GPLVM (ScaLAPACK) at the launched rank count: the log marginal
// likelihood (value only, and value + gradients) and, separately, pdpotrf on K + s2 I; and, in
// the same run, LAPACK dpotrf on the same N x N matrix on rank 0 alone (one thread). Prints the
// GFLOP/s of pdpotrf and of dpotrf (N^3 / 3 flops each), the ratio pdpotrf / (dpotrf x ranks)
// (parallel efficiency against one core of LAPACK), and every rank's peak RSS next to the
// objective's memory estimate.
//
//   mpirun -np P bench_exact [--n 2000] [--d 10] [--block 128] [--grid-rows 0 --grid-cols 0]
//                            [--repeats 3] [--skip-lapack] [--skip-gradient] [--lorentz]
// --lorentz: the point hGP-LVM's objective instead, the same latents (tangent coordinates at the
// origin) mapped onto the hyperboloid H^2 with the hyperboloid_exp kernel (kappa 2).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/linalg/lapack.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/hyperboloid_exp_kernel.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/parallel/block_cyclic_matrix.hpp"
#include "gplvm/parallel/scalapack.hpp"

extern "C" void openblas_set_num_threads(int);

namespace {

using namespace gplvm;
using Clock = std::chrono::steady_clock;

struct Options {
  Index n = 2000, d = 10;
  int block = ExactDistributedOptions{}.block_size, grid_rows = 0, grid_cols = 0, repeats = 3;
  bool skip_lapack = false;
  bool skip_gradient = false;
  bool lorentz = false;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "bench_exact: %s\n", message.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--n")
      o.n = std::stol(next());
    else if (a == "--d")
      o.d = std::stol(next());
    else if (a == "--block")
      o.block = std::stoi(next());
    else if (a == "--grid-rows")
      o.grid_rows = std::stoi(next());
    else if (a == "--grid-cols")
      o.grid_cols = std::stoi(next());
    else if (a == "--repeats")
      o.repeats = std::stoi(next());
    else if (a == "--skip-lapack")
      o.skip_lapack = true;
    else if (a == "--skip-gradient")
      o.skip_gradient = true;
    else if (a == "--lorentz")
      o.lorentz = true;
    else
      usage_error("unknown option " + a);
  }
  if (o.n < 1 || o.d < 1 || o.repeats < 1) usage_error("--n, --d and --repeats must be positive");
  return o;
}

// Latents in a few clusters, so K is far from the identity (a realistic factorisation).
Matrix make_latents(Index n) {
  const CounterRng rng(1);
  Matrix X(n, 2);
  for (Index i = 0; i < n; ++i)
    for (Index q = 0; q < 2; ++q) X(i, q) = 3.0 * rng.normal(RngPurpose::test, 0, 0, 2 * i + q);
  return X;
}

// This rank's rows of Y, keyed by global index (the same data at any rank count).
RowMatrix make_local_data(const RowPartition& part, int rank, Index d) {
  const CounterRng rng(2);
  const auto begin = static_cast<Index>(part.begin(rank));
  RowMatrix Y(static_cast<Index>(part.count(rank)), d);
  for (Index i = 0; i < Y.rows(); ++i)
    for (Index j = 0; j < d; ++j) Y(i, j) = rng.normal(RngPurpose::test, 1, 0, (begin + i) * d + j);
  return Y;
}

// Seconds of the slowest rank for one call of f (a barrier first, so every rank starts together).
double timed(const Communicator& comm, const std::function<void()>& f) {
  comm.barrier();
  const auto t0 = Clock::now();
  f();
  return comm.allreduce_max(std::chrono::duration<double>(Clock::now() - t0).count());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void fill_covariance(BlockCyclicMatrix& K, const Kernel& kernel, const Matrix& X, double noise) {
  Matrix block;
  K.for_each_block([&](const LocalBlock& b) {
    kernel.cross(X.middleRows(b.global_row, b.rows), X.middleRows(b.global_col, b.cols), block);
    if (b.global_row == b.global_col) block.diagonal().array() += noise;  // square, aligned blocks
    K.local().block(b.local_row, b.local_col, b.rows, b.cols) = block;
  });
}

// Median seconds of pdpotrf alone (the matrix regenerated outside the timing).
double time_pdpotrf(const Communicator& comm, const Options& o, const Kernel& kernel, const Matrix& X,
                    double noise) {
  const BlacsGrid grid(comm, o.grid_rows, o.grid_cols);
  BlockCyclicMatrix K(grid, o.n, o.n, o.block, o.block);
  std::vector<double> seconds;
  for (int r = 0; r < o.repeats; ++r) {
    fill_covariance(K, kernel, X, noise);
    seconds.push_back(timed(comm, [&] {
      if (scalapack::pdpotrf(K) != 0) throw NumericalError("bench: pdpotrf failed");
    }));
  }
  return median(seconds);
}

// Median seconds of LAPACK dpotrf on rank 0 (0 elsewhere, and when skipped).
double time_dpotrf(const Communicator& comm, const Options& o, const Kernel& kernel, const Matrix& X,
                   double noise) {
  if (o.skip_lapack) return 0.0;
  std::vector<double> seconds;
  if (comm.is_root()) {
    Matrix K;
    kernel.cross(X, X, K);
    K.diagonal().array() += noise;
    Matrix work(o.n, o.n);
    const int n = static_cast<int>(o.n);
    const char uplo = 'L';
    for (int r = 0; r < o.repeats; ++r) {
      work = K;
      int info = 0;
      const auto t0 = Clock::now();
      lapack::dpotrf_(&uplo, &n, work.data(), &n, &info);
      seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      if (info != 0) throw NumericalError("bench: dpotrf failed");
    }
  }
  comm.barrier();
  return comm.is_root() ? median(seconds) : 0.0;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // ru_maxrss is in KiB on Linux
}

std::vector<double> gather_to_root(const Communicator& comm, double value) {
  std::vector<double> all(comm.size());
  MPI_Gather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm.raw());
  return all;
}

// The benchmark's kernel and latents: eq_ard on R^2, or hyperboloid_exp on H^2 at Exp_o of the
// same coordinates.
std::unique_ptr<Kernel> make_bench_kernel(const Options& o) {
  if (o.lorentz) return std::make_unique<HyperboloidExpKernel>(1.0, 2.0, 3);
  return std::make_unique<EqArdKernel>(1.0, 1.0, 2);
}

Matrix make_bench_latents(const Options& o) {
  const Matrix tangent = make_latents(o.n);
  if (!o.lorentz) return tangent;
  Matrix X;
  make_latent_space("lorentz", 2)->from_origin_tangent(tangent, X);
  return X;
}

int run(const Communicator& comm, const Options& o) {
  const std::unique_ptr<Kernel> kernel_ptr = make_bench_kernel(o);
  const Kernel& kernel = *kernel_ptr;
  const double noise = 0.05;
  const Matrix X = make_bench_latents(o);
  const RowPartition part(o.n, comm.size());
  const RowMatrix Y = make_local_data(part, comm.rank(), o.d);
  ExactDistributedOptions options;
  options.block_size = o.block;
  options.grid_rows = o.grid_rows;
  options.grid_cols = o.grid_cols;

  std::vector<double> value_s, gradient_s;
  double lml = 0;
  int grid_rows = 0, grid_cols = 0;
  for (int r = 0; r < o.repeats; ++r) {
    value_s.push_back(timed(comm, [&] {
      const ExactDistributedGp gp(kernel, noise, X, Y, part, comm, options);
      lml = gp.log_marginal_likelihood();
      grid_rows = gp.grid().nprow();
      grid_cols = gp.grid().npcol();
    }));
    if (!o.skip_gradient)
      gradient_s.push_back(timed(comm, [&] {
        ExactDistributedGp gp(kernel, noise, X, Y, part, comm, options);
        gp.gradient();
      }));
  }
  const double t_pd = time_pdpotrf(comm, o, kernel, X, noise);
  // Before the LAPACK run, whose two dense N x N matrices on rank 0 are not the objective's memory.
  const std::vector<double> rss = gather_to_root(comm, peak_rss_mib());
  const double t_d = time_dpotrf(comm, o, kernel, X, noise);
  if (!comm.is_root()) return 0;

  const double flops = static_cast<double>(o.n) * o.n * o.n / 3.0, p = comm.size();
  const double estimate =
      exact_distributed_bytes_per_rank(o.n, o.d, comm.size(), options) / (1024.0 * 1024.0);
  std::printf(
      "config: N=%ld D=%ld %s ranks=%d grid=%dx%d block=%d repeats=%d (medians, 1 BLAS thread per rank)\n",
      static_cast<long>(o.n), static_cast<long>(o.d),
      o.lorentz ? "lorentz/hyperboloid_exp" : "euclidean/eq_ard", comm.size(), grid_rows, grid_cols, o.block,
      o.repeats);
  std::printf("%s\n", blas_kernel_note().c_str());
  std::printf("exact LML (value):      %9.3f s   LML = %.10e\n", median(value_s), lml);
  if (!o.skip_gradient) std::printf("exact LML + gradients:  %9.3f s\n", median(gradient_s));
  std::printf("pdpotrf:                %9.3f s   %8.2f GFLOP/s\n", t_pd, flops / t_pd / 1e9);
  if (o.skip_lapack) {
    std::printf("dpotrf (rank 0):        skipped\n");
  } else {
    std::printf("dpotrf (rank 0):        %9.3f s   %8.2f GFLOP/s\n", t_d, flops / t_d / 1e9);
    std::printf("pdpotrf / (dpotrf x %d ranks): %.3f\n", comm.size(), (flops / t_pd) / (p * flops / t_d));
  }
  std::printf("peak RSS per rank (MiB):");
  for (double r : rss) std::printf(" %.0f", r);
  std::printf("   (estimate for the objective: %.0f MiB per rank)\n", estimate);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MpiEnvironment mpi(&argc, &argv);
  const Options o = parse(argc, argv);
  openblas_set_num_threads(1);  // one core per rank: the ratio compares cores, not thread pools
  const Communicator comm;
  try {
    return run(comm, o);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_exact: %s\n", e.what());
    MPI_Abort(comm.raw(), 1);
  }
  return 1;
}
