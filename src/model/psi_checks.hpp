#pragma once
// Shape checks of the Psi-statistics' inputs and adjoints, shared by the closed forms and the
// numerical default. Messages are built only when a check fails.
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/types.hpp"

namespace gplvm::psi_checks {

// mean and variance N x Q, Z M x Q, variances non-negative (a point mass at s = 0 is allowed).
inline void require_psi_inputs(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                               const ConstMatrixRef& Z, Index input_dim) {
  if (mean.cols() != input_dim || Z.cols() != input_dim)
    throw InputError("psi-statistics inputs have the wrong number of latent dimensions",
                     {"", "latent_dim", std::to_string(mean.cols() != input_dim ? mean.cols() : Z.cols())});
  if (variance.rows() != mean.rows() || variance.cols() != mean.cols())
    throw InputError(
        "psi-statistics variances must have the shape of the means",
        {"", "variance", std::to_string(variance.rows()) + "x" + std::to_string(variance.cols())});
  if (!(variance.array() >= 0.0).all() || !variance.allFinite())
    throw InputError("psi-statistics variances must be non-negative and finite",
                     {"", "variance", "negative"});
}

// d_psi1 N x M and d_psi2 M x M for N = rows of mean and M = rows of Z.
inline void require_psi_adjoints(const ConstMatrixRef& mean, const ConstMatrixRef& Z,
                                 const ConstMatrixRef& d_psi1, const ConstMatrixRef& d_psi2) {
  if (d_psi1.rows() != mean.rows() || d_psi1.cols() != Z.rows())
    throw InputError("dL/dpsi1 must be N x M",
                     {"", "d_psi1", std::to_string(d_psi1.rows()) + "x" + std::to_string(d_psi1.cols())});
  if (d_psi2.rows() != Z.rows() || d_psi2.cols() != Z.rows())
    throw InputError("dL/dpsi2 must be M x M",
                     {"", "d_psi2", std::to_string(d_psi2.rows()) + "x" + std::to_string(d_psi2.cols())});
}

}  // namespace gplvm::psi_checks
