#pragma once
// A regular grid over the box of some latents, grown by a share of its width on every side: where
// `gplvm geometry` draws the magnification and the geodesic graph puts its vertices.
#include "gplvm/core/types.hpp"

namespace gplvm {

// per_coordinate^Q points (Q = latents.cols()), the first coordinate fastest. InputError unless
// per_coordinate >= 2.
Matrix latent_grid(const ConstMatrixRef& latents, Index per_coordinate, double padding);

}  // namespace gplvm
