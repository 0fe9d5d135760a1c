#include "gplvm/linalg/gemm.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gplvm/core/threads.hpp"
#include "packed_gemm.hpp"

namespace gplvm {

namespace {

std::string shape(Index rows, Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

// Calls f with an Eigen Map of the view: column-major or row-major with an outer stride when one
// stride is 1 (Eigen's GEMM reads those in place), a fully strided map otherwise.
// The stride between the columns of a column-major view (rows of a row-major one), as BLAS needs
// it: a single column (row) has no next one, and its stride may be anything, but BLAS
// (EIGEN_USE_BLAS) rejects a leading dimension below the column's length (DGEMV "parameter 6").
Index leading_dimension(Index stride, Index length, Index count) {
  return count == 1 ? std::max<Index>({stride, length, 1}) : stride;
}

template <typename Scalar, typename F>
void with_eigen_map(const ConstMatrixView<Scalar>& v, F&& f) {
  using OuterMap = Eigen::OuterStride<>;
  if (v.row_stride == 1) {
    f(Eigen::Map<const MatrixT<Scalar>, 0, OuterMap>(
        v.data, v.rows, v.cols, OuterMap(leading_dimension(v.col_stride, v.rows, v.cols))));
  } else if (v.col_stride == 1) {
    f(Eigen::Map<const RowMatrixT<Scalar>, 0, OuterMap>(
        v.data, v.rows, v.cols, OuterMap(leading_dimension(v.row_stride, v.cols, v.rows))));
  } else {
    using Strided = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
    f(Eigen::Map<const MatrixT<Scalar>, 0, Strided>(v.data, v.rows, v.cols,
                                                    Strided(v.col_stride, v.row_stride)));
  }
}

// The engine without the packed kernels: Eigen's product (OpenBLAS with EIGEN_USE_BLAS).
template <typename Scalar>
void eigen_gemm(const ConstMatrixView<Scalar>& a, const ConstMatrixView<Scalar>& b,
                const MutableMatrixView<Scalar>& c, GemmUpdate update) {
  Eigen::Map<MatrixT<Scalar>, 0, Eigen::OuterStride<>> out(
      c.data, c.rows, c.cols, Eigen::OuterStride<>(leading_dimension(c.col_stride, c.rows, c.cols)));
  with_eigen_map(a, [&](const auto& a_map) {
    with_eigen_map(b, [&](const auto& b_map) {
      if (update == GemmUpdate::overwrite)
        out.noalias() = a_map * b_map;
      else if (update == GemmUpdate::accumulate)
        out.noalias() += a_map * b_map;
      else
        out.noalias() -= a_map * b_map;
    });
  });
}

template <typename Scalar>
void multiply(GemmEngine engine, const ConstMatrixView<Scalar>& a, const ConstMatrixView<Scalar>& b,
              const MutableMatrixView<Scalar>& c, GemmUpdate update) {
  if (engine == GemmEngine::packed)
    detail::packed_gemm(a, b, c, update);
  else
    eigen_gemm(a, b, c, update);
}

// Products below this many FLOPs run on the calling thread: starting a parallel region costs
// microseconds, a visible share of a product this small.
constexpr double kMinThreadedFlops = 4e6;

// The product on the rank's threads. By blocks of C's rows when C has enough row tiles to share
// evenly (the packed engine then packs B once for all threads, so nothing is packed twice), else
// by blocks of C's columns (each thread packing all of A, which is then small). Blocks are whole
// register tiles. The packed engine sums every element over the same k blocks in the same order
// whichever thread computes it, so its result does not depend on the thread count (Eigen's
// blocking depends on the shape, so the fallback's last bits may).
template <typename Scalar>
void multiply_on_threads(GemmEngine engine, const ConstMatrixView<Scalar>& a,
                         const ConstMatrixView<Scalar>& b, const MutableMatrixView<Scalar>& c,
                         GemmUpdate update) {
  const Index m = c.rows, n = c.cols, k = a.cols;
  const int threads = threads_per_rank();
  if (threads == 1 || 2.0 * m * n * k < kMinThreadedFlops || inside_parallel_region())
    return multiply(engine, a, b, c, update);
  const Index row_tile = detail::kTileRows<Scalar>, column_tile = detail::kTileColumns;
  const Index row_tiles = m / row_tile, column_tiles = n / column_tile;
  if (row_tiles >= 4 * threads || row_tiles >= column_tiles) {
    if (engine == GemmEngine::packed && row_tiles >= 2)
      return detail::packed_gemm_shared_b(a, b, c, update,
                                          static_cast<int>(std::min<Index>(threads, row_tiles)));
    for_each_thread_share(m, row_tile, [&](Index i0, Index i1) {
      const ConstMatrixView<Scalar> a_part{a.data + i0 * a.row_stride, i1 - i0, k, a.row_stride,
                                           a.col_stride};
      multiply(engine, a_part, b, MutableMatrixView<Scalar>{c.data + i0, i1 - i0, n, c.col_stride}, update);
    });
    return;
  }
  for_each_thread_share(n, column_tile, [&](Index j0, Index j1) {
    const ConstMatrixView<Scalar> b_part{b.data + j0 * b.col_stride, k, j1 - j0, b.row_stride, b.col_stride};
    multiply(engine, a, b_part,
             MutableMatrixView<Scalar>{c.data + j0 * c.col_stride, m, j1 - j0, c.col_stride}, update);
  });
}

}  // namespace

void require_unit_inner_stride(Index inner_stride) {
  if (inner_stride != 1)
    throw std::invalid_argument("gemm: operands need contiguous rows or columns (inner stride " +
                                std::to_string(inner_stride) + ")");
}

template <typename Scalar>
void gemm_with(GemmEngine engine, ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b,
               MutableMatrixView<Scalar> c, GemmUpdate update) {
  if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols || c.col_stride < c.rows)
    throw std::invalid_argument("gemm: cannot multiply " + shape(a.rows, a.cols) + " by " +
                                shape(b.rows, b.cols) + " into " + shape(c.rows, c.cols) +
                                " (leading dimension " + std::to_string(c.col_stride) + ")");
  if (engine == GemmEngine::packed && !packed_gemm_compiled())
    throw std::logic_error("gemm: this build has no packed engine (" + gemm_engine_name() + ")");
  if (c.rows == 0 || c.cols == 0) return;
  if (a.cols == 0) {  // an empty sum: C = 0 or C unchanged
    if (update == GemmUpdate::overwrite)
      for (Index j = 0; j < c.cols; ++j)
        std::fill(c.data + j * c.col_stride, c.data + j * c.col_stride + c.rows, 0);
    return;
  }
  multiply_on_threads(engine, a, b, c, update);
}

template <typename Scalar>
void gemm(ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b, MutableMatrixView<Scalar> c,
          GemmUpdate update) {
  gemm_with(packed_gemm_compiled() ? GemmEngine::packed : GemmEngine::eigen, a, b, c, update);
}

std::string gemm_engine_name() {
  if (packed_gemm_compiled()) return "packed AVX-512";
  const std::string built = GPLVM_GEMM_ENGINE;
#ifdef EIGEN_USE_BLAS
  if (built == "native")
    return "blas (OpenBLAS through Eigen; the packed engine needs AVX-512 at compile time)";
  return "blas (OpenBLAS through Eigen)";
#else
  return "eigen";
#endif
}

template void gemm<float>(ConstMatrixView<float>, ConstMatrixView<float>, MutableMatrixView<float>,
                          GemmUpdate);
template void gemm<double>(ConstMatrixView<double>, ConstMatrixView<double>, MutableMatrixView<double>,
                           GemmUpdate);
template void gemm_with<float>(GemmEngine, ConstMatrixView<float>, ConstMatrixView<float>,
                               MutableMatrixView<float>, GemmUpdate);
template void gemm_with<double>(GemmEngine, ConstMatrixView<double>, ConstMatrixView<double>,
                                MutableMatrixView<double>, GemmUpdate);

}  // namespace gplvm
