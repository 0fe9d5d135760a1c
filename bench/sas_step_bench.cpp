// Times one SAS training step (gather the batch, encoder forward, SAS objective and adjoints,
// encoder backward, gradient allreduces, Adam) through the same DistributedSasStep that
// `gplvm train` uses, on 1 or more MPI ranks, and, interleaved in the same run, the machine's GEMM
// at the step's dominant shape (B x D times D x h1) in the step's precision: OpenBLAS
// (cblas_dgemm/cblas_sgemm, the library PyTorch also calls), Eigen's product, and gplvm::gemm, the
// engine the encoder itself uses (the packed AVX-512 kernels in the default build). Prints ms/step,
// the three GEMM rates, and the step's useful FLOP rate as a fraction of the fastest (times the
// number of ranks). Threads per rank: OMP_NUM_THREADS (default 1); gplvm::gemm and OpenBLAS then
// run on that many threads, Eigen's product on one.
//
//   [OMP_NUM_THREADS=T] [mpirun -n P] bench_sas_step [--batch 1024] [--active 200] [--dim 784] [--latent 2]
//       [--hidden 512,256] [--rounds 7] [--steps-per-round 5] [--bayesian] [--free] [--float32]
//       [--keep-denormals] [--reproducible] [--lorentz] [--phase-timing] [--json]
// --lorentz: latents on the hyperboloid (model.latent_space = "lorentz") with the hyperboloid_exp
// kernel (kappa 2) instead of R^Q with eq_ard, at the same shapes, for the hyperbolic step's overhead.
// --reproducible: the step sums exactly over fixed row blocks (train.reproducible = true) instead
// of per rank.
// --phase-timing: every other step is timed with the per-phase breakdown recording
// (core/phase_clock.hpp), as `gplvm train` runs it, the others without; prints both medians and
// their ratio, the breakdown's overhead.
// --keep-denormals: fp32 steps keep IEEE subnormals instead of flushing them (the default,
// core/denormals.hpp); for measuring what the flush saves on processors that trap on them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/linalg/gemm.hpp"
#include "gplvm/models/distributed_sas_step.hpp"
#include "gplvm/optim/sharded_adam.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"

// CBLAS, not the Fortran dgemm_/sgemm_: EIGEN_USE_BLAS (GPLVM_GEMM=blas) declares those itself.
extern "C" {
void openblas_set_num_threads(int);
enum CblasLayout { CblasColMajorLayout = 102 };
enum CblasTrans { CblasNoTransposition = 111 };
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha, const double* a,
                 int lda, const double* b, int ldb, double beta, double* c, int ldc);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha, const float* a,
                 int lda, const float* b, int ldb, float beta, float* c, int ldc);
}

