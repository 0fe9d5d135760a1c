#include "gplvm/models/probdr_model.hpp"

#include <cmath>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/models/pca_latents.hpp"
#include "gplvm/objectives/wishart_covariance.hpp"
#include "gplvm/objectives/wishart_precision.hpp"
#include "gplvm/probdr/probdr_method.hpp"

namespace gplvm {
namespace {

constexpr const char* kNoiseBlock = "noise_variance";

// X - U (U^T X): this rank's rows of X without their components along the orthonormal columns U
// (collective: one allreduce of U^T X). U empty: X.
Matrix without_null_space(const Matrix& x, const Matrix& u, const Communicator& comm) {
  if (u.cols() == 0) return x;
  Matrix projections = u.transpose() * x;
  comm.allreduce_sum(projections);
  return x - u * projections;
}

// -f, the negative Wishart KL, over [log noise, X]: maximised, as every full-batch objective is.
class ProbdrObjective : public FullBatchObjective {
 public:
  ProbdrObjective(const ProbdrModel& model, const Communicator& comm)
      : model_(model),
        comm_(comm),
        noise_(model.parameter_layout().block(kNoiseBlock).offset),
        latents_(model.parameter_layout().block("latent/mean").offset) {
    const MomentEstimate& m = model.moment();
    const double dof = model.degrees_of_freedom();
    if (m.form == MomentForm::covariance)
      covariance_.emplace(comm, *m.covariance, dof);
    else
      precision_.emplace(comm, *m.precision, dof, model.config().probdr.precision_regularisation);
  }

  double evaluate(const Vector& params, Vector& gradient) const override {
    const Index rows = static_cast<Index>(model_.local_rows()), l = model_.latent_dim();
    // f(P X) with P the projector off the moment's null vectors: the optimum the spectral fit finds,
    // with gradient P df; X's null components never move.
    const Matrix& null_space = model_.moment().null_space;
    const Matrix x =
        without_null_space(Eigen::Map<const RowMatrix>(params.data() + latents_, rows, l), null_space, comm_);
    const double noise = std::exp(params[noise_]);
    const WishartEvaluation e =
        covariance_ ? covariance_->evaluate(x, noise) : precision_->evaluate(x, noise);
    gradient.setZero(params.size());
    gradient[noise_] = -e.d_log_noise;
    Eigen::Map<RowMatrix>(gradient.data() + latents_, rows, l) =
        -without_null_space(e.d_latents, null_space, comm_);
    // A fixed noise (probdr.fixed_noise) gets no gradient, so that L-BFGS leaves its bits (the
    // argument of models/sparse_gplvm_training.cpp, drop_held_gradient).
    for (const Index i : model_.fixed_parameter_indices()) gradient[i] = 0.0;
    return -e.value;
  }
  std::string value_name() const override { return "negative_wishart_kl"; }

