#include "gplvm/objectives/inducing_jitter.hpp"

namespace gplvm {

double inducing_jitter(const Matrix& K, double relative_jitter) {
  return relative_jitter != 0.0 && K.rows() > 0 ? relative_jitter * K.diagonal().mean() : 0.0;
}

Matrix jittered_inducing_kernel(Matrix K, double relative_jitter) {
  const double jitter = inducing_jitter(K, relative_jitter);
  if (jitter != 0.0) K.diagonal().array() += jitter;
  return K;
}

void add_inducing_jitter_adjoint(Matrix& G, double relative_jitter) {
  if (relative_jitter != 0.0 && G.rows() > 0)
    G.diagonal().array() += relative_jitter * G.trace() / static_cast<double>(G.rows());
}

}  // namespace gplvm
