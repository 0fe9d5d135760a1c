#pragma once
// Double centring of a symmetric n x n matrix held by rows, H K H with H = I - 1 1^T / n: the step
// that turns squared distances (classical MDS: -1/2 H D2 H) or a kernel matrix (kernel PCA) into a
// centred Gram matrix. Entry by entry, B_ij = K_ij - r_i - r_j + g with r the row means (the column
// means too, K being symmetric) and g their mean, so nothing beyond this rank's rows and the n row
// means is held. Every row's mean is summed within the row, so B is the same at any rank count.
#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Collective (one allgather of the row means): centres this rank's rows (local rows x n, blocks
// consecutive in rank order) in place.
void double_centre(Matrix& local_rows, const Communicator& comm);

}  // namespace gplvm
