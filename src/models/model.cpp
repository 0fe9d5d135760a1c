#include "gplvm/models/model.hpp"

#include <algorithm>

#include "gplvm/core/error.hpp"
#include "gplvm/models/gp_decoder.hpp"

namespace gplvm {

LatentKind parse_latent_kind(const std::string& name) {
  if (name == "amortised") return LatentKind::amortised;
  if (name == "free") return LatentKind::free;
  throw InputError("unknown latent kind (expected 'amortised' or 'free')", {"", "model.latents", name});
}

std::string to_string(LatentKind kind) {
  return kind == LatentKind::amortised ? "amortised" : "free";
}

std::unique_ptr<Kernel> kernel_with_hyperparameters(const Kernel& prototype, const Vector& params,
                                                    Index offset) {
  std::unique_ptr<Kernel> k = prototype.clone();
  k->set_hyperparameters(params.segment(offset, prototype.num_hyperparameters()));
  return k;
}

namespace {

const GpDecoder& required_decoder(const Model& model) {
  const GpDecoder* decoder = model.gp_decoder();
  if (decoder == nullptr)
    throw InputError("a " + model.kind() + " model has no GP decoder: there is no kernel or GP noise",
                     {"", "model.kind", model.kind()});
  return *decoder;
}

}  // namespace

std::unique_ptr<Kernel> Model::kernel(const Vector& params) const {
  return required_decoder(*this).kernel(params);
}

double Model::noise_variance(const Vector& params) const {
  return required_decoder(*this).noise_variance(params);
}

Model::SharedPoints Model::curved_shared_points() const {
  const ParameterBlock* block = parameter_layout().shared_point_block();
  return block ? SharedPoints{block->offset, block->rows} : SharedPoints{};
}

Model::ActiveSet Model::active_set() const {
  const ParameterBlock* block = parameter_layout().copied_point_block();
  return block ? ActiveSet{{block->offset, block->rows}, block->refresh_every} : ActiveSet{};
}

RowMatrix Model::extend_out_of_sample(const Vector&, const DataRef&, const ConstMatrixRef&, const DataRef&,
                                      const Communicator&) const {
  throw InputError(
      "model.kind = \"" + kind() +
          "\" has no out-of-sample extension: new rows need an amortised encoder or a GP decoder",
      {"", "model.kind", kind()});
}

DecoderSummary Model::decoder_summary(const Vector& params) const {
  DecoderSummary summary;
  summary.noise_variance = noise_variance(params);
  for (const NamedHyperparameter& group : kernel(params)->named_hyperparameters()) {
    const std::string suffix = "lengthscales";
    const bool is_lengthscale =
        group.name.size() >= suffix.size() &&
        group.name.compare(group.name.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (!is_lengthscale || group.values.size() == 0) continue;
    const double lo = group.values.minCoeff(), hi = group.values.maxCoeff();
    summary.min_lengthscale = summary.has_lengthscales ? std::min(summary.min_lengthscale, lo) : lo;
    summary.max_lengthscale = summary.has_lengthscales ? std::max(summary.max_lengthscale, hi) : hi;
    summary.has_lengthscales = true;
  }
  return summary;
}

void require_own_free_latent_rows(const Model& model, std::uint64_t first_row, Index rows) {
  const std::uint64_t end = first_row + static_cast<std::uint64_t>(rows);
  if (first_row >= model.local_begin() && end <= model.local_begin() + model.local_rows()) return;
  throw Error("internal error: " + model.kind() +
                  " has free latents, which exist only for its training rows; rows [" +
                  std::to_string(first_row) + ", " + std::to_string(end) + ") are not this process's rows [" +
                  std::to_string(model.local_begin()) + ", " +
                  std::to_string(model.local_begin() + model.local_rows()) +
                  "): held-out rows need latent inference (eval/latent_inference), not encode",
              {"", "row", std::to_string(first_row)});
}

void write_gp_parameters(Hdf5ResultWriter& out, const Kernel& kernel, double noise_variance) {
  for (const NamedHyperparameter& h : kernel.named_hyperparameters()) {
    const std::string path = "/params/kernel/" + h.name;
    if (h.values.size() == 1)
      out.write_scalar(path, h.values[0]);
    else
      out.write_vector(path, h.values);
  }
  out.write_scalar("/params/noise_variance", noise_variance);
}

}  // namespace gplvm
