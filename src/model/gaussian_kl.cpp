#include "gplvm/model/gaussian_kl.hpp"

namespace gplvm {

Matrix reparameterise(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& eps) {
  return mean + (variance.array().sqrt() * eps.array()).matrix();
}

void reparameterise_backward(const ConstMatrixRef& d_sample, const ConstMatrixRef& variance,
                             const ConstMatrixRef& eps, MatrixRef d_mean, MatrixRef d_variance) {
  d_mean += d_sample;
  d_variance.array() += d_sample.array() * eps.array() / (2.0 * variance.array().sqrt());
}

double gaussian_kl(const ConstMatrixRef& mean, const ConstMatrixRef& variance) {
  return -0.5 * (1.0 + variance.array().log() - mean.array().square() - variance.array()).sum();
}

void gaussian_kl_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, double scale,
                          MatrixRef d_mean, MatrixRef d_variance) {
  d_mean += scale * mean;
  d_variance.array() += 0.5 * scale * (1.0 - variance.array().inverse());
}

}  // namespace gplvm
