#include "gplvm/models/vae_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/models/mlp_parameters.hpp"
#include "gplvm/models/vae_training_step.hpp"

namespace gplvm {
namespace {

std::uint64_t validated_rows(std::uint64_t num_data, std::uint64_t local_begin, std::uint64_t local_rows) {
  require(num_data >= 1, "the data set is empty", {"", "N", "0"});
  require(local_begin + local_rows <= num_data, "local row range exceeds the data set",
          {"", "rows", std::to_string(local_begin) + "+" + std::to_string(local_rows)});
  return num_data;
}

}  // namespace

VaeModel::VaeModel(VaeConfig config, std::uint64_t seed, std::uint64_t num_data, std::uint64_t local_begin,
                   std::uint64_t local_rows, bool reproducible_sums)
    : Model({.num_data = validated_rows(num_data, local_begin, local_rows),
             .local_begin = local_begin,
             .local_rows = local_rows,
             .data_dim = config.data_dim,
             .seed = seed,
             .latents = {LatentKind::amortised, true, config.latent_dim, kEuclideanSpace}}),
      elbo_(std::move(config)),
      layout_(static_cast<Index>(local_rows)),
      reproducible_sums_(reproducible_sums) {
  // Every gradient element is a sum over batch rows, the noise's included.
  const auto summed = [](std::string name, Index size, ParameterTransform transform) {
    return ParameterBlock{
        .name = std::move(name), .rows = size, .cols = 1, .transform = transform, .role = BlockRole::summed};
  };
  layout_.add(summed("decoder", elbo_.noise_offset() - elbo_.decoder_offset(), ParameterTransform::packed));
  layout_.add(summed("noise_variance", 1, ParameterTransform::log));
  layout_.add(summed("encoder/mean", elbo_.variance_encoder_offset() - elbo_.mean_encoder_offset(),
                     ParameterTransform::packed));
  layout_.add(summed("encoder/variance", elbo_.num_parameters() - elbo_.variance_encoder_offset(),
                     ParameterTransform::packed));
}

double VaeModel::decoder_noise_variance(const Vector& params) const {
  return std::exp(params[elbo_.noise_offset()]);
}

DecoderSummary VaeModel::decoder_summary(const Vector& params) const {
  DecoderSummary summary;
  summary.noise_variance = decoder_noise_variance(params);
  return summary;
}

void VaeModel::write_parameters(Hdf5ResultWriter& out, const Vector& params) const {
  out.write_scalar("/params/noise_variance", decoder_noise_variance(params));
  write_mlp_parameters(out, "/params/decoder", elbo_.decoder().network(),
                       params.data() + elbo_.decoder_offset());
  write_mlp_parameters(out, "/params/encoder/mean", elbo_.mean_encoder(),
                       params.data() + elbo_.mean_encoder_offset());
  write_mlp_parameters(out, "/params/encoder/variance", elbo_.variance_encoder(),
                       params.data() + elbo_.variance_encoder_offset());
}

void VaeModel::encode(const Vector& params, const DataRef& data, std::uint64_t, RowMatrix& mean,
                      RowMatrix* variance) const {
  constexpr Index kChunk = 4096;
  const Index n = data.rows(), q = latent_dim();
  require(data.cols() == data_dim(), "data to encode have the wrong number of columns",
          {"", "data_dim", std::to_string(data.cols())});
  mean.resize(n, q);
  if (variance) variance->resize(n, q);
  Matrix out;
  for (Index begin = 0; begin < n; begin += kChunk) {
    const DataRef chunk = data.middleRows(begin, std::min(kChunk, n - begin));
    elbo_.mean_encoder().forward<double>(params.data() + elbo_.mean_encoder_offset(), chunk, mean_workspace_,
                                         out);
    mean.middleRows(begin, chunk.rows()) = out;
    if (!variance) continue;
    elbo_.variance_encoder().forward<double>(params.data() + elbo_.variance_encoder_offset(), chunk,
                                             variance_workspace_, out);
    variance->middleRows(begin, chunk.rows()) = out;
  }
}

void VaeModel::encode(const Vector& params, const DataRefF& data, std::uint64_t first_row, RowMatrix& mean,
                      RowMatrix* variance) const {
  const RowMatrix rows = data.cast<double>();
  encode(params, rows, first_row, mean, variance);
}

std::unique_ptr<TrainingStep> VaeModel::make_step(const Communicator& comm, const RowPartition& partition,
                                                  LocalRows local_rows) const {
  require(std::holds_alternative<DataRef>(local_rows), "the VAE trains in float64 only",
          {"", "model.precision", "float32"});
  return std::make_unique<VaeTrainingStep>(*this, comm, partition, std::get<DataRef>(local_rows));
}

}  // namespace gplvm
