#pragma once
// Free latents, the latent-variable component that sas, bayesian_sas, exact, sparse_gplvm and
// bayesian_gplvm hold when model.latents = "free": a point of the latent space per data row
// (block "latent/mean", ambient coordinates) and, for Bayesian models, the log variances of its
// tangent directions (block "latent/log_variance"), per local row in the model's layout; and
// their start, which does not depend on how rows are distributed over ranks.
#include <cstdint>
#include <optional>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/models/latent_init.hpp"
#include "gplvm/models/parameter_layout.hpp"

namespace gplvm {

// How free latents start (model.init, model.free_latent_scale, model.free_latent_variance).
struct FreeLatentStart {
  LatentInit init = LatentInit::pca;
  double scale = 1.0;      // times the tangent vectors at the origin
  double variance = 0.05;  // Bayesian: every row's initial tangent variance
};

class FreeLatents {
 public:
  // Appends the blocks to `layout` (whose local row count is this rank's rows); `space` must
  // outlive this object.
  FreeLatents(const LatentSpace& space, bool bayesian, ParameterLayout& layout);

  Index mean_offset() const noexcept { return mean_offset_; }
  Index log_variance_offset() const noexcept { return log_variance_offset_; }  // -1 unless Bayesian

  // How many principal components a start from PCA scores takes (model.init = "pca": the space's
  // start_components(), Q + 1 on the sphere; otherwise Q).
  Index start_components(LatentInit init) const;
  // Writes the start into params: the space's points for the principal-component scores of the
  // local rows when given (start_components() columns, times start.scale), else tangent vectors at
  // the origin drawn keyed by global row from local_begin, times start.scale, mapped to points;
  // Bayesian log variances log(start.variance).
  void initialise(Vector& params, const std::optional<Matrix>& pca_scores, const FreeLatentStart& start,
                  const CounterRng& rng, std::uint64_t local_begin) const;

 private:
  const LatentSpace* space_;
  bool bayesian_;
  Index rows_ = 0, mean_offset_ = 0, log_variance_offset_ = -1;
};

}  // namespace gplvm
