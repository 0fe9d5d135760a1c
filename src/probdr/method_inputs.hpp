#pragma once
// What every ProbDR method checks of its inputs, and the settings several of them share. Each check
// is collective or depends only on values every rank holds, so every rank throws the same InputError.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/probdr/probdr_settings.hpp"

namespace gplvm {

// The data's RowPartition, after checking that each rank holds its block, every row has the same
// width and every entry is finite (InputError naming "rows" otherwise).
RowPartition checked_rows(const DataRef& local_data, const Communicator& comm);

// n x n moments held densely (classical MDS, exact kernel PCA) are refused above probdr.dense_limit
// rows, before anything n x n is allocated; `method` names the method in the message.
void require_dense_limit(std::uint64_t num_rows, const ProbdrSettings& settings, const std::string& method);

// The Wishart's d: probdr.degrees_of_freedom when set (> 0), else the method's own default.
double degrees_of_freedom(const ProbdrSettings& settings, double method_default);

// The classical coordinates U Lambda^{1/2} of a covariance moment (eigenvalues clipped at 0: a
// column of a non-positive eigenvalue is zero).
Matrix scaled_eigenvectors(const Matrix& local_vectors, const Vector& eigenvalues);

}  // namespace gplvm
