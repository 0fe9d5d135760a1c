#include "gplvm/apps/latent_grid_options.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/geometry/latent_grid.hpp"

namespace gplvm {
namespace {

constexpr Index kMaxGridDim = 3;
// A typo such as --grid 100000 at Q = 3 (10^15 points) is refused rather than exhausting memory.
constexpr double kMaxGridPoints = 1e8;

// The --grid-limits box as its low and high corners.
void limits_box(const LatentGridRequest& request, Index q, Vector& low, Vector& high) {
  const std::vector<double>& limits = request.limits;
  require(static_cast<Index>(limits.size()) == 2 * q,
          "--grid-limits needs a low and a high per latent dimension (xmin,xmax,ymin,ymax for Q = 2)",
          {"", "--grid-limits",
           request.limits_text + " (" + std::to_string(limits.size()) + " numbers, Q = " + std::to_string(q) +
               ")"});
  low.resize(q);
  high.resize(q);
  for (Index c = 0; c < q; ++c) {
    low[c] = limits[2 * c];
    high[c] = limits[2 * c + 1];
    require(low[c] < high[c], "--grid-limits: each low must be below its high",
            {"", "--grid-limits", request.limits_text + " (latent dimension " + std::to_string(c) + ")"});
  }
}

}  // namespace

LatentGridRequest latent_grid_request(const CommandLine& cl, Index default_per_coordinate) {
  LatentGridRequest r;
  r.per_coordinate = static_cast<Index>(cl.integer_or("grid", default_per_coordinate, 2, 100000));
  r.padding = cl.real_or("padding", r.padding, 0.0, 100.0);
  if (const auto limits = cl.value("grid-limits")) {
    require(!cl.has("padding"), "--padding grows the latents' box; --grid-limits gives the box itself",
            {"", "--padding", "--grid-limits"});
    r.limits = parse_real_list(*limits, "--grid-limits");
    r.limits_text = *limits;
  }
  return r;
}

Matrix latent_grid_points(const LatentGridRequest& request, const Matrix& latents) {
  const Index q = latents.cols();
  require(q <= kMaxGridDim,
          "a latent grid is for at most 3 latent dimensions; give the points with --latents",
          {"", "--grid", "Q = " + std::to_string(q)});
  require(
      std::pow(static_cast<double>(request.per_coordinate), static_cast<double>(q)) <= kMaxGridPoints,
      "a latent grid of more than 10^8 points",
      {"", "--grid", std::to_string(request.per_coordinate) + " per coordinate, Q = " + std::to_string(q)});
  if (request.limits.empty()) return latent_grid(latents, request.per_coordinate, request.padding);
  Vector low, high;
  limits_box(request, q, low, high);
  return box_grid(low, high, request.per_coordinate);
}

}  // namespace gplvm
