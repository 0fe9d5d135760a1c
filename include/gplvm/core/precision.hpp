#pragma once
// The floating-point precision of a model's data-sized work (encoder, data products).
//
// float64 does everything in double. float32 (model.precision = "float32") runs the encoder
// (weights, activations, GEMMs) and the O(A R D) data products of the SAS objective in float,
// and keeps in double what needs it for stability: the parameters and Adam's state (master
// copy), the latents, the kernel blocks' values, the Cholesky factor of K_AA, the active-set
// solves and log-determinant, the predictive variances (which cancel) and every sum forming the
// objective. See docs/precision.md.
#include <string>

namespace gplvm {

enum class Precision { float64, float32 };

Precision parse_precision(const std::string& name);  // "float64" | "float32"; InputError otherwise
std::string to_string(Precision precision);

}  // namespace gplvm
