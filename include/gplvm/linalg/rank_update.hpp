#pragma once
// C <- C + alpha A A^T on the lower triangle of C (the strict upper triangle is not read and is
// left as it was): the symmetric rank-k update of the SAS data fit, 1/2 beta beta^T.
//
// With the packed GEMM engine and from order 96 it is a SYRK on the engine's packing and
// microkernel: B = A^T packed once per cache block, each MR-row strip multiplied only by the
// panels that reach its diagonal (A^2 k FLOPs plus the diagonal tiles' other halves). Until the
// twelfth session it was a row-blocked product through gplvm::gemm (48-row blocks times all rows
// above them): 12% more FLOPs at A = 400 and the top of A packed again for every block.
// Below 96 rows Eigen's rankUpdate is used (nothing was measured there), as in builds without
// the engine.
#include "gplvm/core/types.hpp"

namespace gplvm {

void rank_update_lower(const ConstMatrixRef& a, double alpha, MatrixRef c);

}  // namespace gplvm
