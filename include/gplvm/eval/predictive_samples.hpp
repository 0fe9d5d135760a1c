#pragma once
// Samples of a Gaussian predictive N(mean_i, variance_i) per row (gplvm predict --samples). Draw s
// of entry j of global row r is mean + sqrt(variance) * normal(seed, predictive_sample, epoch 0,
// step s, index r * D + j): a function of (seed, row, sample, entry) only, so the samples are the
// same at any rank count and for any split of the rows. On an output manifold these are tangent
// coordinates at the basepoint, which the chart pushes to the manifold (the wrapped predictive).
#include <cstdint>

#include "gplvm/core/types.hpp"

namespace gplvm {

// mean: rows x D; variance: rows x 1 (shared by the D entries) or rows x D; first_row: the global
// index of mean's first row. Returns rows x (samples * D): row i holds its samples one after another.
RowMatrix gaussian_predictive_samples(const RowMatrix& mean, const RowMatrix& variance,
                                      std::uint64_t first_row, int samples, std::uint64_t seed);

}  // namespace gplvm