namespace {

using namespace gplvm;
using Clock = std::chrono::steady_clock;

struct Options {
  Index batch = 1024, active = 200, dim = 784, latent = 2;
  std::vector<Index> hidden{512, 256};
  int rounds = 7, steps_per_round = 5;
  bool bayesian = false, free_latents = false, float32 = false, keep_denormals = false, json = false;
  bool reproducible = false, lorentz = false, phase_timing = false;
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
        std::fprintf(stderr, "bench_sas_step: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--batch")
      o.batch = std::stol(next());
    else if (a == "--active")
      o.active = std::stol(next());
    else if (a == "--dim")
      o.dim = std::stol(next());
    else if (a == "--latent")
      o.latent = std::stol(next());
    else if (a == "--hidden")
      o.hidden = parse_list(next());
    else if (a == "--rounds")
      o.rounds = std::stoi(next());
    else if (a == "--steps-per-round")
      o.steps_per_round = std::stoi(next());
    else if (a == "--float32")
      o.float32 = true;
    else if (a == "--keep-denormals")
      o.keep_denormals = true;
    else if (a == "--reproducible")
      o.reproducible = true;
    else if (a == "--json")
      o.json = true;
    else if (a == "--bayesian")
      o.bayesian = true;
    else if (a == "--free")
      o.free_latents = true;
    else if (a == "--lorentz")
      o.lorentz = true;
    else if (a == "--phase-timing")
      o.phase_timing = true;
    else {
      std::fprintf(stderr, "bench_sas_step: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

// Useful floating-point operations of one step, counted from the maths (not from the code):
// GEMMs of the encoder forward and backward (no input gradient for the first layer), and the SAS
// terms: Cholesky of K_AA (A^3/3), whitening Y_A (A^2 D), the syrk beta beta^T (A^2 D), the two
// A x A x A solves turning the whitened adjoint into dL/dK_AA (2 A^3); per remainder: whitening
// K_AR and the solve for G (A^2 R each), the means W^T beta and beta Z^T (2 A R D each) and the
// A x A x R adjoint product (2 A^2 R). Split by the precision they run in: in fp32 mode the encoder
// and the remainder's products are fp32, the factorisation and every solve stay fp64
// (docs/precision.md); in fp64 mode everything is fp64.
struct StepFlops {
  double f32 = 0, f64 = 0;
  double total() const { return f32 + f64; }
};

StepFlops step_flops(const Options& o) {
  const double B = o.batch, A = o.active, R = B - A, D = o.dim, Q = o.latent;
  double encoder = 0;
  if (!o.free_latents) {
    std::vector<double> widths{D};
    for (Index h : o.hidden) widths.push_back(h);
    widths.push_back(Q);
    for (size_t l = 0; l + 1 < widths.size(); ++l) {
      const double layer = 2 * B * widths[l] * widths[l + 1];
      encoder += layer * (l == 0 ? 2 : 3);  // forward, weight gradient, input gradient (not layer 0)
    }
    if (o.bayesian) encoder *= 2;  // mean and variance encoders
  }
  const double solves = A * A * A / 3 + 2 * A * A * D + 2 * A * A * A + 2 * A * A * R;
  const double products = 4 * A * R * D + 2 * A * A * R;
  if (!o.float32) return {0, encoder + solves + products};
  return {encoder + products, solves};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Seconds of one C = A B at the encoder's first-layer shape, (B x D) * (D x h1): through OpenBLAS
// directly, through Eigen's product, and through gplvm::gemm (the encoder's engine).
template <typename Scalar>
struct GemmTimer {
  MatrixT<Scalar> a, b, c;
  GemmTimer(Index m, Index k, Index n)
      : a(MatrixT<Scalar>::Random(m, k)), b(MatrixT<Scalar>::Random(k, n)), c(m, n) {}

  double openblas() {
    const int m = static_cast<int>(a.rows()), k = static_cast<int>(a.cols()), n = static_cast<int>(b.cols());
    const auto t0 = Clock::now();
    if constexpr (std::is_same_v<Scalar, double>)
      cblas_dgemm(CblasColMajorLayout, CblasNoTransposition, CblasNoTransposition, m, n, k, 1.0, a.data(), m,
                  b.data(), k, 0.0, c.data(), m);
    else
      cblas_sgemm(CblasColMajorLayout, CblasNoTransposition, CblasNoTransposition, m, n, k, 1.0f, a.data(), m,
                  b.data(), k, 0.0f, c.data(), m);
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
  // Seconds of each of the three, timed back to back on every rank at once. OpenBLAS is timed
  // here only when it runs one thread: its pool threads spin on after a threaded call and would
  // take the cores from the step's threads, so with several threads it is timed after all steps
  // (openblas_after_steps).
  std::vector<double> all(const Communicator& comm, int threads) {
    std::vector<double> seconds;
    for (double (GemmTimer::*f)() : {&GemmTimer::openblas, &GemmTimer::eigen, &GemmTimer::engine}) {
      if (f == &GemmTimer::openblas && threads > 1) {
        seconds.push_back(std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      comm.barrier();
      seconds.push_back(comm.allreduce_max((this->*f)()));
    }
    return seconds;
  }
  // OpenBLAS with `threads` threads, timed `repeats` times once the steps are done.
  std::vector<double> openblas_after_steps(const Communicator& comm, int threads, int repeats) {
    openblas_set_num_threads(threads);
    std::vector<double> seconds;
    for (int i = 0; i < repeats; ++i) {
      comm.barrier();
      seconds.push_back(comm.allreduce_max(openblas()));
    }
    openblas_set_num_threads(1);
    return seconds;
  }
};

// GEMM seconds per implementation, in GemmTimer::all's order.
constexpr int kGemmImpls = 3;
const char* const kGemmImplNames[kGemmImpls] = {"OpenBLAS", "Eigen", "gplvm::gemm"};

struct Timings {
  std::vector<double> step;
  std::vector<double> recorded_step;  // --phase-timing: steps timed with the phases recorded
  std::vector<double> adam;           // the optimiser's part of each step
  std::vector<double> gemm[kGemmImpls];
  std::vector<double> dgemm[kGemmImpls];  // fp32 runs: the fp64 GEMM too, for the mixed limit
};

template <typename Scalar>
Timings run(const Options& o, const Communicator& comm, int threads) {
  const Index n = 8 * o.batch;
  SasModelConfig c;
  c.data_dim = o.dim;
  c.latent_dim = o.latent;
  c.encoder_hidden = o.hidden;
  c.bayesian = o.bayesian;
  c.latents = o.free_latents ? LatentKind::free : LatentKind::amortised;
  c.precision = o.float32 ? Precision::float32 : Precision::float64;
  c.flush_denormals = !o.keep_denormals;
  c.reproducible_sums = o.reproducible;
  c.seed = 1;
  if (o.lorentz) {
    c.latent_space = "lorentz";
    c.decoder.kernel = "hyperboloid_exp";
    c.decoder.init.lengthscale = 2.0;  // kappa, as bench/lorentz_sas_scale.py trains
  }
  const RowPartition partition(static_cast<std::uint64_t>(n), comm.size());
  const auto begin = partition.begin(comm.rank()), count = partition.count(comm.rank());
  const SasModel model(c, static_cast<std::uint64_t>(n), begin, count);
  RowMatrix data(static_cast<Index>(count), o.dim);
  const CounterRng rng(7);
  for (Index i = 0; i < data.rows(); ++i)
    for (Index j = 0; j < o.dim; ++j)
      data(i, j) = rng.uniform(RngPurpose::test, 0, 0, (begin + i) * o.dim + j);
  // Rows held as `gplvm train` holds them: float32 for fp32 models.
  const RowMatrixF data_f32 = o.float32 ? RowMatrixF(data.cast<float>()) : RowMatrixF();
  const DistributedSasStep step = o.float32 ? DistributedSasStep(model, comm, partition, DataRefF(data_f32))
                                            : DistributedSasStep(model, comm, partition, DataRef(data));

  Vector params = model.initial_parameters(), grad;
  ShardedAdam adam(comm, params.size(), step.encoder_block(), {.learning_rate = 1e-3});  // as Trainer runs it
  std::optional<Float32Shadow> shadow;  // as Trainer runs it: fp32 encoders exchange floats with Adam
  if (o.float32 && !o.free_latents) shadow.emplace(step.encoder_block());
  const BatchSchedule schedule(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(o.batch), c.seed);
  std::uint64_t done = 0;
  double adam_seconds = 0;  // of the last step
  auto one_step = [&] {
    const std::uint64_t b = done % schedule.batches_per_epoch(), epoch = done / schedule.batches_per_epoch();
    step.evaluate(params, schedule.batch_rows(epoch, b), o.active, {epoch, b}, grad, &adam.slice_counts(),
                  shadow ? &*shadow : nullptr);
    const auto t0 = Clock::now();
    if (shadow)
      adam.ascend(params, grad, *shadow);
    else
      adam.ascend(params, grad);
    adam_seconds = seconds_since(t0);
    ++done;
  };

  GemmTimer<Scalar> gemm_timer(o.batch, o.dim, o.hidden.front());
  GemmTimer<double> dgemm_timer(o.float32 ? o.batch : 1, o.float32 ? o.dim : 1,
                                o.float32 ? o.hidden.front() : 1);
  one_step();  // warm-up: first-touch allocations
  gemm_timer.all(comm, threads);
  Timings t;
  auto record = [](std::vector<double>(&into)[kGemmImpls], const std::vector<double>& seconds) {
    for (int i = 0; i < kGemmImpls; ++i) into[i].push_back(seconds[static_cast<size_t>(i)]);
  };
  for (int r = 0; r < o.rounds; ++r) {
    for (int i = 0; i < 3; ++i) record(t.gemm, gemm_timer.all(comm, threads));
    if (o.float32) record(t.dgemm, dgemm_timer.all(comm, threads));
    for (int i = 0; i < o.steps_per_round; ++i) {
      // Interleaved, so both see the same machine state, and on alternate positions from round to
      // round, so neither always follows the GEMM timings.
      const bool recorded = o.phase_timing && (i + r) % 2 == 1;
      std::optional<PhaseRecording> recording;
      if (recorded) recording.emplace();
      comm.barrier();
      const auto t0 = Clock::now();
      one_step();
      (recorded ? t.recorded_step : t.step).push_back(comm.allreduce_max(seconds_since(t0)));
      t.adam.push_back(comm.allreduce_max(adam_seconds));
    }
  }
  if (threads > 1) {
    t.gemm[0] = gemm_timer.openblas_after_steps(comm, threads, 3 * o.rounds);
    if (o.float32) t.dgemm[0] = dgemm_timer.openblas_after_steps(comm, threads, o.rounds);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  MpiEnvironment mpi(&argc, &argv);
  const Options o = parse(argc, argv);
  const int threads = threads_from_environment();  // OMP_NUM_THREADS, else 1
  openblas_set_num_threads(1);                     // the step's LAPACK calls, as gplvm train runs them
  keep_freed_memory_for_reuse();
  const Communicator comm;
  const Timings t = o.float32 ? run<float>(o, comm, threads) : run<double>(o, comm, threads);
  if (!comm.is_root()) return 0;
  const double ranks = comm.size();
  const double t_step = median(t.step);
  const double gemm_flops = 2.0 * o.batch * o.dim * o.hidden.front();
  double rates[kGemmImpls], best_rate = 0, dgemm_rate = 0;
  for (int i = 0; i < kGemmImpls; ++i) {
    rates[i] = ranks * gemm_flops / median(t.gemm[i]);
    best_rate = std::max(best_rate, rates[i]);
    if (o.float32) dgemm_rate = std::max(dgemm_rate, ranks * gemm_flops / median(t.dgemm[i]));
  }
  if (!o.float32) dgemm_rate = best_rate;
  const StepFlops flops = step_flops(o);
  const double step_rate = flops.total() / t_step;
  const char* gemm_name = o.float32 ? "sgemm" : "dgemm";
  const std::string engine = gemm_engine_name();
  // The step's time if each of its FLOPs ran at the same run's best GEMM rate in its precision,
  // over its measured time: the fraction of the machine limit of its precision mix.
  const double mixed_limit = (flops.f32 / best_rate + flops.f64 / dgemm_rate) / t_step;
  if (o.json) {
    std::printf(
        "{\"impl\": \"gplvm\", \"precision\": \"%s\", \"ranks\": %d, \"threads\": %d, \"batch\": %ld, "
        "\"active\": %ld, "
        "\"dim\": %ld, \"bayesian\": %s, \"free\": %s, \"latent_space\": \"%s\", \"ms_per_step\": %.4f, "
        "\"gflops_step\": %.3f, "
        "\"gflops_openblas\": %.3f, \"gflops_eigen\": %.3f, \"gflops_engine\": %.3f, "
        "\"ratio_to_best_gemm\": %.4f, \"ratio_to_precision_mix\": %.4f, \"fp64_share_of_flops\": %.4f, "
        "\"engine\": \"%s\", \"blas_core\": \"%s\", \"flush_denormals\": %s}\n",
        o.float32 ? "float32" : "float64", comm.size(), threads, (long)o.batch, (long)o.active, (long)o.dim,
        o.bayesian ? "true" : "false", o.free_latents ? "true" : "false", o.lorentz ? "lorentz" : "euclidean",
        1e3 * t_step, step_rate / 1e9, rates[0] / 1e9, rates[1] / 1e9, rates[2] / 1e9, step_rate / best_rate,
        mixed_limit, flops.f64 / flops.total(), engine.c_str(), blas_core_name().c_str(),
        o.float32 && !o.keep_denormals ? "true" : "false");
    return 0;
  }
  std::printf("%s; encoder GEMM engine: %s (GPLVM_GEMM=%s)\n", blas_kernel_note().c_str(), engine.c_str(),
              GPLVM_GEMM_ENGINE);
  std::printf("config: B=%ld A=%ld D=%ld Q=%ld hidden=", (long)o.batch, (long)o.active, (long)o.dim,
              (long)o.latent);
  for (Index h : o.hidden) std::printf("%ld,", (long)h);
  std::printf(" %s %s %s %s ranks=%d threads/rank=%d steps=%zu\n", o.bayesian ? "bayesian" : "sas",
              o.free_latents ? "free" : "amortised", o.lorentz ? "lorentz" : "euclidean",
              o.float32 ? "float32" : "float64", comm.size(), threads, t.step.size());
  std::printf("step: %.2f ms/step (median), %.3f GFLOP/step, %.2f GFLOP/s; of which Adam %.2f ms (median)\n",
              1e3 * t_step, flops.total() / 1e9, step_rate / 1e9, 1e3 * median(t.adam));
  if (o.phase_timing)
    std::printf(
        "phases recorded: %.3f ms/step against %.3f ms/step unrecorded (medians of %zu and %zu); ratio "
        "%.4f\n",
        1e3 * median(t.recorded_step), 1e3 * t_step, t.recorded_step.size(), t.step.size(),
        median(t.recorded_step) / t_step);
  std::printf("%s %ldx%ldx%ld x %d ranks x %d threads (GFLOP/s, medians; Eigen's on one thread):", gemm_name,
              (long)o.batch, (long)o.dim, (long)o.hidden.front(), comm.size(), threads);
  for (int i = 0; i < kGemmImpls; ++i) std::printf(" %s %.2f", kGemmImplNames[i], rates[i] / 1e9);
  std::printf("\n");
  std::printf("step FLOP rate / best %s rate: %.3f\n", gemm_name, step_rate / best_rate);
  if (o.float32)
    std::printf("fp64 share of the FLOPs %.3f (best dgemm %.2f GFLOP/s); step / limit of that mix: %.3f\n",
                flops.f64 / flops.total(), dgemm_rate / 1e9, mixed_limit);
  return 0;
}
