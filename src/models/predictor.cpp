#include "gplvm/models/predictor.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

JacobianPrediction Predictor::predict_jacobian(const ConstMatrixRef&) {
  throw Error(
      "this model's predictive has no Jacobian covariance: only a GP decoder's predictive (sas, "
      "bayesian_sas, exact, sparse_gplvm, bayesian_gplvm) has one");
}

}  // namespace gplvm
