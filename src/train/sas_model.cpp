#include "gplvm/train/sas_model.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/objectives/bayesian_sas.hpp"

namespace gplvm {
namespace {

MlpLayout encoder_layout(const SasModelConfig& c, Activation output) {
  MlpLayout layout;
  layout.input_dim = c.data_dim;
  layout.widths = c.encoder_hidden;
  layout.widths.push_back(c.latent_dim);
  layout.activations.assign(c.encoder_hidden.size(), c.encoder_activation);
  layout.activations.push_back(output);
  return layout;
}

void validate_config(const SasModelConfig& c, std::uint64_t num_data, std::uint64_t local_begin,
                     std::uint64_t local_rows) {
  require(c.latent_dim >= 1, "latent dimension must be at least 1", {"", "model.latent_dim", std::to_string(c.latent_dim)});
  require(c.data_dim >= 1, "data dimension must be at least 1", {"", "data_dim", std::to_string(c.data_dim)});
  require(num_data >= 1, "the data set is empty", {"", "N", "0"});
  require(local_begin + local_rows <= num_data, "local row range exceeds the data set",
          {"", "rows", std::to_string(local_begin) + "+" + std::to_string(local_rows)});
  require(c.free_latent_variance > 0, "initial latent variance must be positive",
          {"", "model.free_latent_variance", std::to_string(c.free_latent_variance)});
}


}  // namespace

LatentKind parse_latent_kind(const std::string& name) {
  if (name == "amortised") return LatentKind::amortised;
  if (name == "free") return LatentKind::free;
  throw InputError("unknown latent kind (expected 'amortised' or 'free')", {"", "model.latents", name});
}

std::string to_string(LatentKind kind) { return kind == LatentKind::amortised ? "amortised" : "free"; }

SasModel::SasModel(SasModelConfig config, std::uint64_t num_data, std::uint64_t local_begin,
                   std::uint64_t local_rows)
    : config_(std::move(config)), num_data_(num_data), local_begin_(local_begin), local_rows_(local_rows) {
  validate_config(config_, num_data, local_begin, local_rows);
  const Index q = config_.latent_dim;
  kernel_offset_ = 0;
  noise_offset_ = 1 + q;
  Index offset = noise_offset_ + 1;
  if (config_.latents == LatentKind::amortised) {
    mean_encoder_.emplace(encoder_layout(config_, Activation::identity));
    mean_encoder_offset_ = offset;
    offset += mean_encoder_->num_parameters();
    if (config_.bayesian) {
      variance_encoder_.emplace(encoder_layout(config_, Activation::softplus));
      variance_encoder_offset_ = offset;
      offset += variance_encoder_->num_parameters();
    }
  }
  num_shared_ = offset;
  if (config_.latents == LatentKind::free) {
    free_mean_offset_ = offset;
    offset += static_cast<Index>(local_rows_) * q;
    if (config_.bayesian) {
      free_log_variance_offset_ = offset;
      offset += static_cast<Index>(local_rows_) * q;
    }
  }
  num_local_ = offset - num_shared_;
}

Vector SasModel::initial_parameters() const {
  Vector p = Vector::Zero(num_parameters());
  const Index q = config_.latent_dim;
  p.segment(kernel_offset_, 1 + q) =
      EqArdKernel(config_.kernel_variance, config_.lengthscale, q).hyperparameters();
  p[noise_offset_] = std::log(config_.noise_variance);
  const CounterRng rng(config_.seed);
  if (mean_encoder_) mean_encoder_->initialize(p.data() + mean_encoder_offset_, rng, 0);
  if (variance_encoder_) variance_encoder_->initialize(p.data() + variance_encoder_offset_, rng, 1);
  if (config_.latents == LatentKind::free) {
    // Keyed by global row so the initial latents do not depend on how rows are distributed.
    for (std::uint64_t r = 0; r < local_rows_; ++r)
      for (Index j = 0; j < q; ++j)
        p[free_mean_offset_ + static_cast<Index>(r) * q + j] =
            config_.free_latent_scale * rng.normal(RngPurpose::latent_init, 0, 0, (local_begin_ + r) * q + j);
    if (config_.bayesian)
      p.segment(free_log_variance_offset_, static_cast<Index>(local_rows_) * q).setConstant(std::log(config_.free_latent_variance));
  }
  return p;
}

EqArdKernel SasModel::kernel(const Vector& params) const {
  EqArdKernel k(1.0, 1.0, config_.latent_dim);
  k.set_hyperparameters(params.segment(kernel_offset_, 1 + config_.latent_dim));
  return k;
}

double SasModel::noise_variance(const Vector& params) const { return std::exp(params[noise_offset_]); }

Index SasModel::local_row(std::uint64_t global_row) const {
  if (global_row < local_begin_ || global_row >= local_begin_ + local_rows_)
    throw InputError("row is not owned by this process", {"", "row", std::to_string(global_row)});
  return static_cast<Index>(global_row - local_begin_);
}

void SasModel::validate(const Batch& batch) const {
  const Index b = static_cast<Index>(batch.rows.size());
  require(batch.data.rows() == b, "batch data and row ids differ in length",
          {"", "batch", std::to_string(batch.data.rows()) + " vs " + std::to_string(b)});
  require(batch.data.cols() == config_.data_dim, "batch data has the wrong number of columns",
          {"", "data_dim", std::to_string(batch.data.cols())});
  require(batch.num_active >= 1 && batch.num_active < b, "active set size must satisfy 1 <= A < B",
          {"", "sas.active_size", std::to_string(batch.num_active) + " (batch " + std::to_string(b) + ")"});
  if (batch.data.allFinite()) return;
  for (Index i = 0; i < b; ++i)
    if (!batch.data.row(i).allFinite())
      throw InputError("data row contains NaN or Inf", {"", "row", std::to_string(batch.rows[i])});
}

SasModel::LatentBatch SasModel::latents_forward(const Vector& params, const Batch& batch, StepKey key) const {
  LatentBatch l;
  const Index b = batch.data.rows(), q = config_.latent_dim;
  if (mean_encoder_) {
    mean_encoder_->forward(params.data() + mean_encoder_offset_, batch.data, mean_workspace_, l.mean);
    if (variance_encoder_)
      variance_encoder_->forward(params.data() + variance_encoder_offset_, batch.data, variance_workspace_,
                                 l.variance);
  } else {
    l.mean.resize(b, q);
    if (config_.bayesian) l.variance.resize(b, q);
    for (Index i = 0; i < b; ++i) {
      const Index r = local_row(batch.rows[i]) * q;
      l.mean.row(i) = params.segment(free_mean_offset_ + r, q).transpose();
      if (config_.bayesian)
        l.variance.row(i) = params.segment(free_log_variance_offset_ + r, q).array().exp().matrix().transpose();
    }
  }
  if (config_.bayesian) {
    // eps keyed by (epoch, step, global row, dimension): the same draw on any rank count.
    const CounterRng rng(config_.seed);
    l.eps.resize(b, q);
    for (Index i = 0; i < b; ++i)
      for (Index j = 0; j < q; ++j)
        l.eps(i, j) = rng.normal(RngPurpose::reparameterisation, key.epoch, key.step, batch.rows[i] * q + j);
  }
  return l;
}

void SasModel::latents_backward(const Vector& params, const Batch& batch, const LatentBatch& l,
                                const Matrix& d_mean, const Matrix& d_variance, Vector& gradient) const {
  const Index q = config_.latent_dim;
  if (mean_encoder_) {
    mean_encoder_->backward(params.data() + mean_encoder_offset_, batch.data, mean_workspace_, d_mean,
                            gradient.data() + mean_encoder_offset_);
    if (variance_encoder_)
      variance_encoder_->backward(params.data() + variance_encoder_offset_, batch.data, variance_workspace_,
                                  d_variance, gradient.data() + variance_encoder_offset_);
    return;
  }
  for (Index i = 0; i < d_mean.rows(); ++i) {
    const Index r = local_row(batch.rows[i]) * q;
    gradient.segment(free_mean_offset_ + r, q) += d_mean.row(i).transpose();
    if (config_.bayesian)  // v = exp(log v): dL/dlog v = dL/dv * v
      gradient.segment(free_log_variance_offset_ + r, q) +=
          (d_variance.row(i).array() * l.variance.row(i).array()).matrix().transpose();
  }
}

BatchTerms SasModel::evaluate(const Vector& params, const Batch& batch, StepKey key, Vector& gradient) const {
  validate(batch);
  const Index b = batch.data.rows(), a = batch.num_active, r = b - a;
  const EqArdKernel k = kernel(params);
  const double noise = noise_variance(params);
  const double weight = remainder_weight(config_.scaling, static_cast<Index>(num_data_), b, a);
  const LatentBatch l = latents_forward(params, batch, key);
  const DataRef Ya = batch.data.topRows(a), Yr = batch.data.bottomRows(r);

  gradient.setZero(num_parameters());
  BatchTerms terms;
  Matrix d_mean(b, config_.latent_dim), d_variance;
  Vector d_kernel;
  double d_log_noise = 0;
  if (config_.bayesian) {
    const BayesianSasGradient g = bayesian_sas_objective(
        k, noise, {l.mean.topRows(a), l.variance.topRows(a), l.eps.topRows(a)}, Ya,
        {l.mean.bottomRows(r), l.variance.bottomRows(r), l.eps.bottomRows(r)}, Yr, weight,
        kl_weight(config_.scaling, static_cast<Index>(num_data_), b));
    terms = {g.value, g.sas_value, g.kl};
    d_mean << g.d_mean_active, g.d_mean_remainder;
    d_variance.resize(b, config_.latent_dim);
    d_variance << g.d_variance_active, g.d_variance_remainder;
    d_kernel = g.d_kernel;
    d_log_noise = g.d_log_noise;
  } else {
    const SasGradient g = sas_objective(k, noise, l.mean.topRows(a), Ya, l.mean.bottomRows(r), Yr, weight);
    terms = {g.value, g.value, 0.0};
    d_mean << g.d_latents_active, g.d_latents_remainder;
    d_kernel = g.d_kernel;
    d_log_noise = g.d_log_noise;
  }
  gradient.segment(kernel_offset_, d_kernel.size()) = d_kernel;
  gradient[noise_offset_] = d_log_noise;
  latents_backward(params, batch, l, d_mean, d_variance, gradient);
  return terms;
}

Matrix SasModel::latent_mean(const Vector& params, const std::vector<std::uint64_t>& rows,
                             const DataRef& data) const {
  return latents_forward(params, Batch{rows, data, 0}, {}).mean;
}

Matrix SasModel::latent_variance(const Vector& params, const std::vector<std::uint64_t>& rows,
                                 const DataRef& data) const {
  require(config_.bayesian, "latent variances exist only for Bayesian models", {"", "model.bayesian", "false"});
  return latents_forward(params, Batch{rows, data, 0}, {}).variance;
}

}  // namespace gplvm
