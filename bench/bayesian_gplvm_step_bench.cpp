// Times one Bayesian GPLVM minibatch training step (model.kind = bayesian_gplvm, uncollapsed bound
// with explicit q(u), statistics of the batch scaled by N/B): latents (amortised encoders
// D -> 512 -> 256 -> Q for the mean and the variance, or free latents), the EQ-ARD kernel's
// closed-form Psi-statistics, one allreduce, the bound and its adjoints, the backward through the
// Psi-statistics and the encoders, the gradient allreduce and Adam: the same TrainingStep and
// ShardedAdam that `gplvm train` runs, on 1 or more MPI ranks. Interleaved in the same run it times
// the machine's DGEMM at the encoder's first-layer shape (B x D times D x h1: OpenBLAS, Eigen's
// product, gplvm::gemm) and prints the step's FLOP rate as a fraction of the fastest (x ranks).
//
//   [mpirun -n P] bench_bayesian_gplvm_step [--batch 1024] [--inducing 50,100,200] [--dim 784]
//       [--latent 2] [--hidden 512,256] [--lengthscale 1] [--free] [--sparse] [--reproducible]
//       [--rounds 5] [--steps-per-round 4] [--json]
// --sparse times model.kind = sparse_gplvm (point latents) instead (its FLOP count is the Bayesian
// step's, an upper bound); --reproducible sets train.reproducible.
//   bench_bayesian_gplvm_step --check-out FILE [--inducing M] [--batch B] [--dim D] [--latent Q]
//
// --check-out: no timing; evaluates the model's bound (free latents, N = 8B, scale N/B) once on
// keyed random inputs away from the optimal q(u) and writes the inputs, the value and every
// gradient to FILE (little-endian: 4 int64 B, D, Q, M, then float64 arrays in the order written
// by write_check below) for bench/pytorch_bayesian_gplvm.py --check to recompute.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/linalg/gemm.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"

extern "C" {
void openblas_set_num_threads(int);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha, const double* a,
                 int lda, const double* b, int ldb, double beta, double* c, int ldc);
}

