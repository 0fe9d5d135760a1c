#include "gplvm/model/likelihood.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

void require_width(const DataRef& rows, Index width, const char* what) {
  if (rows.cols() != width)
    throw InputError(std::string(what) + " have the wrong number of columns",
                     {"", "data_dim", std::to_string(rows.cols()) + " != " + std::to_string(width)});
}

}  // namespace

GaussianLikelihood::GaussianLikelihood(Index data_dim) : dim_(data_dim) {
  require(data_dim >= 1, "data need at least one column", {"", "data_dim", std::to_string(data_dim)});
}

void GaussianLikelihood::to_outputs(const DataRef& rows, RowMatrix& outputs, Vector& log_jacobian) const {
  require_width(rows, dim_, "data rows");
  outputs = rows;
  log_jacobian.setZero(rows.rows());
}

void GaussianLikelihood::to_data(const DataRef& outputs, RowMatrix& rows) const {
  require_width(outputs, dim_, "outputs");
  rows = outputs;
}

std::unique_ptr<Likelihood> make_likelihood(const std::string& name, Index data_dim) {
  if (name == "gaussian") return std::make_unique<GaussianLikelihood>(data_dim);
  throw InputError("unknown likelihood (known: gaussian)", {"", "model.likelihood", name});
}

}  // namespace gplvm
