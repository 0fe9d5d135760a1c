#include "gplvm/models/active_set.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {

std::vector<std::uint64_t> active_set_rows(std::uint64_t num_data, std::uint64_t count, std::uint64_t seed,
                                           std::uint64_t refresh) {
  require(count >= 1 && count <= num_data,
          "the active set needs between 1 and the number of data rows (" + std::to_string(num_data) + ")",
          {"", "sparse.inducing", std::to_string(count)});
  const CounterRng rng(seed);
  // The shuffle's swapped positions only: position i holds displaced[i] if present, else i.
  std::unordered_map<std::uint64_t, std::uint64_t> displaced;
  const auto at = [&](std::uint64_t i) {
    const auto it = displaced.find(i);
    return it == displaced.end() ? i : it->second;
  };
  std::vector<std::uint64_t> rows(count);
  for (std::uint64_t c = 0; c < count; ++c) {
    const std::uint64_t remaining = num_data - c;
    const auto offset = static_cast<std::uint64_t>(rng.uniform(RngPurpose::active_set, refresh, 0, c) *
                                                   static_cast<double>(remaining));
    const std::uint64_t j = c + std::min(offset, remaining - 1);
    const std::uint64_t picked = at(j);
    displaced[j] = at(c);
    rows[c] = picked;
  }
  return rows;
}

Matrix drawn_active_set(const Model& model, const Communicator& comm, const Vector& params,
                        std::uint64_t refresh) {
  const LatentSpace* space = model.curved_point_space();
  require(space != nullptr, "an active set needs free latents on a curved latent space",
          {"", "model.latent_space", model.latent_space()});
  const Index a = space->ambient_dim(), m = model.active_set().points.rows;
  const std::vector<std::uint64_t> rows =
      active_set_rows(model.num_data(), static_cast<std::uint64_t>(m), model.seed(), refresh);
  const RowMatrix latents = model.local_block_rows(params);
  const std::uint64_t begin = model.local_begin(), end = begin + model.local_rows();
  // Every entry has one owner; adding the others' zeros leaves its bits as they are.
  Matrix chosen = Matrix::Zero(m, a);
  for (Index k = 0; k < m; ++k)
    if (rows[k] >= begin && rows[k] < end)
      chosen.row(k) = latents.row(static_cast<Index>(rows[k] - begin)).head(a);
  comm.allreduce_sum(chosen.data(), chosen.size());
  return chosen;
}

void refresh_active_set(const Model& model, const Communicator& comm, Vector& params, std::uint64_t refresh) {
  const Model::ActiveSet active = model.active_set();
  if (active.every == 0) return;
  Matrix chosen = drawn_active_set(model, comm, params, refresh);
  auto points = Eigen::Map<Matrix>(params.data() + active.points.offset, chosen.rows(), chosen.cols());
  if (points == chosen) return;  // the same rows at the same places: nothing moves
  const Matrix previous = points;
  points = chosen;
  model.carry_over_active_set(previous, params);
}

}  // namespace gplvm
