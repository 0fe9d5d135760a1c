// Times one SAS training step (gather batch, encoder forward, SAS objective and adjoints, encoder
// backward, Adam) and, interleaved in the same run, OpenBLAS DGEMM at the step's dominant GEMM
// shape (B x D times D x h1). Prints ms/step, the DGEMM rate, and the step's useful FLOP rate as a
// fraction of it.
//
//   bench_sas_step [--batch 1024] [--active 200] [--dim 784] [--latent 2] [--hidden 512,256]
//                  [--rounds 7] [--steps-per-round 5] [--bayesian] [--free] [--threads 1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/train/sas_model.hpp"

extern "C" void openblas_set_num_threads(int);

namespace {

using namespace gplvm;
using Clock = std::chrono::steady_clock;

struct Options {
  Index batch = 1024, active = 200, dim = 784, latent = 2;
  std::vector<Index> hidden{512, 256};
  int rounds = 7, steps_per_round = 5, threads = 1;
  bool bayesian = false, free_latents = false;
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
    else if (a == "--threads")
      o.threads = std::stoi(next());
    else if (a == "--bayesian")
      o.bayesian = true;
    else if (a == "--free")
      o.free_latents = true;
    else {
      std::fprintf(stderr, "bench_sas_step: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

// Useful floating-point operations of one step, counted from the maths (not from the code):
// GEMMs of the encoder forward and backward (no input gradient for the first layer), and the SAS
// terms: Cholesky and inverse of the A x A block, two triangular solves against Y_A and against
// k_AR, the means k_RA alpha, the adjoint alpha Z^T, and the two A x A x R adjoint products.
double step_flops(const Options& o) {
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
  const double active = A * A * A / 3 + 2 * A * A * A / 3 + 2 * A * A * D + A * A * D;
  const double remainder = 2 * A * A * R + 2 * A * R * D + 2 * A * R * D + 2 * A * A * R + 2 * A * A * R;
  return encoder + active + remainder;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per DGEMM call at the encoder's first-layer shape, (B x D) * (D x h1).
double time_dgemm(const Matrix& a, const Matrix& b, Matrix& c) {
  const auto t0 = Clock::now();
  c.noalias() = a * b;
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  openblas_set_num_threads(o.threads);
  keep_freed_memory_for_reuse();
  const Index n = 8 * o.batch;
  SasModelConfig c;
  c.data_dim = o.dim;
  c.latent_dim = o.latent;
  c.encoder_hidden = o.hidden;
  c.bayesian = o.bayesian;
  c.latents = o.free_latents ? LatentKind::free : LatentKind::amortised;
  c.seed = 1;
  const SasModel model(c, n, 0, n);
  RowMatrix data(n, o.dim);
  const CounterRng rng(7);
  for (Index i = 0; i < data.size(); ++i) data.data()[i] = rng.uniform(RngPurpose::test, 0, 0, i);

  Vector params = model.initial_parameters(), grad;
  Adam adam(params.size(), {.learning_rate = 1e-3});
  const BatchSchedule schedule(n, o.batch, c.seed);
  RowMatrix batch_data(o.batch, o.dim);
  std::uint64_t step = 0;
  auto one_step = [&] {
    const std::uint64_t b = step % schedule.batches_per_epoch(), epoch = step / schedule.batches_per_epoch();
    const auto rows = schedule.batch_rows(epoch, b);
    batch_data.resize(static_cast<Index>(rows.size()), o.dim);
    for (size_t i = 0; i < rows.size(); ++i) batch_data.row(i) = data.row(rows[i]);
    model.evaluate(params, {rows, batch_data, o.active}, {epoch, b}, grad);
    adam.ascend(params, grad);
    ++step;
  };

  const Matrix ga = Matrix::Random(o.batch, o.dim), gb = Matrix::Random(o.dim, o.hidden.front());
  Matrix gc(o.batch, o.hidden.front());
  const double gemm_flops = 2.0 * o.batch * o.dim * o.hidden.front();
  one_step();  // warm-up: first-touch allocations
  time_dgemm(ga, gb, gc);
  std::vector<double> step_seconds, gemm_seconds;
  for (int r = 0; r < o.rounds; ++r) {
    for (int i = 0; i < 3; ++i) gemm_seconds.push_back(time_dgemm(ga, gb, gc));
    for (int i = 0; i < o.steps_per_round; ++i) {
      const auto t0 = Clock::now();
      one_step();
      step_seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
  }
  const double t_step = median(step_seconds), t_gemm = median(gemm_seconds);
  const double gemm_rate = gemm_flops / t_gemm, step_rate = step_flops(o) / t_step;
  std::printf("config: B=%ld A=%ld D=%ld Q=%ld hidden=", (long)o.batch, (long)o.active, (long)o.dim,
              (long)o.latent);
  for (Index h : o.hidden) std::printf("%ld,", (long)h);
  std::printf(" %s %s threads=%d steps=%zu\n", o.bayesian ? "bayesian" : "sas",
              o.free_latents ? "free" : "amortised", o.threads, step_seconds.size());
  std::printf("step: %.2f ms/step (median), %.3f GFLOP/step, %.2f GFLOP/s\n", 1e3 * t_step,
              step_flops(o) / 1e9, step_rate / 1e9);
  std::printf("dgemm %ldx%ldx%ld: %.2f GFLOP/s (median)\n", (long)o.batch, (long)o.dim,
              (long)o.hidden.front(), gemm_rate / 1e9);
  std::printf("step FLOP rate / DGEMM rate: %.3f\n", step_rate / gemm_rate);
  return 0;
}
