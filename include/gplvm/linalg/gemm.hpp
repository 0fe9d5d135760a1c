#pragma once
// C = A B or C += A B for the encoder's large products, in float or double.
//
// Why not just Eigen's product: the amortised step is ~75% encoder GEMMs, so its speed is the GEMM
// engine's. On the AVX-512 development machine Eigen's GEMM reaches 150-168 GFLOP/s in fp32 (peak
// 238) and 70-77 in fp64 (peak 119); the packed engine here (src/linalg/packed_gemm.cpp: BLIS-style
// packing, a 2-vector x 12 register-blocked AVX-512 microkernel) reaches 195-220 and 92-105 on
// the same shapes (docs/benchmarks.md). It is compiled when the build targets AVX-512
// (GPLVM_GEMM=native, the default, with -march=native on such a CPU); otherwise every call goes to
// Eigen's product, which is OpenBLAS with GPLVM_GEMM=blas and with a native build for a CPU without
// AVX-512. gemm_engine_name() says which.
//
// Operands are strided views, so transposes and row-major data cost nothing at the call site: the
// packing reads any strides. The result is column-major with a leading dimension.
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm {

// A read-only rows x cols matrix whose (i, j) entry is data[i * row_stride + j * col_stride].
template <typename Scalar>
struct ConstMatrixView {
  const Scalar* data = nullptr;
  Index rows = 0, cols = 0, row_stride = 1, col_stride = 0;

  ConstMatrixView transposed() const { return {data, cols, rows, col_stride, row_stride}; }
};

// A writable column-major rows x cols matrix with leading dimension col_stride (>= rows).
template <typename Scalar>
struct MutableMatrixView {
  Scalar* data = nullptr;
  Index rows = 0, cols = 0, col_stride = 0;
};

// Views of Eigen objects with contiguous rows or columns (Matrix, Map, Ref, blocks of them);
// anything else (an inner stride, as in a Map with InnerStride) throws std::invalid_argument.
void require_unit_inner_stride(Index inner_stride);

template <typename Derived>
ConstMatrixView<typename Derived::Scalar> view_of(const Eigen::DenseBase<Derived>& m) {
  const Derived& d = m.derived();
  require_unit_inner_stride(d.innerStride());
  if constexpr (Derived::IsRowMajor)
    return {d.data(), d.rows(), d.cols(), d.outerStride(), 1};
  else
    return {d.data(), d.rows(), d.cols(), 1, d.outerStride()};
}

template <typename Derived>
MutableMatrixView<typename Derived::Scalar> mutable_view_of(Eigen::DenseBase<Derived>& m) {
  static_assert(!Derived::IsRowMajor, "gemm writes column-major results");
  Derived& d = m.derived();
  require_unit_inner_stride(d.innerStride());
  return {d.data(), d.rows(), d.cols(), d.outerStride()};
}

enum class GemmUpdate { overwrite, accumulate, subtract };

// c = a * b (overwrite), c += a * b (accumulate) or c -= a * b (subtract). Throws std::invalid_argument on
// mismatched shapes. c must not overlap a or b. Large products run on the rank's threads
// (include/gplvm/core/threads.hpp), split by blocks of C's rows (or of its columns when C has too
// few rows); called from inside a parallel region, on the calling thread.
template <typename Scalar>
void gemm(ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b, MutableMatrixView<Scalar> c,
          GemmUpdate update);

// The same product through a chosen engine, for tests and benchmarks: `packed` throws
// std::logic_error in builds without it (packed_gemm_compiled() says which).
enum class GemmEngine { packed, eigen };
bool packed_gemm_compiled();
template <typename Scalar>
void gemm_with(GemmEngine engine, ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b,
               MutableMatrixView<Scalar> c, GemmUpdate update);

// "packed AVX-512" or "eigen" / "blas (OpenBLAS through Eigen)", with the reason when the packed
// engine was asked for but not compiled.
std::string gemm_engine_name();

}  // namespace gplvm
