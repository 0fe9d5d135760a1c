#include "gplvm/objectives/precision_operator.hpp"

#include <string>
#include <vector>

#include "gplvm/core/error.hpp"

namespace gplvm {

DenseRowPrecision::DenseRowPrecision(const Communicator& comm, Matrix local_rows)
    : rows_(comm, std::move(local_rows), "Gamma_hat", "precision") {}

}  // namespace gplvm
