#pragma once
// The regular latent grid a command evaluates a run on (`gplvm geometry`, `gplvm predict --grid`):
// --grid N points per coordinate over the box of the run's latents grown by --padding of its width
// per side, or over the box --grid-limits gives (geometry/latent_grid.hpp).
#include <string>
#include <vector>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/core/types.hpp"

namespace gplvm {

struct LatentGridRequest {
  Index per_coordinate = 0;
  double padding = 0.1;
  std::vector<double> limits;  // low_0, high_0, low_1, high_1, ...; empty: the latents' box
  std::string limits_text;     // as given, for messages
};

// --grid (default `default_per_coordinate`; 2 to 100000), --padding (0 to 100) and, where the
// command declares it, --grid-limits, each read strictly: InputError naming the option. Limits and
// padding exclude each other.
LatentGridRequest latent_grid_request(const CommandLine& cl, Index default_per_coordinate);

// The grid for Euclidean latents of at most 3 dimensions (`latents`: the run's, replicated), at
// most 10^8 points; --grid-limits must give a low below a high, per latent dimension. InputError
// naming the option otherwise.
Matrix latent_grid_points(const LatentGridRequest& request, const Matrix& latents);

}  // namespace gplvm
