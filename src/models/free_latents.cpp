#include "gplvm/models/free_latents.hpp"

#include <cmath>

namespace gplvm {

FreeLatents::FreeLatents(const LatentSpace& space, bool bayesian, ParameterLayout& layout)
    : space_(&space), bayesian_(bayesian), rows_(layout.local_rows()) {
  // Points are moved by Riemannian steps when the space is curved (optim/riemannian_adam.hpp).
  mean_offset_ = layout.add(
      {.name = "latent/mean", .placement = Placement::per_row, .cols = space.ambient_dim(), .space = &space});
  if (bayesian)
    log_variance_offset_ = layout.add({.name = "latent/log_variance",
                                       .placement = Placement::per_row,
                                       .cols = space.intrinsic_dim(),
                                       .transform = ParameterTransform::log});
}

Index FreeLatents::start_components(LatentInit init) const {
  return init == LatentInit::pca ? space_->start_components() : space_->intrinsic_dim();
}

void FreeLatents::initialise(Vector& params, const std::optional<Matrix>& pca_scores,
                             const FreeLatentStart& start, const CounterRng& rng,
                             std::uint64_t local_begin) const {
  Matrix points;
  if (pca_scores) {  // the space decides how principal-component scores become points
    space_->from_start_components(start.scale * *pca_scores, points);
  } else {  // tangent vectors at the origin, keyed by global row
    const Index q = space_->intrinsic_dim();
    Matrix tangent(rows_, q);
    for (Index r = 0; r < rows_; ++r)
      for (Index j = 0; j < q; ++j)
        tangent(r, j) =
            initial_latent_draw(rng, start.init, local_begin + static_cast<std::uint64_t>(r), q, j);
    space_->from_origin_tangent(start.scale * tangent, points);
  }
  Eigen::Map<RowMatrix>(params.data() + mean_offset_, rows_, space_->ambient_dim()) = points;
  if (bayesian_)
    params.segment(log_variance_offset_, rows_ * space_->intrinsic_dim())
        .setConstant(std::log(start.variance));
}

}  // namespace gplvm
