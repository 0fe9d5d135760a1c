#pragma once
// The packed AVX-512 GEMM behind gplvm::gemm (include/gplvm/linalg/gemm.hpp). Internal to
// src/linalg: callers use gemm(), which checks shapes and picks the engine.
#include "gplvm/linalg/gemm.hpp"

namespace gplvm::detail {

// True when this build contains the AVX-512 engine.
bool packed_gemm_available();

// c = a * b or c += a * b; shapes already checked and non-empty in m and n.
template <typename Scalar>
void packed_gemm(ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b, MutableMatrixView<Scalar> c,
                 GemmUpdate update);

}  // namespace gplvm::detail
