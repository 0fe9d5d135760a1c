#pragma once
// Shared test helpers: central finite differences, relative errors, captured log lines.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "gplvm/core/log.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/models/distributed_sas_step.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm::testing {

// Central finite-difference gradient of f at x (step h scaled by max(1, |x_i|)).
Vector finite_difference_gradient(const std::function<double(const Vector&)>& f, const Vector& x,
                                  double h = 1e-5);

// d^2 f(x + s e_a, x + t e_b) / ds dt at s = t = 0 for a function f of two points (1 x Q rows),
// by mixed central differences of step h, Richardson-extrapolated over h, h/2 and h/4, so that an
// O(h) error term (a once-differentiable function's |r|^3, as matern32's) and the O(h^2) term both
// cancel.
double mixed_second_difference(const std::function<double(const Matrix&, const Matrix&)>& f, const Matrix& x,
                               Index a, Index b, double h);

// max_i |a_i - b_i| / max(max_i |b_i|, floor): one scale for the whole gradient, so a component
// that is zero in both does not divide by zero and a tiny component is judged against the rest.
double max_relative_error(const ConstVectorRef& a, const ConstVectorRef& b, double floor = 1e-12);

// A folder every rank of comm uses: made by rank 0 under the system's temporary folder (named by
// `prefix` and rank 0's process id) and removed by it when every rank is done. Collective.
class SharedScratchDir {
 public:
  SharedScratchDir(const Communicator& comm, const std::string& prefix);
  ~SharedScratchDir();
  SharedScratchDir(const SharedScratchDir&) = delete;
  SharedScratchDir& operator=(const SharedScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  const Communicator& comm_;
  std::string path_;
};

// Whether `part` occurs in `text` (error and log messages).
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Collects warnings while alive; restores the previous sink on destruction.
class CapturedLog {
 public:
  CapturedLog();
  ~CapturedLog();
  const std::vector<std::string>& warnings() const { return warnings_; }
  bool any_warning_contains(const std::string& text) const;

 private:
  std::vector<std::string> warnings_;
  LogSink previous_;
};

// Sets the rank's thread count while alive (set_threads_per_rank); restores the previous count on
// destruction.
class ScopedThreads {
 public:
  explicit ScopedThreads(int threads);
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int previous_;
};

// The training tests' model: Q = 2, unit lengthscale, the given data width, kind, precision,
// encoder widths and seed.
SasModelConfig training_test_config(Index data_dim, bool bayesian, LatentKind latents, Precision precision,
                                    std::vector<Index> encoder_hidden, std::uint64_t seed);

// A variant of the training tests' model: SAS or Bayesian SAS, amortised or free latents, fp64 or
// fp32.
struct ModelVariant {
  bool bayesian;
  LatentKind latents;
  Precision precision = Precision::float64;
};
void PrintTo(const ModelVariant& v, std::ostream* os);  // its name in GoogleTest's output
// All eight: {SAS, Bayesian SAS} x {amortised, free} x {fp64, fp32}.
std::vector<ModelVariant> all_model_variants();

// The distributed step over this rank's rows `local`; for an fp32 model over them held as float32
// in local_f32 (which must outlive the step), as `gplvm train` holds them.
DistributedSasStep distributed_step_for(const SasModel& model, const Communicator& comm,
                                        const RowPartition& partition, const RowMatrix& local,
                                        RowMatrixF& local_f32);

// The thread counts the thread-count tests compare with one thread.
inline constexpr int kThreadCounts[] = {2, 3, 4};

// A matrix of i.i.d. standard normals drawn from a test stream.
Matrix random_normal(Index rows, Index cols, std::uint64_t seed);

// The objective tests' fixture: N(0, I) latents X (n x Q) and D outputs drawn from the GP prior
// with `kernel` and `noise` at them.
struct GpProblem {
  EqArdKernel kernel;
  double noise;
  Matrix X;
  RowMatrix Y;
};
GpProblem sample_gp_problem(const EqArdKernel& kernel, double noise, Index n, Index d, std::uint64_t seed);

}  // namespace gplvm::testing
