#pragma once
// A regular grid over a box of the latent space: the box of some latents, grown by a share of its
// width on every side (where `gplvm geometry` draws the magnification and the geodesic graph puts
// its vertices), or a box given by its corners (`gplvm predict --grid-limits`).
#include "gplvm/core/types.hpp"

namespace gplvm {

// per_coordinate^Q points (Q = low.size()) from low to high inclusive in each coordinate, the first
// coordinate fastest. InputError unless per_coordinate >= 2.
Matrix box_grid(const Vector& low, const Vector& high, Index per_coordinate);

// box_grid over the latents' box (Q = latents.cols()) grown by padding times its width per side.
Matrix latent_grid(const ConstMatrixRef& latents, Index per_coordinate, double padding);

}  // namespace gplvm
