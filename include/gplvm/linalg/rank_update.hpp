#pragma once
// C <- C + alpha A A^T on the lower triangle of C (the strict upper triangle is not read and is
// left as it was): the symmetric rank-k update of the SAS data fit, 1/2 beta beta^T.
//
// With the packed GEMM engine it runs as a row-blocked product through gplvm::gemm: block i of
// 48 rows times rows 0..end of block i, so ~1.2x the A^2 k FLOPs of a true SYRK run at the
// engine's rate. On the development machine that is 67 against Eigen's 22 GFLOP/s (counting
// A^2 k) at A = 200, k = 784, and 79 against 34 at A = 400 (block sizes 32-96 tried: 48 best).
// Other builds use Eigen's rankUpdate.
#include "gplvm/core/types.hpp"

namespace gplvm {

void rank_update_lower(const ConstMatrixRef& a, double alpha, MatrixRef c);

}  // namespace gplvm