namespace {

using namespace gplvm;
using Clock = std::chrono::steady_clock;

struct Options {
  Index batch = 1024, dim = 784, latent = 2;
  std::vector<Index> inducing{50, 100, 200};
  std::vector<Index> hidden{512, 256};
  double lengthscale = 1.0;
  int rounds = 5, steps_per_round = 4;
  bool free_latents = false, json = false;
  bool point_latents = false;  // --sparse: model.kind = sparse_gplvm (point latents, no prior)
  bool reproducible = false;   // --reproducible: train.reproducible (exact sums over row blocks)
  std::string check_out;
};

std::vector<Index> parse_list(const std::string& s) {
  std::vector<Index> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(std::stol(item));
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_bayesian_gplvm_step: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--batch")
      o.batch = std::stol(next());
    else if (a == "--inducing")
      o.inducing = parse_list(next());
    else if (a == "--dim")
      o.dim = std::stol(next());
    else if (a == "--latent")
      o.latent = std::stol(next());
    else if (a == "--hidden")
      o.hidden = parse_list(next());
    else if (a == "--lengthscale")
      o.lengthscale = std::stod(next());
    else if (a == "--rounds")
      o.rounds = std::stoi(next());
    else if (a == "--steps-per-round")
      o.steps_per_round = std::stoi(next());
    else if (a == "--free")
      o.free_latents = true;
    else if (a == "--sparse")
      o.point_latents = true;
    else if (a == "--reproducible")
      o.reproducible = true;
    else if (a == "--json")
      o.json = true;
    else if (a == "--check-out")
      o.check_out = next();
    else {
      std::fprintf(stderr, "bench_bayesian_gplvm_step: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

// Floating-point operations of one step over the whole batch (all ranks), counted from the maths,
// not from the code, in two classes:
//   gemm:  products with an inner dimension of at least M or D, which run at (near) GEMM speed in
//          principle: the two encoders (forward, weight gradients, input gradients except layer 0),
//          P = Psi1^T Y and dF/dPsi1 = Y (dF/dP)^T (2 B M D each), and the bound's O(M^2 D + M^3)
//          linear algebra, counted as 12 M^2 D (whitening P and m, m m^T, dF/dP, Phi m, the solve of
//          dU/dm, the m c^T + c m^T and m m^T of dU/dK) plus 10 M^3 (Cholesky, Phi's two solves, R,
//          R R^T, Phi Sigma~, Phi R, the solves of dU/dL_S and of the two unwhitened adjoints).
//   elementwise: the EQ-ARD Psi-statistics, each add, multiply or exp counted as one operation:
//          Psi1 forward B M (3Q + 2), backward B M (8Q + 2); Psi2 forward B M^2 (3Q + 2), backward
//          B M^2 (3Q + 2 to recompute the term, 3 for the adjoint's product and sums, 8Q for the
//          mean, variance, lengthscale and Z adjoints).
// An exp costs 10-20 instructions, so the elementwise count flatters the step's rate: the ratio
// against the GEMM rate is an upper estimate of how close the step is to GEMM-bound.
struct StepFlops {
  double gemm = 0, elementwise = 0;
  double total() const { return gemm + elementwise; }
};

StepFlops step_flops(const Options& o, Index m_inducing) {
  const double B = o.batch, M = m_inducing, D = o.dim, Q = o.latent;
  StepFlops f;
  if (!o.free_latents) {
    std::vector<double> widths{D};
    for (Index h : o.hidden) widths.push_back(static_cast<double>(h));
    widths.push_back(Q);
    double encoder = 0;
    for (size_t l = 0; l + 1 < widths.size(); ++l)
      encoder += 2 * B * widths[l] * widths[l + 1] * (l == 0 ? 2 : 3);
    f.gemm += 2 * encoder;  // mean and variance encoders
  }
  f.gemm += 4 * B * M * D + 12 * M * M * D + 10 * M * M * M;
  f.elementwise = B * M * (11 * Q + 4) + B * M * M * (14 * Q + 7);
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One C = A B at (B x D) * (D x h1) through OpenBLAS, Eigen's product and gplvm::gemm.
struct GemmTimer {
  Matrix a, b, c;
  GemmTimer(Index m, Index k, Index n) : a(Matrix::Random(m, k)), b(Matrix::Random(k, n)), c(m, n) {}
  double openblas() {
    const int m = static_cast<int>(a.rows()), k = static_cast<int>(a.cols()), n = static_cast<int>(b.cols());
    const auto t0 = Clock::now();
    cblas_dgemm(102, 111, 111, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0, c.data(), m);
    return seconds_since(t0);
  }
  double eigen() {
    const auto t0 = Clock::now();
    c.noalias() = a * b;
    return seconds_since(t0);
  }
  double engine() {
    const auto t0 = Clock::now();
    gemm(view_of(a), view_of(b), mutable_view_of(c), GemmUpdate::overwrite);
    return seconds_since(t0);
  }
  std::vector<double> all(const Communicator& comm) {
    std::vector<double> s;
    for (double (GemmTimer::*f)() : {&GemmTimer::openblas, &GemmTimer::eigen, &GemmTimer::engine}) {
      comm.barrier();
      s.push_back(comm.allreduce_max((this->*f)()));
    }
    return s;
  }
};

constexpr int kGemmImpls = 3;
const char* const kGemmImplNames[kGemmImpls] = {"OpenBLAS", "Eigen", "gplvm::gemm"};

SparseGplvmConfig model_config(const Options& o, Index m_inducing) {
  SparseGplvmConfig c;
  c.data_dim = o.dim;
  c.latent_dim = o.latent;
  c.bayesian = !o.point_latents;
  c.reproducible_sums = o.reproducible;
  c.latents = o.free_latents ? LatentKind::free : LatentKind::amortised;
  c.encoder_hidden = o.hidden;
  c.decoder.init.lengthscale = o.lengthscale;
  c.num_inducing = m_inducing;
  c.training = SparseTraining::minibatch;
  c.seed = 1;
  return c;
}

// Synthetic data as the SAS benchmark makes it: uniform on [0, 1), keyed by global position.
RowMatrix synthetic_rows(std::uint64_t begin, std::uint64_t count, Index dim) {
  RowMatrix data(static_cast<Index>(count), dim);
  const CounterRng rng(7);
  for (Index i = 0; i < data.rows(); ++i)
    for (Index j = 0; j < dim; ++j)
      data(i, j) = rng.uniform(RngPurpose::test, 0, 0, (begin + static_cast<std::uint64_t>(i)) * dim + j);
  return data;
}

struct Timings {
  std::vector<double> step, adam, gemm[kGemmImpls];
};

Timings run(const Options& o, Index m_inducing, const Communicator& comm) {
  const std::uint64_t n = 8 * static_cast<std::uint64_t>(o.batch);
  const RowPartition partition(n, comm.size());
  const auto begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  SparseGplvmModel model(model_config(o, m_inducing), n, begin, count);
  const RowMatrix data = synthetic_rows(begin, count, o.dim);
  model.initialise_from_data(comm, partition, DataRef(data));  // as gplvm train does
  const std::unique_ptr<TrainingStep> step = model.make_step(comm, partition, DataRef(data));

  Vector params = model.initial_parameters(), grad;
  ShardedAdam adam(comm, params.size(), model.summed_block(), {.learning_rate = 1e-3});
  const BatchSchedule schedule(n, static_cast<std::uint64_t>(o.batch), 1);
  std::uint64_t done = 0;
  double adam_seconds = 0;
  auto one_step = [&] {
    const std::uint64_t b = done % schedule.batches_per_epoch(), epoch = done / schedule.batches_per_epoch();
    step->evaluate(params, schedule.batch_rows(epoch, b), {epoch, b}, grad, &adam.slice_counts(), nullptr);
    const auto t0 = Clock::now();
    adam.ascend(params, grad);
    adam_seconds = seconds_since(t0);
    ++done;
  };
  GemmTimer gemm_timer(o.batch, o.dim, o.hidden.front());
  one_step();  // warm-up: first-touch allocations
  gemm_timer.all(comm);
  Timings t;
  for (int r = 0; r < o.rounds; ++r) {
    for (int i = 0; i < 3; ++i) {
      const std::vector<double> s = gemm_timer.all(comm);
      for (int k = 0; k < kGemmImpls; ++k) t.gemm[k].push_back(s[static_cast<size_t>(k)]);
    }
    for (int i = 0; i < o.steps_per_round; ++i) {
      comm.barrier();
      const auto t0 = Clock::now();
      one_step();
      t.step.push_back(comm.allreduce_max(seconds_since(t0)));
      t.adam.push_back(comm.allreduce_max(adam_seconds));
    }
  }
  return t;
}

void report(const Options& o, Index m_inducing, const Communicator& comm, const Timings& t) {
  if (!comm.is_root()) return;
  const double ranks = comm.size(), t_step = median(t.step);
  const double gemm_flops = 2.0 * o.batch * o.dim * o.hidden.front();
  double rates[kGemmImpls], best = 0;
  for (int i = 0; i < kGemmImpls; ++i) {
    rates[i] = ranks * gemm_flops / median(t.gemm[i]);
    best = std::max(best, rates[i]);
  }
  const StepFlops f = step_flops(o, m_inducing);
  const double rate = f.total() / t_step, points = static_cast<double>(o.batch) / t_step;
  if (o.json) {
    std::printf(
        "{\"impl\": \"gplvm\", \"model\": \"bayesian_gplvm\", \"ranks\": %d, \"batch\": %ld, \"inducing\": "
        "%ld, "
        "\"dim\": %ld, \"latent\": %ld, \"free\": %s, \"ms_per_step\": %.4f, \"ms_adam\": %.4f, "
        "\"points_per_s\": %.1f, \"gflop_step\": %.4f, \"gemm_share_of_flops\": %.4f, \"gflops_step\": %.3f, "
        "\"gflops_openblas\": %.3f, \"gflops_eigen\": %.3f, \"gflops_engine\": %.3f, "
        "\"ratio_to_best_gemm\": %.4f, \"steps\": %zu, \"engine\": \"%s\", \"blas_core\": \"%s\"}\n",
        comm.size(), (long)o.batch, (long)m_inducing, (long)o.dim, (long)o.latent,
        o.free_latents ? "true" : "false", 1e3 * t_step, 1e3 * median(t.adam), points, f.total() / 1e9,
        f.gemm / f.total(), rate / 1e9, rates[0] / 1e9, rates[1] / 1e9, rates[2] / 1e9, rate / best,
        t.step.size(), gemm_engine_name().c_str(), blas_core_name().c_str());
    std::fflush(stdout);
    return;
  }
  std::printf("config: %s%s B=%ld M=%ld D=%ld Q=%ld %s ranks=%d steps=%zu\n",
              o.point_latents ? "sparse_gplvm" : "bayesian_gplvm", o.reproducible ? " reproducible" : "",
              (long)o.batch, (long)m_inducing, (long)o.dim, (long)o.latent,
              o.free_latents ? "free" : "amortised", comm.size(), t.step.size());
  std::printf(
      "step: %.2f ms/step (median), of which Adam %.2f ms; %.0f points/s; %.3f GFLOP/step (%.0f%% "
      "GEMM-shaped), "
      "%.2f GFLOP/s\n",
      1e3 * t_step, 1e3 * median(t.adam), points, f.total() / 1e9, 100 * f.gemm / f.total(), rate / 1e9);
  std::printf("dgemm %ldx%ldx%ld x %d ranks (GFLOP/s, medians):", (long)o.batch, (long)o.dim,
              (long)o.hidden.front(), comm.size());
  for (int i = 0; i < kGemmImpls; ++i) std::printf(" %s %.2f", kGemmImplNames[i], rates[i] / 1e9);
  std::printf("\nstep FLOP rate / best dgemm rate: %.3f\n", rate / best);
  std::fflush(stdout);
}

// --check-out: one evaluation of the bound on keyed random inputs, written for the PyTorch check.
int write_check(const Options& o) {
  const Communicator comm;
  if (comm.size() != 1) {
    std::fprintf(stderr, "bench_bayesian_gplvm_step: --check-out runs on one rank\n");
    return 2;
  }
  Options free = o;
  free.free_latents = true;
  const Index m = o.inducing.front(), b = o.batch, q = o.latent, d = o.dim;
  const std::uint64_t n = 8 * static_cast<std::uint64_t>(b);
  const RowPartition partition(n, 1);
  SparseGplvmModel model(model_config(free, m), n, 0, n);
  const RowMatrix data = synthetic_rows(0, n, d);
  model.initialise_from_data(comm, partition, DataRef(data));
  Vector p = model.initial_parameters();
  // Away from the optimum and from the initial values: kernel, noise, q(u), latents all moved.
  const CounterRng rng(11);
  const Index h = model.noise_offset() - model.kernel_offset();
  for (Index i = 0; i < h; ++i)
    p[model.kernel_offset() + i] += 0.3 * rng.normal(RngPurpose::test, 1, 0, static_cast<std::uint64_t>(i));
  p[model.noise_offset()] = std::log(0.3);
  const Index posterior_size = InducingPosterior::packed_size(m, d);
  for (Index i = 0; i < posterior_size; ++i)
    p[model.posterior_offset() + i] +=
        0.05 * rng.normal(RngPurpose::test, 2, 0, static_cast<std::uint64_t>(i));
  const Index local = model.num_shared_parameters();
  for (Index i = 0; i < b * q; ++i) {
    p[local + i] += 0.2 * rng.normal(RngPurpose::test, 3, 0, static_cast<std::uint64_t>(i));
    p[local + static_cast<Index>(n) * q + i] = std::log(0.02 + 0.5 * rng.uniform(RngPurpose::test, 4, 0, i));
  }
  std::vector<Index> rows(static_cast<size_t>(b));
  std::iota(rows.begin(), rows.end(), Index{0});
  const RowMatrix batch = data.topRows(b);
  const double scale = static_cast<double>(n) / static_cast<double>(b);
  Vector g;
  const BatchTerms terms =
      model.evaluate_rows(comm, p, rows, batch, scale, SparseGplvmModel::Bound::uncollapsed, g);

  std::ofstream out(o.check_out, std::ios::binary);
  const std::int64_t dims[4] = {b, d, q, m};
  out.write(reinterpret_cast<const char*>(dims), sizeof dims);
  auto put = [&](const double* x, Index count) {
    out.write(reinterpret_cast<const char*>(x), static_cast<std::streamsize>(count * sizeof(double)));
  };
  auto put1 = [&](double x) { put(&x, 1); };
  const InducingPosterior qu = model.inducing_posterior(p);
  const Matrix scale_lower = qu.scale.triangularView<Eigen::Lower>();
  // Inputs: scale, Z (M x Q col-major), kernel hyperparameters (log theta, log l), log s2,
  // q(u) mean (M x D col-major), L_S (M x M col-major, zero above), latent means and log variances
  // (B x Q row-major each), Y (B x D row-major).
  put1(scale);
  put(p.data(), m * q);
  put(p.data() + model.kernel_offset(), h);
  put1(p[model.noise_offset()]);
  put(qu.mean.data(), qu.mean.size());
  put(scale_lower.data(), scale_lower.size());
  put(p.data() + local, b * q);
  put(p.data() + local + static_cast<Index>(n) * q, b * q);
  put(batch.data(), batch.size());
  // Outputs: value, dZ, d kernel, d log s2, d q(u) mean, d L_S (strict lower; diagonal: d/dlog),
  // d means, d log variances.
  put1(terms.objective);
  put(g.data(), m * q);
  put(g.data() + model.kernel_offset(), h);
  put1(g[model.noise_offset()]);
  put(g.data() + model.posterior_offset(), m * d);
  Matrix d_scale = Matrix::Zero(m, m);
  const double* packed = g.data() + model.posterior_offset() + m * d;
  for (Index j = 0; j < m; ++j)
    for (Index i = j; i < m; ++i) d_scale(i, j) = *packed++;
  put(d_scale.data(), d_scale.size());
  put(g.data() + local, b * q);
  put(g.data() + local + static_cast<Index>(n) * q, b * q);
  std::printf("{\"value\": %.17g, \"file\": \"%s\"}\n", terms.objective, o.check_out.c_str());
  return out ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MpiEnvironment mpi(&argc, &argv);
  const Options o = parse(argc, argv);
  openblas_set_num_threads(1);
  keep_freed_memory_for_reuse();
  if (!o.check_out.empty()) return write_check(o);
  const Communicator comm;
  if (comm.is_root() && !o.json)
    std::printf("%s; encoder GEMM engine: %s\n", blas_kernel_note().c_str(), gemm_engine_name().c_str());
  for (Index m : o.inducing) report(o, m, comm, run(o, m, comm));
  return 0;
}
