#pragma once
// The `spectral` fitting method: a model's closed-form optimum (Model::closed_form_parameters, e.g.
// ProbDR's from the moment's extreme eigenpairs) written as a run file, with the objective and its
// gradient norm there, so that a closed-form run and a gradient-trained one are compared on the
// same terms. The curve holds one point (iteration 0). Nothing is checkpointed: the fit has no
// iterations to resume.
#include "gplvm/run/fitting_method.hpp"

namespace gplvm {

// Returns the exit code. InputError naming optim.method when the model has no closed form.
int fit_closed_form(const FitRun& run);

}  // namespace gplvm
