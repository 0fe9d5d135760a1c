#include "gplvm/geometry/latent_grid.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// origin + step * (i_0, ..., i_{Q-1}) for i_c in [0, per_coordinate), the first coordinate fastest.
Matrix regular_grid(const Vector& origin, const Vector& step, Index per_coordinate) {
  const Index q = origin.size();
  const auto count = static_cast<Index>(std::pow(per_coordinate, q));
  Matrix points(count, q);
  for (Index v = 0; v < count; ++v)
    for (Index c = 0, rest = v; c < q; ++c, rest /= per_coordinate)
      points(v, c) = origin[c] + step[c] * static_cast<double>(rest % per_coordinate);
  return points;
}

void require_two_points(Index per_coordinate) {
  require(per_coordinate >= 2, "a grid needs at least 2 points per coordinate",
          {"", "grid", std::to_string(per_coordinate)});
}

}  // namespace

Matrix box_grid(const Vector& low, const Vector& high, Index per_coordinate) {
  require_two_points(per_coordinate);
  return regular_grid(low, (high - low) / static_cast<double>(per_coordinate - 1), per_coordinate);
}

Matrix latent_grid(const ConstMatrixRef& latents, Index per_coordinate, double padding) {
  require_two_points(per_coordinate);
  const Vector low = latents.colwise().minCoeff().transpose(),
               high = latents.colwise().maxCoeff().transpose();
  // A box of zero width in some coordinate (all latents equal there) still gets a grid around them.
  const Vector margin = padding * (high - low).cwiseMax(1e-12);
  const Vector step = (high - low + 2.0 * margin) / static_cast<double>(per_coordinate - 1);
  return regular_grid(low - margin, step, per_coordinate);
}

}  // namespace gplvm