 private:
  const ProbdrModel& model_;
  const Communicator& comm_;
  Index noise_, latents_;
  std::optional<WishartCovariance> covariance_;
  std::optional<WishartPrecision> precision_;
};

}  // namespace

ProbdrModelConfig probdr_model_config(const Config& config) {
  ProbdrModelConfig c;
  c.probdr = read_probdr_settings(config);
  c.start.init = parse_latent_init(config.get_string("model.init"));
  c.start.scale = config.get_double("model.free_latent_scale");
  require(c.start.init != LatentInit::paper_uniform,
          "model.kind = \"probdr\" starts a gradient fit from pca or random latents",
          {"", "model.init", "paper_uniform"});
  return c;
}

ProbdrModel::ProbdrModel(ProbdrModelConfig config, Index data_dim, std::uint64_t num_data,
                         std::uint64_t local_begin, std::uint64_t local_rows)
    : Model(
          ModelFacts{num_data, local_begin, local_rows, data_dim, Precision::float64, config.probdr.seed,
                     LatentDescription{LatentKind::free, false, config.probdr.latent_dim, kEuclideanSpace}}),
      config_(std::move(config)),
      space_(make_latent_space(kEuclideanSpace, config_.probdr.latent_dim)),
      layout_(static_cast<Index>(local_rows)),
      latents_([this]() -> FreeLatents {
        ParameterBlock noise{.name = kNoiseBlock, .rows = 1, .cols = 1, .transform = ParameterTransform::log};
        // A fixed noise (probdr.fixed_noise) is held at its value by every optimiser.
        if (!config_.probdr.noise.estimate) noise.fixed = {0};
        noise_offset_ = layout_.add(noise);
        return FreeLatents(*space_, false, layout_);
      }()) {}

const MomentEstimate& ProbdrModel::moment() const {
  if (!moment_) throw Error("the ProbDR moment is estimated by initialise_from_data, which has not run");
  return *moment_;
}

double ProbdrModel::degrees_of_freedom() const {
  return moment().degrees_of_freedom;
}

void ProbdrModel::initialise_from_data(const Communicator& comm, const RowPartition& partition,
                                       LocalRows local_rows) {
  const DataRef& local = std::get<DataRef>(local_rows);
  require_partitioned_data(local, partition, comm);
  const ProbdrMethod& method = probdr_method(config_.probdr.method);
  moment_ = std::make_shared<MomentEstimate>(method.estimate(local, config_.probdr, comm));
  const double n = static_cast<double>(num_data());
  const double trace = moment_->form == MomentForm::covariance
                           ? comm.allreduce_sum(moment_->covariance->local_trace())
                           : comm.allreduce_sum(moment_->precision->local_trace()) +
                                 n * config_.probdr.precision_regularisation;
  // The mean eigenvalue of S_hat, or one over that of Gamma: the noise in the moment's own units.
  initial_noise_ = moment_->form == MomentForm::covariance ? trace / n : n / trace;
  require(std::isfinite(initial_noise_) && initial_noise_ > 0,
          "the estimated moment has no positive trace: the data carry no variance",
          {"", "probdr.method", method.name});
  std::optional<Matrix> pca_scores;
  if (config_.start.init == LatentInit::pca)
    pca_scores = pca_latents(local, partition, comm, config_.probdr.latent_dim);
  // The start, off the null vectors (the objective sees P X only; the written latents are X).
  Vector start = Vector::Zero(layout_.num_parameters());
  latents_.initialise(start, pca_scores, config_.start, CounterRng(seed()), local_begin());
  const Index rows = static_cast<Index>(Model::local_rows());
  start_latents_ = without_null_space(
      Eigen::Map<const RowMatrix>(start.data() + latents_.mean_offset(), rows, latent_dim()),
      moment_->null_space, comm);
}

Vector ProbdrModel::initial_parameters() const {
  Vector p = Vector::Zero(layout_.num_parameters());
  const ProbdrSettings& s = config_.probdr;
  p[noise_offset_] = std::log(s.noise.estimate ? initial_noise_ : s.noise.fixed_value);
  if (start_latents_)
    Eigen::Map<RowMatrix>(p.data() + latents_.mean_offset(), static_cast<Index>(local_rows()), latent_dim()) =
        *start_latents_;
  return p;
}

std::optional<Vector> ProbdrModel::closed_form_parameters(const Communicator& comm,
                                                          const ClosedFormProgress& progress) const {
  SpectralFitOptions options;
  options.latent_dim = latent_dim();
  options.noise = config_.probdr.noise;
  options.regularisation = config_.probdr.precision_regularisation;
  options.route = config_.probdr.eigensolver;
  options.subspace = config_.probdr.eigensolver_subspace;
  if (progress)
    options.progress = [&progress](const EigenProgress& p) {
      char line[160];
      std::snprintf(
          line, sizeof line, "eigensolver restart %lld: %lld eigenpairs converged, error estimate %.3g",
          static_cast<long long>(p.iteration), static_cast<long long>(p.converged), p.error_estimate);
      progress(line);
    };
  spectral_ = spectral_fit(moment(), options, comm);
  Vector p = initial_parameters();
  p[noise_offset_] = std::log(spectral_->optimum.noise);
  const Index rows = static_cast<Index>(local_rows());
  Eigen::Map<RowMatrix>(p.data() + latents_.mean_offset(), rows, latent_dim()) = spectral_->optimum.latents;
  return p;
}

DecoderSummary ProbdrModel::decoder_summary(const Vector& params) const {
  DecoderSummary summary;
  summary.noise_variance = std::exp(params[noise_offset_]);
  return summary;
}

std::string ProbdrModel::out_of_sample_extension() const {
  return probdr_method(config_.probdr.method).extension;
}

RowMatrix ProbdrModel::extend_out_of_sample(const Vector& params, const DataRef& training,
                                            const ConstMatrixRef& training_latents, const DataRef& new_rows,
                                            const Communicator& comm) const {
  const ProbdrMethod& method = probdr_method(config_.probdr.method);
  require(static_cast<bool>(method.extend),
          "probdr method " + method.name + " has no out-of-sample extension: its new rows cannot be encoded",
          {"", "probdr.method", method.name});
  return method.extend({training, training_latents, std::exp(params[noise_offset_]), new_rows},
                       config_.probdr, comm);
}

void ProbdrModel::write_parameters(Hdf5ResultWriter& out, const Vector& params) const {
  out.write_scalar("/params/noise_variance", std::exp(params[noise_offset_]));
  const ProbdrSettings& s = config_.probdr;
  const bool covariance = moment_ ? moment_->form == MomentForm::covariance
                                  : probdr_method(s.method).form == MomentForm::covariance;
  out.write_attribute(
      "/params/noise_variance", "meaning",
      covariance ? "sigma^2 of S = X X^T + sigma^2 I" : "beta of Gamma = (X X^T + beta I)^-1");
  out.write_string("/probdr/method", s.method);
  out.write_attribute("/probdr/method", "fit", s.fit);
  out.write_attribute("/probdr/method", "moment", covariance ? "covariance" : "precision");
  if (moment_) {
    out.write_attribute("/probdr/method", "description", moment_->description);
    out.write_attribute("/probdr/method", "degrees_of_freedom", moment_->degrees_of_freedom);
  }
  if (!covariance)
    out.write_attribute("/probdr/method", "precision_regularisation", s.precision_regularisation);
  if (!spectral_) return;
  out.write_attribute("/probdr/method", "eigensolver", spectral_->eigensolver);
  out.write_vector("/probdr/eigenvalues", spectral_->optimum.eigenvalues);
  out.write_attribute("/probdr/eigenvalues", "of",
                      covariance ? "S_hat (largest first)" : "Gamma_hat + gamma I (smallest first)");
  const RowMatrix classical = spectral_->classical;
  out.write_distributed_rows("/probdr/classical", classical, local_begin(), num_data());
}

void ProbdrModel::encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
                         RowMatrix* variance) const {
  require_own_free_latent_rows(*this, first_row, data.rows());
  const Index rows = static_cast<Index>(local_rows());
  const Eigen::Map<const RowMatrix> x(params.data() + latents_.mean_offset(), rows, latent_dim());
  mean = x.middleRows(static_cast<Index>(first_row - local_begin()), data.rows());
  if (variance) variance->resize(0, 0);
}

void ProbdrModel::encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
                         RowMatrix* variance) const {
  const RowMatrix rows = data.cast<double>();
  encode(params, rows, first_row, mean, variance);
}

std::unique_ptr<TrainingStep> ProbdrModel::make_step(const Communicator&, const RowPartition&,
                                                     LocalRows) const {
  throw InputError("model.kind = \"probdr\" is fitted in closed form or full batch, not in minibatch steps",
                   {"", "model.kind", "probdr"});
}

std::unique_ptr<FullBatchObjective> ProbdrModel::make_full_batch_objective(const Communicator& comm,
                                                                           const RowPartition&,
                                                                           LocalRows) const {
  return std::make_unique<ProbdrObjective>(*this, comm);
}

}  // namespace gplvm
