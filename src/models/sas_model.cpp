#include "gplvm/models/sas_model.hpp"

#include "gplvm/model/encoder_layout.hpp"
#include "gplvm/model/kernel_registry.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "gplvm/core/denormals.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/model/gaussian_kl.hpp"
#include "gplvm/models/fixed_hyperparameters.hpp"
#include "gplvm/models/gp_latent_model_settings.hpp"
#include "gplvm/models/latent_encoders.hpp"
#include "gplvm/objectives/bayesian_sas.hpp"

namespace gplvm {
namespace {

// Encoder parameters per unit of a thread's share in the fp32 gradient's cast.
constexpr Index kElementsPerShareUnit = 4096;

EncoderShape encoder_shape(const SasModelConfig& c) {
  return {c.data_dim, c.latent_dim, c.encoder_hidden, c.encoder_activation};
}

void validate_config(const SasModelConfig& c, std::uint64_t num_data, std::uint64_t local_begin,
                     std::uint64_t local_rows) {
  require(c.latent_dim >= 1, "latent dimension must be at least 1",
          {"", "model.latent_dim", std::to_string(c.latent_dim)});
  require(c.data_dim >= 1, "data dimension must be at least 1", {"", "data_dim", std::to_string(c.data_dim)});
  require(num_data >= 1, "the data set is empty", {"", "N", "0"});
  require(local_begin + local_rows <= num_data, "local row range exceeds the data set",
          {"", "rows", std::to_string(local_begin) + "+" + std::to_string(local_rows)});
  require(c.free_latent_variance > 0, "initial latent variance must be positive",
          {"", "model.free_latent_variance", std::to_string(c.free_latent_variance)});
}

}  // namespace

namespace {

ModelFacts sas_facts(const SasModelConfig& c, std::uint64_t num_data, std::uint64_t local_begin,
                     std::uint64_t local_rows) {
  validate_config(c, num_data, local_begin, local_rows);
  return gp_model_facts(c, c.precision, num_data, local_begin, local_rows);
}

ParameterBlock encoder_block_of(std::string name, const Mlp& encoder) {
  return {.name = std::move(name),
          .rows = encoder.num_parameters(),
          .cols = 1,
          .transform = ParameterTransform::packed,
          .role = BlockRole::summed};
}

}  // namespace

SasModel::SasModel(SasModelConfig config, std::uint64_t num_data, std::uint64_t local_begin,
                   std::uint64_t local_rows)
    : Model(sas_facts(config, num_data, local_begin, local_rows)),
      config_(std::move(config)),
      layout_(static_cast<Index>(local_rows)) {
  latent_space_ = make_latent_space(config_.latent_space, config_.latent_dim);
  decoder_.emplace(config_.decoder, latent_space_->ambient_dim(), config_.latent_space, layout_);
  if (config_.latents == LatentKind::amortised) {
    encoders_.emplace(encoder_shape(config_), config_.bayesian);
    mean_encoder_offset_ = layout_.add(encoder_block_of("encoder/mean", encoders_->mean()));
    if (encoders_->variance()) layout_.add(encoder_block_of("encoder/variance", *encoders_->variance()));
  } else {
    // Free latents are point parameters stored with ambient_dim() coordinates (on the hyperboloid:
    // Q + 1); their tangent variances (Bayesian) have Q.
    free_latents_.emplace(*latent_space_, config_.bayesian, layout_);
    free_mean_offset_ = free_latents_->mean_offset();
    free_log_variance_offset_ = free_latents_->log_variance_offset();
  }
}

Vector SasModel::initial_parameters() const {
  Vector p = Vector::Zero(num_parameters());
  decoder_->initialise(p);
  const CounterRng rng(config_.seed);
  if (encoders_) encoders_->initialize(p.data() + mean_encoder_offset_, rng);
  if (initial_mean_encoder_)
    p.segment(mean_encoder_offset_, initial_mean_encoder_->size()) = *initial_mean_encoder_;
  if (free_latents_)
    free_latents_->initialise(p, initial_latents_,
                              {config_.init, config_.free_latent_scale, config_.free_latent_variance}, rng,
                              local_begin());
  return p;
}

void SasModel::initialise_from_data(const Communicator& comm, const RowPartition& partition,
                                    LocalRows local_rows) {
  initial_latents_.reset();
  initial_mean_encoder_.reset();
  const bool free = config_.latents == LatentKind::free;
  if (free ? config_.init != LatentInit::pca : config_.encoder_pretraining.steps == 0) return;
  const Index components = free ? free_latents_->start_components(config_.init) : config_.latent_dim;
  Matrix pca = pca_latents_of(local_rows, partition, comm, components, config_.reproducible_sums);
  if (free) {
    initial_latents_ = std::move(pca);
    return;
  }
  Vector weights = initial_parameters().segment(mean_encoder_offset_, encoders_->mean().num_parameters());
  EncoderPretraining options = config_.encoder_pretraining;
  options.reproducible_sums = config_.reproducible_sums;
  const PretrainingLoss loss =
      pretrain_encoder(encoders_->mean(), weights.data(), comm, partition, local_rows, pca, options);
  if (comm.is_root())
    log_info("encoder pre-trained to the PCA latents for " +
             std::to_string(config_.encoder_pretraining.steps) + " steps: regression loss " +
             std::to_string(loss.before) + " -> " + std::to_string(loss.after));
  initial_mean_encoder_ = std::move(weights);
}

Index SasModel::local_row(std::uint64_t global_row) const {
  if (global_row < local_begin() || global_row >= local_begin() + local_rows())
    throw InputError("row is not owned by this process", {"", "row", std::to_string(global_row)});
  return static_cast<Index>(global_row - local_begin());
}

double SasModel::remainder_weight(Index batch_size, Index num_active) const {
  return gplvm::remainder_weight(config_.scaling, static_cast<Index>(num_data()), batch_size, num_active);
}

double SasModel::latents_kl(const LatentBatch& l, Index first, Index count) const {
  if (!config_.bayesian) return 0.0;
  return latent_space_->kl_to_prior(l.mean.middleRows(first, count), l.variance.middleRows(first, count),
                                    l.sample.middleRows(first, count));
}

double SasModel::kl_weight(Index batch_size) const {
  return gplvm::kl_weight(config_.scaling, static_cast<Index>(num_data()), batch_size);
}

void SasModel::validate_rows(const std::vector<std::uint64_t>& rows, const DataRef& data) const {
  const Index b = static_cast<Index>(rows.size());
  require(data.rows() == b, "batch data and row ids differ in length",
          {"", "batch", std::to_string(data.rows()) + " vs " + std::to_string(b)});
  require(data.cols() == config_.data_dim, "batch data has the wrong number of columns",
          {"", "data_dim", std::to_string(data.cols())});
  const Index bad = first_non_finite_row<double>(data);
  if (bad >= 0) throw InputError("data row contains NaN or Inf", {"", "row", std::to_string(rows[bad])});
}

template <typename Scalar>
const Scalar* SasModel::encoder_weights(const Vector& params, Float32Shadow* shadow) const {
  if constexpr (std::is_same_v<Scalar, double>) {
    return params.data() + mean_encoder_offset_;
  } else {
    if (!shadow) {  // this call's own copy, made afresh
      if (!own_shadow_) own_shadow_.emplace(encoder_block());
      shadow = &*own_shadow_;
      shadow->weights_current = false;
    }
    if (!shadow->weights_current) {
      shadow->convert_weights(params, encoder_block());
      shadow->weights_current = true;
    }
    return shadow->weights.data();
  }
}

template <typename Scalar>
SasModel::LatentBatch SasModel::latents_forward_in(const Vector& params,
                                                   const std::vector<std::uint64_t>& rows,
                                                   const DataRefT<Scalar>& data, StepKey key,
                                                   Float32Shadow* shadow, RowBlocks block_rows) const {
  if (shadow) shadow->require_block(encoder_block());
  LatentBatch l;
  const Index b = static_cast<Index>(rows.size()), q = config_.latent_dim;
  if (encoders_) {
    const Scalar* weights = encoder_weights<Scalar>(params, shadow);
    MatrixT<Scalar> mean, variance;
    const Index all_rows = data.rows();
    const std::span<const Index> blocks = block_rows ? *block_rows : std::span<const Index>(&all_rows, 1);
    encoders_->forward_in_blocks<Scalar>(weights, data, blocks, mean, config_.bayesian ? &variance : nullptr);
    l.tangent = mean.template cast<double>();
    latent_space_->from_origin_tangent(l.tangent, l.mean);
    if (config_.bayesian) l.variance = variance.template cast<double>();
  } else {
    const Index a = ambient_dim();
    l.mean.resize(b, a);
    if (config_.bayesian) l.variance.resize(b, q);
    for (Index i = 0; i < b; ++i) {
      const Index r = local_row(rows[i]);
      l.mean.row(i) = params.segment(free_mean_offset_ + r * a, a).transpose();
      if (config_.bayesian)
        l.variance.row(i) =
            params.segment(free_log_variance_offset_ + r * q, q).array().exp().matrix().transpose();
    }
  }
  if (!config_.bayesian) {
    l.sample = l.mean;
    return l;
  }
  // eps keyed by (epoch, step, global row, dimension): the same draw on any rank count.
  const CounterRng rng(config_.seed);
  l.eps.resize(b, q);
  for (Index i = 0; i < b; ++i)
    for (Index j = 0; j < q; ++j)
      l.eps(i, j) = rng.normal(RngPurpose::reparameterisation, key.epoch, key.step, rows[i] * q + j);
  latent_space_->sample_posterior(l.mean, l.variance, l.eps, l.sample);
  return l;
}

SasModel::LatentBatch SasModel::latents_forward(const Vector& params, const std::vector<std::uint64_t>& rows,
                                                const DataRef& data, StepKey key,
                                                RowBlocks block_rows) const {
  return latents_forward_in<double>(params, rows, data, key, nullptr, block_rows);
}

SasModel::LatentBatch SasModel::latents_forward(const Vector& params, const std::vector<std::uint64_t>& rows,
                                                const DataRefF& data, StepKey key, Float32Shadow* shadow,
                                                RowBlocks block_rows) const {
  return latents_forward_in<float>(params, rows, data, key, shadow, block_rows);
}

template <typename Scalar>
double SasModel::latents_backward_in(const Vector& params, const std::vector<std::uint64_t>& rows,
                                     const DataRefT<Scalar>& data, const LatentBatch& l,
                                     const Matrix& d_sample, double kl_weight, Vector& gradient,
                                     const EncoderGradientSum& sum, Float32Shadow* shadow) const {
  if (shadow) shadow->require_block(encoder_block());
  Matrix d_mean = d_sample, d_variance;
  double kl = 0.0;
  if (config_.bayesian) {
    d_mean.setZero();
    d_variance = Matrix::Zero(d_sample.rows(), config_.latent_dim);  // per intrinsic dimension
    Matrix d_kl_samples;
    kl = latent_space_->kl_to_prior(l.mean, l.variance, l.sample);
    latent_space_->kl_to_prior_backward(l.mean, l.variance, l.sample, -kl_weight, d_mean, d_variance,
                                        &d_kl_samples);
    if (d_kl_samples.size() > 0) {  // a Monte Carlo KL also depends on the sample
      const Matrix d_total = d_sample + d_kl_samples;
      latent_space_->sample_posterior_backward(l.mean, l.variance, l.eps, d_total, d_mean, d_variance);
    } else {
      latent_space_->sample_posterior_backward(l.mean, l.variance, l.eps, d_sample, d_mean, d_variance);
    }
  }
  if (encoders_) {
    // The mean encoder's output is the tangent vector the space maps to the mean.
    Matrix d_tangent = Matrix::Zero(l.tangent.rows(), l.tangent.cols());
    latent_space_->from_origin_tangent_backward(l.tangent, d_mean, d_tangent);
    d_mean = std::move(d_tangent);
    const Index encoder_size = layout_.num_shared() - mean_encoder_offset_;
    const Matrix* d_variance_of = config_.bayesian ? &d_variance : nullptr;
    if constexpr (std::is_same_v<Scalar, double>) {
      const double* weights = params.data() + mean_encoder_offset_;
      double* grad = gradient.data() + mean_encoder_offset_;
      if (sum.block_rows) {
        encoder_backward_in_blocks<double>(weights, data, d_mean, d_variance, *sum.block_rows,
                                           block_gradients_, grad, sum.blocks_f64);
      } else {
        encoders_->backward<double>(weights, data, d_mean, d_variance_of, grad);
        if (sum.f64) sum.f64(grad, encoder_size);
      }
      freeze_translation(grad);
    } else {  // weights as converted by the forward call; gradient summed in fp32
      require(shadow || own_shadow_,
              "SasModel: an fp32 latents_backward needs its latents_forward call first",
              {"", "shadow", "none"});
      Float32Shadow& s = shadow ? *shadow : *own_shadow_;
      const float* weights = s.weights.data();
      float* grad = s.gradient.data();  // every value written by the backward calls
      if (sum.block_rows) {
        encoder_backward_in_blocks<float>(weights, data, d_mean.cast<float>(), d_variance.cast<float>(),
                                          *sum.block_rows, block_gradients_f32_, grad, sum.blocks_f32);
      } else {
        const MatrixT<float> d_variance_f32 = d_variance.cast<float>();
        encoders_->backward<float>(weights, data, d_mean.cast<float>(),
                                   d_variance_of ? &d_variance_f32 : nullptr, grad);
        if (sum.f32) sum.f32(grad, encoder_size);
      }
      freeze_translation(grad);
      if (shadow) {  // left for the optimiser (ShardedAdam), which reads it as it updates
        shadow->gradient_ready = true;
      } else {  // into the fp64 master gradient
        for_each_thread_share(encoder_size, kElementsPerShareUnit, [&](Index i0, Index i1) {
          gradient.segment(mean_encoder_offset_ + i0, i1 - i0) =
              s.gradient.segment(i0, i1 - i0).cast<double>();
        });
      }
    }
    return kl;
  }
  if (shadow) shadow->gradient_ready = true;  // free latents: the encoder block is empty
  const Index q = config_.latent_dim, a = ambient_dim();
  for (Index i = 0; i < d_mean.rows(); ++i) {
    const Index r = local_row(rows[i]);
    gradient.segment(free_mean_offset_ + r * a, a) += d_mean.row(i).transpose();
    if (config_.bayesian)  // v = exp(log v): dL/dlog v = dL/dv * v
      gradient.segment(free_log_variance_offset_ + r * q, q) +=
          (d_variance.row(i).array() * l.variance.row(i).array()).matrix().transpose();
  }
  return kl;
}

template <typename Scalar>
void SasModel::encoder_backward_in_blocks(
    const Scalar* weights, const DataRefT<Scalar>& data, const MatrixT<Scalar>& d_mean,
    const MatrixT<Scalar>& d_variance, std::span<const Index> block_rows, std::vector<Scalar>& blocks,
    Scalar* grad, const std::function<void(const BlockPartials<Scalar>&, Scalar*)>& sum) const {
  const Index encoder_size = layout_.num_shared() - mean_encoder_offset_;
  const auto num_blocks = static_cast<Index>(block_rows.size());
  if (blocks.size() < static_cast<std::size_t>(num_blocks * encoder_size))
    blocks.resize(static_cast<std::size_t>(num_blocks * encoder_size));  // grown only
  if (num_blocks > 0)
    encoders_->backward_in_blocks<Scalar>(weights, data, d_mean, config_.bayesian ? &d_variance : nullptr,
                                          block_rows, blocks.data(), encoder_size);
  sum({blocks.data(), num_blocks, encoder_size, encoder_size}, grad);
}

double SasModel::latents_backward(const Vector& params, const std::vector<std::uint64_t>& rows,
                                  const DataRef& data, const LatentBatch& l, const Matrix& d_sample,
                                  double kl_weight, Vector& gradient, const EncoderGradientSum& sum) const {
  return latents_backward_in<double>(params, rows, data, l, d_sample, kl_weight, gradient, sum, nullptr);
}

double SasModel::latents_backward(const Vector& params, const std::vector<std::uint64_t>& rows,
                                  const DataRefF& data, const LatentBatch& l, const Matrix& d_sample,
                                  double kl_weight, Vector& gradient, const EncoderGradientSum& sum,
                                  Float32Shadow* shadow) const {
  return latents_backward_in<float>(params, rows, data, l, d_sample, kl_weight, gradient, sum, shadow);
}

void SasModel::zero_all_but_encoder(Vector& gradient) const {
  // The encoder block (533k values at D = 784) is written by latents_backward; zeroing it as well
  // was a pass over 4 MB per step for nothing.
  if (!encoders_) {  // free latents: no encoder block
    gradient.setZero(num_parameters());
    return;
  }
  gradient.resize(num_parameters());
  gradient.head(mean_encoder_offset_).setZero();
  gradient.tail(layout_.num_local()).setZero();
}

template <typename Scalar>
void SasModel::freeze_translation(Scalar* encoder_gradient) const {
  // A stationary kernel makes the SAS objective invariant to translating every latent, so without
  // a prior (non-Bayesian) the mean encoder's output bias is a flat direction: its gradient is
  // zero in exact arithmetic and pure rounding noise in practice, on which Adam would random-walk
  // (steps of lr |g| / eps) and make runs differ across rank counts. It stays at its initial value.
  // The symmetry is a translation of R^Q: a curved space has none (its isometries are not
  // translations of the encoder's tangent output).
  if (config_.bayesian || !encoders_ || !kernel_prototype().is_stationary() ||
      latent_space_->ambient_dim() != latent_space_->intrinsic_dim())
    return;
  const Mlp& mean = encoders_->mean();
  std::fill_n(encoder_gradient + mean.bias_offset(mean.num_layers() - 1), config_.latent_dim, Scalar(0));
}

BatchTerms SasModel::evaluate(const Vector& params, const Batch& batch, StepKey key, Vector& gradient) const {
  validate_rows(batch.rows, batch.data);
  if (config_.precision == Precision::float64)
    return evaluate_in<double>(params, batch, batch.data, key, gradient);
  const ScopedFlushDenormals flush(config_.flush_denormals);
  const RowMatrixF data = batch.data.cast<float>();
  return evaluate_in<float>(params, batch, data, key, gradient);
}

// The active block is always factorised in fp64 from the double rows; `data` (batch.data itself
// or its fp32 copy) feeds the encoder and the remainder's data products.
template <typename Scalar>
BatchTerms SasModel::evaluate_in(const Vector& params, const Batch& batch, const DataRefT<Scalar>& data,
                                 StepKey key, Vector& gradient) const {
  const Index b = batch.data.rows(), a = batch.num_active, r = b - a;
  const double weight = remainder_weight(b, a);  // also rejects A outside [1, B) and B > N
  const std::unique_ptr<Kernel> kernel_ptr = kernel(params);
  const Kernel& k = *kernel_ptr;
  const double noise = noise_variance(params);
  const LatentBatch l = latents_forward_in<Scalar>(params, batch.rows, data, key, nullptr, std::nullopt);
  // The active rows as doubles of `data`: in fp32 mode, the fp32-rounded values (as in training).
  const RowMatrix active_rows = data.topRows(a).template cast<double>();
  const SasActiveSet active = sas_active_set(k, noise, l.sample.topRows(a), active_rows);
  SasPartials partials = sas_remainder_terms(k, noise, active, l.sample.topRows(a), l.sample.bottomRows(r),
                                             DataRefT<Scalar>(data.bottomRows(r)), weight);
  partials.add_active_data_fit(active.whitened_data);
  const GpGradient g = sas_combine(k, noise, active, l.sample.topRows(a), partials);
  zero_all_but_encoder(gradient);
  gradient.segment(decoder_->kernel_offset(), g.d_kernel.size()) = g.d_kernel;
  gradient[decoder_->noise_offset()] = g.d_log_noise;
  Matrix d_sample(b, ambient_dim());
  d_sample << g.d_latents, partials.d_latents_remainder;
  const double kl_w = kl_weight(b);
  const double kl =
      latents_backward_in<Scalar>(params, batch.rows, data, l, d_sample, kl_w, gradient, {}, nullptr);
  return {g.value - kl_w * kl, g.value, kl};
}

void SasModel::encode(const Vector& params, const DataRef& data, std::uint64_t first_row, RowMatrix& mean,
                      RowMatrix* variance) const {
  encode_in<double>(params, data, first_row, mean, variance);
}

void SasModel::encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
                      RowMatrix* variance) const {
  encode_in<float>(params, data, first_row, mean, variance);
}

