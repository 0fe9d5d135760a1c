#include "gplvm/models/vae_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
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
    : Model(validated_rows(num_data, local_begin, local_rows), local_begin, local_rows),
      elbo_(std::move(config)),
      seed_(seed),
      reproducible_sums_(reproducible_sums) {}

std::unique_ptr<Kernel> VaeModel::kernel(const Vector&) const {
  throw InputError("a VAE has a neural-network decoder, not a GP: there is no kernel",
                   {"", "model.kind", "vae"});
}

double VaeModel::noise_variance(const Vector& params) const {
  return std::exp(params[elbo_.noise_offset()]);
}

RowMatrix VaeModel::local_block_rows(const Vector&) const {
  return RowMatrix(static_cast<Index>(local_rows()), 0);
}

void VaeModel::set_local_block_rows(Vector&, const RowMatrix& rows) const {
  require(rows.rows() == static_cast<Index>(local_rows()) && rows.cols() == 0,
          "local parameter block has the wrong shape (a VAE has no per-row parameters)",
          {"", "local_rows", std::to_string(rows.rows()) + "x" + std::to_string(rows.cols())});
}

void VaeModel::write_parameters(Hdf5ResultWriter& out, const Vector& params) const {
  out.write_scalar("/params/noise_variance", noise_variance(params));
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
