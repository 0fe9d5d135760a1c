#pragma once
// The packed AVX-512 GEMM behind gplvm::gemm (include/gplvm/linalg/gemm.hpp). Internal to
// src/linalg: callers use gemm(), which checks shapes and picks the engine.
#include "gplvm/linalg/gemm.hpp"

namespace gplvm::detail {

// The engine's register tile: MR rows (three 64-byte vectors) by NR columns. gemm() splits a
// product among threads along these, so that no thread's share ends in a ragged tile.
constexpr int kTileVectors = 3;
template <typename Scalar>
constexpr Index kTileRows = kTileVectors * 64 / static_cast<Index>(sizeof(Scalar));
constexpr Index kTileColumns = 8;

// c = a * b, c += a * b or c -= a * b; shapes already checked and non-empty in m, n and k. Only in
// builds where packed_gemm_compiled() (defined next to it) is true.
template <typename Scalar>
void packed_gemm(ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b, MutableMatrixView<Scalar> c,
                 GemmUpdate update);

// The same product on `threads` threads, each computing a block of C's rows (whole MR tiles) from
// one B panel packed by all of them together. Call it outside a parallel region.
template <typename Scalar>
void packed_gemm_shared_b(ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b, MutableMatrixView<Scalar> c,
                          GemmUpdate update, int threads);

// Rows [row_begin, row_end) of the lower triangle of c += alpha a a^T (a: n x k, c: n x n; the
// strict upper triangle is neither read nor written). Rows in any split give the same values: each
// element is the same FMA chain, added to c once per k block.
template <typename Scalar>
void packed_rank_update_lower(ConstMatrixView<Scalar> a, Scalar alpha, MutableMatrixView<Scalar> c,
                              Index row_begin, Index row_end);

}  // namespace gplvm::detail
