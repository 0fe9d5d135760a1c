#pragma once
// C <- C + alpha A A^T on the lower triangle of C (the strict upper triangle is not read and is
// left as it was): the symmetric rank-k update of the SAS data fit, 1/2 beta beta^T.
//
// With the packed GEMM engine and from order 128 it runs as a row-blocked product through
// gplvm::gemm: block i of 48 rows times rows 0..end of block i, ~1.2x a SYRK's A^2 k FLOPs at the
// engine's rate. bench_kernels (k = 784): 66 against Eigen's 65 GFLOP/s at A = 200, 78 against 65
// at A = 400 (48-row blocks were the best of 32-96; a recursive split was slower); below 128 rows
// Eigen's rankUpdate is as fast and is used, as in builds without the engine.
#include "gplvm/core/types.hpp"

namespace gplvm {

void rank_update_lower(const ConstMatrixRef& a, double alpha, MatrixRef c);

}  // namespace gplvm
