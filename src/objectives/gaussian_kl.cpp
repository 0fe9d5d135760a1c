#include "gplvm/objectives/gaussian_kl.hpp"

namespace gplvm {

double gaussian_kl(const ConstMatrixRef& mean, const ConstMatrixRef& variance) {
  return -0.5 * (1.0 + variance.array().log() - mean.array().square() - variance.array()).sum();
}

void gaussian_kl_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, double scale,
                          MatrixRef d_mean, MatrixRef d_variance) {
  d_mean += scale * mean;
  d_variance.array() += 0.5 * scale * (1.0 - variance.array().inverse());
}

}  // namespace gplvm
