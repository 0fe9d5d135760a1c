#pragma once
// Data on output manifolds with known latent structure (docs/math/wrapped_gplvm.md, "Synthetic
// data"): stand-ins for the data sets wrapped GPLVMs are used on. Every point is exactly on its
// manifold (to rounding); the noise is a tangent perturbation, never a step off the manifold.
// Randomness depends only on (seed, stream, row), so a data set does not depend on how it is cut.
#include "gplvm/synthetic/synthetic.hpp"

namespace gplvm {

// S^2: a periodic curve, the small circle at geodesic radius 0.5 around a pole (not a geodesic),
// p = Exp_mu(0.5 (cos t e1 + sin t e2) + noise * N(0, I_2)). latent_true = phase t in [0, 2 pi)
// (N x 1; a walking cycle's stand-in); labels = 6 bins of t.
SyntheticData sphere_curve(Index N, std::uint64_t seed, double noise = 0.02);

// Planar shapes of k landmarks (N x k x 2) deformed along two latent factors in [-1, 1]^2: an
// ellipse whose aspect ratio is exp(0.5 a) and which is bent by 0.4 b (y += 0.4 b x^2), landmarks
// jittered by noise, then moved, rotated and scaled at random (which the shape ignores).
// latent_true = (a, b); labels = the latent's quadrant (0..3).
SyntheticData planar_shapes(Index N, Index landmarks, std::uint64_t seed, double noise = 0.01);

// SPD(3) diffusion tensors with a spread of fractional anisotropy: eigenvalues (e^{2u}, e^{-u}, e^{-u})
// with u in [0, 1] (FA from 0 to about 0.9), the principal axis turned by phi in [0, pi) about z,
// and a tangent perturbation P^1/2 exp(noise S) P^1/2 (S a symmetric N(0, 1) matrix).
// latent_true = (u, phi); labels = 5 bins of the FA.
SyntheticData spd_tensors(Index N, std::uint64_t seed, double noise = 0.02);

// SPD(10) covariances whose eigenvalues span five orders of magnitude (10^0 .. 10^5), drifting
// along a time-like latent t in [0, 1] (the eigenvectors turn in one plane by t pi/2) and a
// second factor s in [-1, 1] (log-eigenvalue i moves by s (i - 4.5)/4.5), with a tangent
// perturbation as spd_tensors. latent_true = (t, s); labels = 5 bins of t.
SyntheticData spd_covariances(Index N, std::uint64_t seed, double noise = 0.02);

// Fractional anisotropy of a 3 x 3 SPD matrix's eigenvalues (0: round, 1: a line).
double fractional_anisotropy(const Vector& eigenvalues);

}  // namespace gplvm
