#include "gplvm/models/vae_model_config.hpp"

#include <algorithm>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/vae_model.hpp"

namespace gplvm {
namespace {

std::vector<Index> decoder_hidden(const Config& c, const std::vector<Index>& encoder_hidden) {
  const std::vector<std::int64_t>& widths = c.get_int_list("vae.decoder_hidden");
  if (widths.empty()) return {encoder_hidden.rbegin(), encoder_hidden.rend()};  // the mirror
  if (widths == std::vector<std::int64_t>{0}) return {};                        // affine
  const bool positive = std::all_of(widths.begin(), widths.end(), [](std::int64_t w) { return w >= 1; });
  require(positive,
          "decoder hidden widths must be positive ([] mirrors the encoder, [0] means no hidden layer)",
          {"", "vae.decoder_hidden", config_value_to_toml(c.get("vae.decoder_hidden"))});
  return {widths.begin(), widths.end()};
}

}  // namespace

VaeConfig vae_config(const Config& c, Index data_dim) {
  require(c.get_string("model.latents") == "amortised",
          "model.kind = \"vae\" has amortised latents only (an encoder reads each data row)",
          {"", "model.latents", c.get_string("model.latents")});
  require(c.get_string("model.precision") == "float64", "model.kind = \"vae\" runs in float64 only",
          {"", "model.precision", c.get_string("model.precision")});
  VaeConfig v;
  v.data_dim = data_dim;
  v.latent_dim = c.get_int("model.latent_dim");
  const std::vector<std::int64_t>& encoder = c.get_int_list("model.encoder_hidden");
  v.encoder_hidden.assign(encoder.begin(), encoder.end());
  v.encoder_activation = parse_activation(c.get_string("model.encoder_activation"));
  v.decoder_hidden = decoder_hidden(c, v.encoder_hidden);
  v.decoder_activation = parse_activation(c.get_string("vae.decoder_activation"));
  v.noise_variance = c.get_double("model.noise_variance");
  return v;
}

std::unique_ptr<Model> make_vae_model(const Config& config, const ModelRows& rows) {
  return std::make_unique<VaeModel>(vae_config(config, rows.data_dim),
                                    static_cast<std::uint64_t>(config.get_int("train.seed")), rows.num_data,
                                    rows.local_begin, rows.local_rows, config.get_bool("train.reproducible"));
}

}  // namespace gplvm
