#include "gplvm/models/inducing_predictor.hpp"

namespace gplvm {

InducingPointPredictor::InducingPointPredictor(std::unique_ptr<Kernel> kernel, Matrix inducing,
                                               InducingPosterior posterior, double noise_variance)
    : posterior_(GpPosterior::given_inducing(*kernel, inducing, posterior, noise_variance)) {}

}  // namespace gplvm
