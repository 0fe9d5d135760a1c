#include "support/test_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/model/gp_prior_sample.hpp"

namespace gplvm::testing {

SharedScratchDir::SharedScratchDir(const Communicator& comm, const std::string& prefix) : comm_(comm) {
  std::string dir;
  if (comm_.is_root()) {
    dir = (std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
  }
  path_ = comm_.broadcast(dir);
}

SharedScratchDir::~SharedScratchDir() {
  comm_.barrier();
  std::error_code ignored;
  if (comm_.is_root()) std::filesystem::remove_all(path_, ignored);
}

ScopedThreads::ScopedThreads(int threads) : previous_(threads_per_rank()) {
  set_threads_per_rank(threads);
}

ScopedThreads::~ScopedThreads() {
  set_threads_per_rank(previous_);
}

SasModelConfig training_test_config(Index data_dim, bool bayesian, LatentKind latents, Precision precision,
                                    std::vector<Index> encoder_hidden, std::uint64_t seed) {
  SasModelConfig c;
  c.data_dim = data_dim;
  c.latent_dim = 2;
  c.bayesian = bayesian;
  c.latents = latents;
  c.precision = precision;
  c.encoder_hidden = std::move(encoder_hidden);
  c.decoder.init.lengthscale = 1.0;
  c.seed = seed;
  return c;
}

void PrintTo(const ModelVariant& v, std::ostream* os) {
  *os << (v.bayesian ? "bayesian_" : "sas_") << to_string(v.latents) << "_" << to_string(v.precision);
}

std::vector<ModelVariant> all_model_variants() {
  std::vector<ModelVariant> variants;
  for (Precision precision : {Precision::float64, Precision::float32})
    for (LatentKind latents : {LatentKind::amortised, LatentKind::free})
      for (bool bayesian : {false, true}) variants.push_back({bayesian, latents, precision});
  return variants;
}

DistributedSasStep distributed_step_for(const SasModel& model, const Communicator& comm,
                                        const RowPartition& partition, const RowMatrix& local,
                                        RowMatrixF& local_f32) {
  if (model.config().precision == Precision::float64)
    return DistributedSasStep(model, comm, partition, local);
  local_f32 = local.cast<float>();
  return DistributedSasStep(model, comm, partition, DataRefF(local_f32));
}

Vector finite_difference_gradient(const std::function<double(const Vector&)>& f, const Vector& x, double h) {
  Vector g(x.size());
  Vector xp = x;
  for (Index i = 0; i < x.size(); ++i) {
    const double step = h * std::max(1.0, std::abs(x[i]));
    xp[i] = x[i] + step;
    const double up = f(xp);
    xp[i] = x[i] - step;
    const double down = f(xp);
    xp[i] = x[i];
    g[i] = (up - down) / (2.0 * step);
  }
  return g;
}

double mixed_second_difference(const std::function<double(const Matrix&, const Matrix&)>& f, const Matrix& x,
                               Index a, Index b, double h) {
  const auto at = [&](double s, double t) {
    Matrix first = x, second = x;
    first(0, a) += s;
    second(0, b) += t;
    return f(first, second);
  };
  const auto central = [&](double step) {
    return (at(step, step) - at(step, -step) - at(-step, step) + at(-step, -step)) / (4.0 * step * step);
  };
  const double r1_h = 2.0 * central(h / 2) - central(h), r1_half = 2.0 * central(h / 4) - central(h / 2);
  return (4.0 * r1_half - r1_h) / 3.0;
}

double max_relative_error(const ConstVectorRef& a, const ConstVectorRef& b, double floor) {
  const double scale = std::max(b.cwiseAbs().maxCoeff(), floor);
  return (a - b).cwiseAbs().maxCoeff() / scale;
}

CapturedLog::CapturedLog() {
  previous_ = set_log_sink([this](LogLevel level, const std::string& message) {
    if (level == LogLevel::warning) warnings_.push_back(message);
  });
}

CapturedLog::~CapturedLog() {
  set_log_sink(previous_);
}

bool CapturedLog::any_warning_contains(const std::string& text) const {
  return std::any_of(warnings_.begin(), warnings_.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

Matrix random_normal(Index rows, Index cols, std::uint64_t seed) {
  const CounterRng rng(seed);
  Matrix m(rows, cols);
  for (Index j = 0; j < cols; ++j)
    for (Index i = 0; i < rows; ++i)
      m(i, j) = rng.normal(RngPurpose::test, 0, 0, static_cast<std::uint64_t>(j * rows + i));
  return m;
}

GpProblem sample_gp_problem(const EqArdKernel& kernel, double noise, Index n, Index d, std::uint64_t seed) {
  GpProblem p{kernel, noise, random_normal(n, kernel.input_dim(), seed), RowMatrix()};
  p.Y = sample_gp_outputs(p.kernel, p.noise, p.X, d, CounterRng(seed), 0);
  return p;
}

}  // namespace gplvm::testing
