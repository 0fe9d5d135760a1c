#include "gplvm/geometry/latent_grid.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

Matrix latent_grid(const ConstMatrixRef& latents, Index per_coordinate, double padding) {
  require(per_coordinate >= 2, "a grid needs at least 2 points per coordinate",
          {"", "grid", std::to_string(per_coordinate)});
  const Index q = latents.cols();
  const Vector low = latents.colwise().minCoeff().transpose(),
               high = latents.colwise().maxCoeff().transpose();
  // A box of zero width in some coordinate (all latents equal there) still gets a grid around them.
  const Vector margin = padding * (high - low).cwiseMax(1e-12);
  const Vector origin = low - margin;
  const Vector step = (high - low + 2.0 * margin) / static_cast<double>(per_coordinate - 1);
  const auto count = static_cast<Index>(std::pow(per_coordinate, q));
  Matrix points(count, q);
  for (Index v = 0; v < count; ++v)
    for (Index c = 0, rest = v; c < q; ++c, rest /= per_coordinate)
      points(v, c) = origin[c] + step[c] * static_cast<double>(rest % per_coordinate);
  return points;
}

}  // namespace gplvm
