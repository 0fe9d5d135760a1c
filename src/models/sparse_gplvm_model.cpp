#include "gplvm/models/sparse_gplvm_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/models/active_set.hpp"
#include "gplvm/models/fixed_hyperparameters.hpp"
#include "gplvm/models/gp_latent_model_settings.hpp"
#include "gplvm/models/pca_latents.hpp"
#include "gplvm/objectives/collapsed_bound.hpp"
#include "gplvm/objectives/inducing_posterior_transfer.hpp"
#include "gplvm/objectives/sparse_gplvm.hpp"

namespace gplvm {
namespace {

// Stream of RngPurpose::latent_init for the stand-in inducing inputs of an uninitialised model.
constexpr std::uint64_t kStandInInducingStream = 4;

// The active set is redrawn between the Riemannian full-batch trainer's iterations or the
// minibatch trainer's steps; L-BFGS (Euclidean latents) has no such point in its loop.
void validate_active_set(const SparseGplvmConfig& c) {
  const std::string k = std::to_string(c.active_set_refresh);
  require(c.active_set_refresh >= 0, "the active-set refresh interval must be 0 (off) or a positive integer",
          {"", "sparse.active_set_refresh", k});
  if (c.active_set_refresh == 0) return;
  require(latent_space_is(c.latent_space, &LatentSpace::is_curved),
          "the active-set refresh redraws inducing inputs that are points of a curved space: it needs a "
          "curved model.latent_space (" +
              latent_spaces_where(&LatentSpace::is_curved) + "; set sparse.active_set_refresh = 0 on " +
              c.latent_space + ")",
          {"", "sparse.active_set_refresh", k});
}

void validate_config(const SparseGplvmConfig& c, std::uint64_t num_data, std::uint64_t local_begin,
                     std::uint64_t local_rows) {
  require(c.latent_dim >= 1, "latent dimension must be at least 1",
          {"", "model.latent_dim", std::to_string(c.latent_dim)});
  require(c.data_dim >= 1, "data dimension must be at least 1", {"", "data_dim", std::to_string(c.data_dim)});
  require(num_data >= 1, "the data set is empty", {"", "N", "0"});
  require(local_begin + local_rows <= num_data, "local row range exceeds the data set",
          {"", "rows", std::to_string(local_begin) + "+" + std::to_string(local_rows)});
  require(c.num_inducing >= 1, "the number of inducing inputs must be at least 1",
          {"", "sparse.inducing", std::to_string(c.num_inducing)});
  require(c.free_latent_variance > 0, "initial latent variance must be positive",
          {"", "model.free_latent_variance", std::to_string(c.free_latent_variance)});
  require(c.psi_samples >= 1, "the number of wrapped-normal samples must be at least 1",
          {"", "model.psi_samples", std::to_string(c.psi_samples)});
  validate_active_set(c);
  if (!latent_space_is(c.latent_space, &LatentSpace::is_curved)) return;
  // Points of a curved space move by Riemannian steps, which the minibatch and the Riemannian
  // full-batch trainers give free latents and Z; an encoder's tangent outputs and k-means centres
  // (Euclidean means of points, off the hyperboloid) have no such path here.
  require(
      c.latents == LatentKind::free,
      "the sparse and Bayesian GPLVMs on model.latent_space = \"" + c.latent_space + "\" need free latents",
      {"", "model.latents", "amortised"});
  require(c.inducing_init == InducingInit::random,
          "k-means centres are Euclidean means, off a curved space: on model.latent_space = \"" +
              c.latent_space +
              "\" the inducing inputs start as a random subset of the initial latents "
              "(sparse.inducing_init = \"random\")",
          {"", "sparse.inducing_init", "kmeans"});
}

const DataRef& float64_rows(const LocalRows& local_rows) {
  require(std::holds_alternative<DataRef>(local_rows), "sparse GPLVMs hold their data rows in float64",
          {"", "model.precision", "float32"});
  return std::get<DataRef>(local_rows);
}

}  // namespace

SparseTraining parse_sparse_training(const std::string& name) {
  if (name == "minibatch") return SparseTraining::minibatch;
  if (name == "full_batch") return SparseTraining::full_batch;
  throw InputError("unknown training mode (minibatch or full_batch)", {"", "sparse.training", name});
}

PsiNoise parse_psi_noise(const std::string& name) {
  if (name == "fixed") return PsiNoise::fixed;
  if (name == "fresh") return PsiNoise::fresh;
  throw InputError("unknown wrapped-normal noise (fixed or fresh)", {"", "model.psi_noise", name});
}

namespace {

ModelFacts sparse_facts(const SparseGplvmConfig& c, std::uint64_t num_data, std::uint64_t local_begin,
                        std::uint64_t local_rows) {
  validate_config(c, num_data, local_begin, local_rows);
  return gp_model_facts(c, Precision::float64, num_data, local_begin, local_rows);
}

}  // namespace

SparseGplvmModel::SparseGplvmModel(SparseGplvmConfig config, std::uint64_t num_data,
                                   std::uint64_t local_begin, std::uint64_t local_rows)
    : Model(sparse_facts(config, num_data, local_begin, local_rows)),
      config_(std::move(config)),
      layout_(static_cast<Index>(local_rows)) {
  const Index m = config_.num_inducing, q = config_.latent_dim, d = config_.data_dim;
  latent_space_ = make_latent_space(config_.latent_space, q);
  const Index a = latent_space_->ambient_dim();
  // Z: points of the latent space (moved on it when curved), or the active set: no parameter but
  // M latents redrawn every sparse.active_set_refresh iterations (models/active_set.hpp).
  const bool active_set = config_.active_set_refresh > 0;
  layout_.add({.name = "inducing",
               .rows = m,
               .cols = a,
               .role = active_set ? BlockRole::copied : BlockRole::trained,
               .space = latent_space_.get(),
               .refresh_every = config_.active_set_refresh});
  decoder_.emplace(config_.decoder, a, config_.latent_space, layout_);
  kernel_offset_ = decoder_->kernel_offset();
  noise_offset_ = decoder_->noise_offset();
  posterior_offset_ = layout_.num_shared();
  if (config_.training == SparseTraining::minibatch)
    layout_.add({.name = "inducing_posterior",
                 .rows = InducingPosterior::packed_size(m, d),
                 .cols = 1,
                 .transform = ParameterTransform::packed});
  encoder_offset_ = layout_.num_shared();
  if (config_.latents == LatentKind::amortised) {
    encoders_.emplace(EncoderShape{d, q, config_.encoder_hidden, config_.encoder_activation},
                      config_.bayesian);
    layout_.add({.name = "encoder",
                 .rows = encoders_->num_parameters(),
                 .cols = 1,
                 .transform = ParameterTransform::packed,
                 .role = BlockRole::summed});
  } else {
    free_latents_.emplace(*latent_space_, config_.bayesian, layout_);
  }
}

Vector SparseGplvmModel::initial_parameters() const {
  Vector p = Vector::Zero(num_parameters());
  const Index m = config_.num_inducing, q = config_.latent_dim, d = config_.data_dim, a = ambient_dim();
  const CounterRng rng(config_.seed);
  if (initial_inducing_) {
    Eigen::Map<Matrix>(p.data(), m, a) = *initial_inducing_;
  } else {  // tangent draws at the origin, mapped to the space (R^Q: the draws themselves)
    Matrix tangent(m, q);
    for (Index i = 0; i < m * q; ++i)
      tangent.data()[i] = rng.normal(RngPurpose::latent_init, kStandInInducingStream, 0, i);
    Matrix points;
    latent_space_->from_origin_tangent(tangent, points);
    Eigen::Map<Matrix>(p.data(), m, a) = points;
  }
  decoder_->initialise(p);
  if (config_.training == SparseTraining::minibatch) {
    if (initial_posterior_) {
      p.segment(posterior_offset_, initial_posterior_->size()) = *initial_posterior_;
    } else {  // q(u) = p(u)-shaped stand-in: zero means, unit scale
      InducingPosterior{Matrix::Zero(m, d), Matrix::Identity(m, m)}.pack(p.data() + posterior_offset_);
    }
  }
  if (encoders_) encoders_->initialize(p.data() + encoder_offset_, rng);
  if (initial_mean_encoder_)
    p.segment(encoder_offset_, initial_mean_encoder_->size()) = *initial_mean_encoder_;
  if (free_latents_)
    free_latents_->initialise(p, initial_latents_,
                              {config_.init, config_.free_latent_scale, config_.free_latent_variance}, rng,
                              local_begin());
  return p;
}

Matrix SparseGplvmModel::inducing_inputs(const Vector& params) const {
  return Eigen::Map<const Matrix>(params.data(), config_.num_inducing, ambient_dim());
}

InducingPosterior SparseGplvmModel::inducing_posterior(const Vector& params) const {
  require(config_.training == SparseTraining::minibatch, "full-batch sparse GPLVMs have no explicit q(u)",
          {"", "sparse.training", "full_batch"});
  return InducingPosterior::unpack(params.data() + posterior_offset_, config_.num_inducing, config_.data_dim);
}

void SparseGplvmModel::carry_over_active_set(const Matrix& previous, Vector& params) const {
  if (config_.training != SparseTraining::minibatch) return;  // full batch: q(u) is collapsed
  const InducingPosterior carried = transferred_inducing_posterior(
      inducing_posterior(params), *kernel(params), previous, inducing_inputs(params));
  carried.pack(params.data() + posterior_offset_);
}

void SparseGplvmModel::write_parameters(Hdf5ResultWriter& out, const Vector& params) const {
  decoder_->write_parameters(out, params);
  out.write_matrix("/params/inducing", inducing_inputs(params));
  // Minibatch training's explicit q(u), packed in the optimiser's coordinates in /params/shared,
  // also as its mean and covariance for readers of the file (gplvm export). Full-batch training
  // has none: q(u) is collapsed.
  if (config_.training == SparseTraining::minibatch) {
    const InducingPosterior q = inducing_posterior(params);
    out.write_matrix("/params/inducing_posterior/mean", q.mean);
    out.write_matrix("/params/inducing_posterior/covariance", q.scale * q.scale.transpose());
  }
  if (encoders_) encoders_->write(out, params.data() + encoder_offset_);
}

SparseGplvmModel::Latents SparseGplvmModel::latents_forward(const Vector& params,
                                                            const std::vector<Index>& rows,
                                                            const DataRef& data, StepKey key) const {
  const Index q = config_.latent_dim, a = ambient_dim(), b = static_cast<Index>(rows.size());
  Latents l;
  if (encoders_ && b > 0) {
    encoders_->forward(params.data() + encoder_offset_, data, l.mean,
                       config_.bayesian ? &l.variance : nullptr);
    return l;
  }
  l.mean.resize(b, a);
  if (config_.bayesian) l.variance.resize(b, q);
  if (encoders_) return l;  // no rows
  const Index n = static_cast<Index>(local_rows());
  const Eigen::Map<const RowMatrix> mean(params.data() + layout_.num_shared(), n, a);
  for (Index i = 0; i < b; ++i) l.mean.row(i) = mean.row(rows[i]);
  if (config_.bayesian) {
    const Eigen::Map<const RowMatrix> log_variance(params.data() + layout_.num_shared() + n * a, n, q);
    for (Index i = 0; i < b; ++i) l.variance.row(i) = log_variance.row(rows[i]).array().exp();
  }
  if (wrapped()) l.eps = wrapped_noise(rows, key);
  return l;
}

Matrix SparseGplvmModel::wrapped_noise(const std::vector<Index>& rows, StepKey key) const {
  // Keyed by global row, sample and dimension (and, for fresh noise, epoch and step): the same
  // draws whichever rank holds the row.
  const Index q = config_.latent_dim, samples = config_.psi_samples, b = static_cast<Index>(rows.size());
  const bool fresh = config_.psi_noise == PsiNoise::fresh;
  const CounterRng rng(config_.seed);
  Matrix eps(b, samples * q);
  for (Index i = 0; i < b; ++i) {
    const std::uint64_t row = local_begin() + static_cast<std::uint64_t>(rows[static_cast<std::size_t>(i)]);
    for (Index k = 0; k < samples * q; ++k)
      eps(i, k) = rng.normal(RngPurpose::wrapped_psi, fresh ? key.epoch : 0, fresh ? key.step : 0,
                             row * static_cast<std::uint64_t>(samples * q) + static_cast<std::uint64_t>(k));
  }
  return eps;
}

void SparseGplvmModel::latents_backward(const Vector& params, const std::vector<Index>& rows,
                                        const DataRef& data, const Latents& l, const Matrix& d_mean,
                                        const Matrix& d_variance, Vector& gradient) const {
  const Index q = config_.latent_dim, a = ambient_dim(), b = static_cast<Index>(rows.size());
  if (encoders_) {
    double* d_weights = gradient.data() + encoder_offset_;
    if (b == 0)
      std::fill_n(d_weights, encoders_->num_parameters(), 0.0);
    else
      encoders_->backward(params.data() + encoder_offset_, data, d_mean,
                          config_.bayesian ? &d_variance : nullptr, d_weights);
    return;
  }
  const Index n = static_cast<Index>(local_rows());
  Eigen::Map<RowMatrix> g_mean(gradient.data() + layout_.num_shared(), n, a);
  for (Index i = 0; i < b; ++i) g_mean.row(rows[i]) += d_mean.row(i);
  if (!config_.bayesian) return;
  // s = exp(log s): dF/dlog s = s dF/ds.
  Eigen::Map<RowMatrix> g_log_variance(gradient.data() + layout_.num_shared() + n * a, n, q);
  for (Index i = 0; i < b; ++i)
    g_log_variance.row(rows[i]) += (d_variance.row(i).array() * l.variance.row(i).array()).matrix();
}

BatchTerms SparseGplvmModel::evaluate_rows(const Communicator& comm, const Vector& params,
                                           const std::vector<Index>& rows, const DataRef& data, double scale,
                                           Bound bound, Vector& gradient, StepKey key) const {
  require(bound == Bound::uncollapsed || scale == 1.0, "the collapsed bound is evaluated over every row",
          {"", "scale", std::to_string(scale)});
  const std::unique_ptr<Kernel> k = kernel(params);
  const Matrix Z = inducing_inputs(params);
  const Index m = Z.rows(), q = Z.cols(), h = k->num_hyperparameters();
  // Steps 1-2: the rows' statistics, one allreduce. The rows are this rank's alone, so a failure
  // there (non-finite latents, say) is agreed first: every rank throws it, none waits in the sum.
  Latents l;
  RowsCache cache;
  SparseStatistics statistics;
  comm.all_or_none([&] {
    l = latents_forward(params, rows, data, key);
    statistics = rows_statistics(*k, Z, l, data, cache);
  });
  statistics.allreduce(comm);
  const double rows_kl = statistics.kl;
  if (scale != 1.0) statistics.scale(scale);

  // Step 3: the bound, redundantly on every rank.
  Matrix K;
  k->cross(Z, Z, K);
  const BoundAdjoints bound_terms = bound_adjoints(params, statistics, K, scale, bound, gradient);

  // Step 4: the rows' latent gradients (local) and their share of dZ, dhyper, the encoders'.
  SharedGradient shared = SharedGradient::zero(m, q, h);
  Matrix d_mean, d_variance;
  rows_backward(*k, Z, l, data, cache, bound_terms.adjoint, d_mean, d_variance, shared);
  latents_backward(params, rows, data, l, d_mean, d_variance, gradient);

  // Step 5: one allreduce of everything the ranks' rows add to the shared block.
  Eigen::Map<Matrix>(gradient.data(), m, q) = shared.d_inducing;
  gradient.segment(kernel_offset_, h) = shared.d_kernel;
  if (comm.size() > 1) sum_row_shares(comm, gradient);
  add_inducing_kernel_share(*k, Z, K, bound_terms.d_inducing_kernel, gradient);
  freeze_translation(gradient);
  return {bound_terms.value, bound_terms.value + scale * rows_kl, rows_kl};
}

SparseStatistics SparseGplvmModel::rows_statistics(const Kernel& kernel, const Matrix& Z, const Latents& l,
                                                   const DataRef& data, RowsCache& cache) const {
  if (wrapped())
    return wrapped_rows_statistics(*latent_space_, kernel, Z, l.mean, l.variance, l.eps, config_.kl_mode,
                                   data, cache.psi, cache.samples);
  return config_.bayesian ? gaussian_rows_statistics(kernel, Z, l.mean, l.variance, data, cache.psi)
                          : point_rows_statistics(kernel, Z, l.mean, data, cache.psi);
}

void SparseGplvmModel::rows_backward(const Kernel& kernel, const Matrix& Z, const Latents& l,
                                     const DataRef& data, const RowsCache& cache,
                                     const StatisticsAdjoint& adjoint, Matrix& d_mean, Matrix& d_variance,
                                     SharedGradient& shared) const {
  d_mean = Matrix::Zero(l.mean.rows(), Z.cols());
  if (!config_.bayesian) {
    point_rows_backward(kernel, Z, l.mean, data, cache.psi, adjoint, d_mean, shared);
    return;
  }
  d_variance = Matrix::Zero(l.mean.rows(), config_.latent_dim);
  if (wrapped()) {
    wrapped_rows_backward(*latent_space_, kernel, Z, l.mean, l.variance, l.eps, config_.kl_mode, data,
                          cache.samples, adjoint, d_mean, d_variance, shared);
    return;
  }
  gaussian_rows_backward(kernel, Z, l.mean, l.variance, data, cache.psi, adjoint, d_mean, d_variance, shared);
}

SparseGplvmModel::BoundAdjoints SparseGplvmModel::bound_adjoints(const Vector& params,
                                                                 const SparseStatistics& statistics,
                                                                 const Matrix& K, double scale, Bound bound,
                                                                 Vector& gradient) const {
  const double noise = noise_variance(params);
  gradient.setZero(num_parameters());
  BoundAdjoints out;
  if (bound == Bound::collapsed) {
    CollapsedBound c = collapsed_bound(statistics, K, noise);
    out.value = c.value;
    out.adjoint = std::move(c.adjoint);
    out.d_inducing_kernel = std::move(c.d_inducing_kernel);
    gradient[noise_offset_] = c.d_log_noise;
    return out;
  }
  UncollapsedBound u = uncollapsed_bound(statistics, K, noise, inducing_posterior(params));
  out.value = u.value;
  u.pack_posterior_gradient(gradient.data() + posterior_offset_);
  out.adjoint = u.adjoint.scaled(scale);
  out.d_inducing_kernel = std::move(u.d_inducing_kernel);
  gradient[noise_offset_] = u.d_log_noise;
  return out;
}

void SparseGplvmModel::add_inducing_kernel_share(const Kernel& kernel, const Matrix& Z, const Matrix& K,
                                                 const Matrix& G, Vector& gradient) const {
  const Index m = Z.rows(), q = Z.cols(), h = kernel.num_hyperparameters();
  SharedGradient inducing = SharedGradient::zero(m, q, h);
  inducing_kernel_backward(kernel, Z, K, G, inducing);
  Eigen::Map<Matrix>(gradient.data(), m, q) += inducing.d_inducing;
  gradient.segment(kernel_offset_, h) += inducing.d_kernel;
}

IndexRange SparseGplvmModel::frozen_translation_block() const {
  if (config_.bayesian || !encoders_ || !decoder_->prototype().is_stationary()) return {0, 0};
  const Mlp& mean = encoders_->mean();
  const Index bias = encoder_offset_ + mean.bias_offset(mean.num_layers() - 1);
  return {bias, bias + config_.latent_dim};
}

void SparseGplvmModel::freeze_translation(Vector& gradient) const {
  // The bound's gradient along the joint translation is zero, but its split between the bias and Z
  // is not, so Adam would move both along the flat direction; without the bias the optimum is
  // isolated up to Z's own moves, and nothing is lost (Z absorbs any translation).
  const IndexRange frozen = frozen_translation_block();
  gradient.segment(frozen.begin, frozen.end - frozen.begin).setZero();
}

void SparseGplvmModel::sum_row_shares(const Communicator& comm, Vector& gradient) const {
  if (!encoders_) {  // Z and the kernel lead the layout: already one contiguous block
    comm.allreduce_sum(gradient.data(), noise_offset_);
    return;
  }
  const Index encoder_size = layout_.num_shared() - encoder_offset_;
  Vector buffer(noise_offset_ + encoder_size);
  buffer << gradient.head(noise_offset_), gradient.segment(encoder_offset_, encoder_size);
  comm.allreduce_sum(buffer.data(), buffer.size());
  gradient.head(noise_offset_) = buffer.head(noise_offset_);
  gradient.segment(encoder_offset_, encoder_size) = buffer.tail(encoder_size);
}

void SparseGplvmModel::encode(const Vector& params, const DataRef& data, std::uint64_t first_row,
                              RowMatrix& mean, RowMatrix* variance) const {
  encode_rows(params, data, first_row, mean, variance);
}

void SparseGplvmModel::encode(const Vector& params, const DataRefF& data, std::uint64_t first_row,
                              RowMatrix& mean, RowMatrix* variance) const {
  const RowMatrix rows = data.cast<double>();
  encode_rows(params, rows, first_row, mean, variance);
}

void SparseGplvmModel::encode_rows(const Vector& params, const DataRef& data, std::uint64_t first_row,
                                   RowMatrix& mean, RowMatrix* variance) const {
  constexpr Index kChunk = 4096;
  const Index n = data.rows();
  if (!encoders_) require_own_free_latent_rows(*this, first_row, n);
  mean.resize(n, ambient_dim());
  if (variance && config_.bayesian) variance->resize(n, config_.latent_dim);
  for (Index begin = 0; begin < n; begin += kChunk) {
    const Index count = std::min(kChunk, n - begin);
    std::vector<Index> rows(count);
    std::iota(rows.begin(), rows.end(), static_cast<Index>(first_row - local_begin()) + begin);
    const Latents l = latents_forward(params, rows, data.middleRows(begin, count));
    mean.middleRows(begin, count) = l.mean;
    if (variance && config_.bayesian) variance->middleRows(begin, count) = l.variance;
  }
}

Vector SparseGplvmModel::optimal_posterior(const Communicator& comm, const Vector& params,
                                           const DataRef& local) const {
  const std::unique_ptr<Kernel> k = kernel(params);
  const Matrix Z = inducing_inputs(params);
  // In chunks of rows, so that memory stays bounded for any number of local rows (the encoders'
  // activations of a whole rank's rows would be gigabytes at N = 10^6).
  constexpr Index kChunk = 4096;
  SparseStatistics statistics = SparseStatistics::zero(Z.rows(), config_.data_dim);
  for (Index begin = 0; begin < local.rows(); begin += kChunk) {
    const Index count = std::min(kChunk, local.rows() - begin);
    std::vector<Index> rows(count);
    std::iota(rows.begin(), rows.end(), begin);
    const DataRef chunk = local.middleRows(begin, count);
    const Latents l = latents_forward(params, rows, chunk);
    RowsCache cache;
    statistics += rows_statistics(*k, Z, l, chunk, cache);
  }
  statistics.allreduce(comm);
  Matrix K;
  k->cross(Z, Z, K);
  const InducingPosterior q = optimal_inducing_posterior(statistics, K, noise_variance(params));
  Vector packed(InducingPosterior::packed_size(Z.rows(), config_.data_dim));
  q.pack(packed.data());
  return packed;
}

void SparseGplvmModel::initialise_from_data(const Communicator& comm, const RowPartition& partition,
                                            LocalRows local_rows) {
  // M <= N bounds training alone (the inducing inputs start among the N latents): a trained model
  // encodes and predicts any number of new rows.
  require(static_cast<std::uint64_t>(config_.num_inducing) <= num_data(),
          "the number of inducing inputs must be between 1 and the number of data rows (" +
              std::to_string(num_data()) + ")",
          {"", "sparse.inducing", std::to_string(config_.num_inducing)});
  const DataRef& local = float64_rows(local_rows);
  initial_latents_.reset();
  initial_inducing_.reset();
  initial_posterior_.reset();
  initial_mean_encoder_.reset();
  Matrix latents;
  if (config_.latents == LatentKind::free) {
    // The points initial_parameters() makes: from PCA scores (as the space maps them), or the
    // keyed draws.
    if (config_.init == LatentInit::pca)
      initial_latents_ = pca_latents(local, partition, comm, free_latents_->start_components(config_.init),
                                     config_.reproducible_sums);
    latents = Eigen::Map<const RowMatrix>(initial_parameters().data() + layout_.num_shared(),
                                          static_cast<Index>(this->local_rows()), ambient_dim());
  } else {
    if (config_.encoder_pretraining.steps > 0) pretrain_mean_encoder(comm, partition, local);
    if (config_.reproducible_sums) {
      latents = encode_in_global_blocks(comm, partition, initial_parameters(), local);
    } else {
      RowMatrix mean;
      encode_rows(initial_parameters(), local, local_begin(), mean, nullptr);  // in bounded chunks
      latents = mean;
    }
  }
  initial_inducing_ = initial_inducing_inputs(comm, partition, latents, config_.num_inducing,
                                              config_.inducing_init, config_.seed);
  if (config_.active_set_refresh > 0) {
    // The trainers start from refresh 0 of these latents; q(u) below is fitted to that Z (so
    // nothing is carried over to it).
    initial_inducing_ = drawn_active_set(*this, comm, initial_parameters(), 0);
  }
  if (config_.training == SparseTraining::minibatch)
    initial_posterior_ = config_.reproducible_sums
                             ? optimal_posterior_in_blocks(comm, partition, initial_parameters(), local)
                             : optimal_posterior(comm, initial_parameters(), local);
}

void SparseGplvmModel::pretrain_mean_encoder(const Communicator& comm, const RowPartition& partition,
                                             const DataRef& local) {
  const Matrix targets = pca_latents(local, partition, comm, config_.latent_dim, config_.reproducible_sums);
  const Mlp& encoder = encoders_->mean();  // the first weights of the encoder block
  Vector weights = initial_parameters().segment(encoder_offset_, encoder.num_parameters());
  EncoderPretraining options = config_.encoder_pretraining;
  options.reproducible_sums = config_.reproducible_sums;
  const PretrainingLoss loss =
      pretrain_encoder(encoder, weights.data(), comm, partition, local, targets, options);
  if (comm.is_root())
    log_info("encoder pre-trained to the PCA latents for " +
             std::to_string(config_.encoder_pretraining.steps) + " steps: regression loss " +
             std::to_string(loss.before) + " -> " + std::to_string(loss.after));
  initial_mean_encoder_ = std::move(weights);
}

}  // namespace gplvm