template <typename Scalar>
void SasModel::encode_in(const Vector& params, const DataRefT<Scalar>& data, std::uint64_t first_row,
                         RowMatrix& mean, RowMatrix* variance) const {
  constexpr Index kChunk = 4096;
  const Index n = data.rows(), q = config_.latent_dim;
  if (config_.latents == LatentKind::free) require_own_free_latent_rows(*this, first_row, n);
  mean.resize(n, ambient_dim());
  if (variance && config_.bayesian) variance->resize(n, q);
  std::vector<std::uint64_t> rows;
  for (Index begin = 0; begin < n; begin += kChunk) {
    const Index count = std::min(kChunk, n - begin);
    rows.resize(count);
    for (Index i = 0; i < count; ++i) rows[i] = first_row + begin + i;
    const LatentBatch l = latents_forward(params, rows, DataRefT<Scalar>(data.middleRows(begin, count)), {});
    mean.middleRows(begin, count) = l.mean;
    if (variance && config_.bayesian) variance->middleRows(begin, count) = l.variance;
  }
}

Matrix SasModel::latent_mean(const Vector& params, const std::vector<std::uint64_t>& rows,
                             const DataRef& data) const {
  return latents_forward(params, rows, data, {}).mean;
}

Matrix SasModel::latent_variance(const Vector& params, const std::vector<std::uint64_t>& rows,
                                 const DataRef& data) const {
  require(config_.bayesian, "latent variances exist only for Bayesian models",
          {"", "model.bayesian", "false"});
  return latents_forward(params, rows, data, {}).variance;
}

}  // namespace gplvm
