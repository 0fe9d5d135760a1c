#include "packed_gemm.hpp"

#include <stdexcept>

#if defined(GPLVM_PACKED_GEMM) && defined(__AVX512F__)
#define GPLVM_HAS_PACKED_GEMM 1
// GCC 12 warns inside its own AVX-512 headers: the shuffle intrinsics pass _mm512_undefined_*()
// as the unused merge operand. Nothing here reads an uninitialised value.
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <omp.h>

#include <algorithm>
#include <exception>
#include <type_traits>

#include "gplvm/core/denormals.hpp"
#else
#define GPLVM_HAS_PACKED_GEMM 0
#endif

namespace gplvm {

bool packed_gemm_compiled() {
  return GPLVM_HAS_PACKED_GEMM;
}

}  // namespace gplvm

namespace gplvm::detail {

#if GPLVM_HAS_PACKED_GEMM

namespace {

// One AVX-512 register of Scalar and the few operations the microkernel needs.
template <typename Scalar>
struct Simd;

template <>
struct Simd<float> {
  using Vec = __m512;
  static constexpr int lanes = 16;
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
  static Vec broadcast(float x) { return _mm512_set1_ps(x); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
  static void store_first(float* p, Vec v, Index count) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1), v);
  }
  static Vec load_first(const float* p, Index count) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1), p);
  }
};

template <>
struct Simd<double> {
  using Vec = __m512d;
  static constexpr int lanes = 8;
  static Vec zero() { return _mm512_setzero_pd(); }
  static Vec load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, Vec v) { _mm512_storeu_pd(p, v); }
  static Vec broadcast(double x) { return _mm512_set1_pd(x); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_pd(a, b, c); }
  static Vec add(Vec a, Vec b) { return _mm512_add_pd(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm512_sub_pd(a, b); }
  static void store_first(double* p, Vec v, Index count) {
    _mm512_mask_storeu_pd(p, static_cast<__mmask8>((1u << count) - 1), v);
  }
  static Vec load_first(const double* p, Index count) {
    return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << count) - 1), p);
  }
};

// In-register transposes: r[i] holds row i of a lanes x lanes block; afterwards r[j] holds column
// j. Interleaves within 128-bit lanes, then a 4 x 4 transpose of the 128-bit lanes themselves
// (shuffle immediates: 0x44 = lanes 0,1 of each; 0xEE = lanes 2,3; 0x88 = lanes 0,2; 0xDD = 1,3).
template <typename Vec, typename Shuffle>
inline void transpose_lane_blocks(Vec (&s)[16], Vec (&r)[16], int groups, Shuffle shuffle) {
  // s[g * groups + c] holds, in 128-bit lane L, the piece of column (groups * L + c) that belongs to
  // row block g; gather lane q of output column (groups * L + c) from lane L of s[q * groups + c].
  for (int c = 0; c < groups; ++c) {
    const Vec x = s[c], y = s[groups + c], z = s[2 * groups + c], w = s[3 * groups + c];
    const Vec p0 = shuffle(x, y, std::integral_constant<int, 0x44>{});
    const Vec p1 = shuffle(x, y, std::integral_constant<int, 0xEE>{});
    const Vec p2 = shuffle(z, w, std::integral_constant<int, 0x44>{});
    const Vec p3 = shuffle(z, w, std::integral_constant<int, 0xEE>{});
    r[c] = shuffle(p0, p2, std::integral_constant<int, 0x88>{});
    r[groups + c] = shuffle(p0, p2, std::integral_constant<int, 0xDD>{});
    r[2 * groups + c] = shuffle(p1, p3, std::integral_constant<int, 0x88>{});
    r[3 * groups + c] = shuffle(p1, p3, std::integral_constant<int, 0xDD>{});
  }
}

inline void transpose(__m512 (&r)[16]) {
  __m512 t[16], s[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    auto pd = [](__m512 v) { return _mm512_castps_pd(v); };
    s[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[i]), pd(t[i + 2])));
    s[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[i]), pd(t[i + 2])));
    s[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[i + 1]), pd(t[i + 3])));
    s[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[i + 1]), pd(t[i + 3])));
  }
  transpose_lane_blocks(
      s, r, 4, [](__m512 a, __m512 b, auto imm) { return _mm512_shuffle_f32x4(a, b, decltype(imm)::value); });
}

inline void transpose(__m512d (&r)[8]) {
  __m512d s[16], out[16];
  for (int i = 0; i < 8; i += 2) {
    s[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
    s[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
  }
  transpose_lane_blocks(s, out, 2, [](__m512d a, __m512d b, auto imm) {
    return _mm512_shuffle_f64x2(a, b, decltype(imm)::value);
  });
  for (int i = 0; i < 8; ++i) r[i] = out[i];
}

// Copies `vectors` (<= lanes) source vectors of `lanes` contiguous values, the v-th at
// src + v * src_stride, transposed: the j-th output (the j-th value of every source vector) goes to
// dst + j * dst_stride, `vectors` values wide. The packing of a row-major A or a column-major B.
template <typename Scalar>
inline void copy_transposed(const Scalar* src, Index src_stride, Index vectors, Scalar* dst,
                            Index dst_stride) {
  using S = Simd<Scalar>;
  constexpr int L = S::lanes;
  typename S::Vec r[L];
  for (int v = 0; v < L; ++v) r[v] = v < vectors ? S::load(src + v * src_stride) : S::zero();
  transpose(r);
  for (int j = 0; j < L; ++j) {
    if (vectors == L)
      S::store(dst + j * dst_stride, r[j]);
    else
      S::store_first(dst + j * dst_stride, r[j], vectors);
  }
}

// The same for `vectors` (<= lanes / 2) source vectors holding 2 x lanes contiguous values each:
// one full lanes x lanes transpose moves two blocks of lanes values (the first half of each
// output row goes to dst + j * dst_stride, the second to dst + (lanes + j) * dst_stride), where
// copy_transposed would spend a whole transpose on each half-empty block. The packing of a
// column-major B into 8-column fp32 panels.
inline void copy_transposed_two_blocks(const float* src, Index src_stride, Index vectors, float* dst,
                                       Index dst_stride) {
  constexpr int L = Simd<float>::lanes, H = L / 2;
  __m512 r[L];
  for (int v = 0; v < H; ++v) {
    r[v] = v < vectors ? _mm512_loadu_ps(src + v * src_stride) : _mm512_setzero_ps();
    r[H + v] = v < vectors ? _mm512_loadu_ps(src + v * src_stride + L) : _mm512_setzero_ps();
  }
  transpose(r);
  for (int j = 0; j < L; ++j) {
    _mm256_storeu_ps(dst + j * dst_stride, _mm512_castps512_ps256(r[j]));
    _mm256_storeu_ps(dst + (L + j) * dst_stride, _mm512_extractf32x8_ps(r[j], 1));
  }
}

// Register block: an MR x NR tile of C lives in 3 x 8 = 24 of the 32 vector registers, so each
// k step does 3 loads of A, 8 broadcasts of B and 24 FMAs: FMA-bound on two FMA pipes, with fewer
// loads per FMA than the 2 x 12 tile this engine started with. On the 2-core Intel Xeon VM
// (2026-11-23, docs/benchmarks.md) 3 x 8 with the k loop unrolled twice ran the encoder's products
// 5-6% (fp32) and 16-18% (fp64) faster than 2 x 12 not unrolled; 4 x 6 and 2 x 14 were within
// noise of it. Cache blocks: a kc x NR panel of B (12 KB in fp32, 24 KB in fp64) stays in L1
// while the mc x kc block of A (576 KB) streams from L2; the rates were flat within noise for kc
// in 256..512 and mc from 192 to 960 rows (Zen 5, 2 x 12 tile) and from 4 to 16 strips (Xeon,
// both tiles).
template <typename Scalar>
struct Blocking {
  static constexpr int vectors = kTileVectors;
  static constexpr Index mr = kTileRows<Scalar>;  // 3 vectors: 48 floats or 24 doubles
  static constexpr Index nr = kTileColumns;
  static_assert(mr == vectors * Simd<Scalar>::lanes);
  static constexpr Index kc = 384;
  static constexpr Index mc = 8 * mr;  // 384 floats or 192 doubles
  static constexpr Index nc = 2048;
};

// C(tile) =, += or -= packed A strip (kc x MR) * packed B panel (kc x NR), for the first
// `Vectors` register rows of the tile: all of them, or fewer for a ragged last strip, which the
// full kernel would compute at up to three times its cost. Each element is the same FMA chain
// either way, so a row's result does not depend on which strip it falls in.
template <typename Scalar, GemmUpdate update, int Vectors = Blocking<Scalar>::vectors>
inline void microkernel(Index kc, const Scalar* __restrict a, const Scalar* __restrict b, Scalar* c,
                        Index ldc) {
  using S = Simd<Scalar>;
  using Vec = typename S::Vec;
  constexpr int L = S::lanes, NR = Blocking<Scalar>::nr;
  constexpr Index a_step = Blocking<Scalar>::mr;
  Vec acc[Vectors][NR];
  for (int v = 0; v < Vectors; ++v) {
    for (int j = 0; j < NR; ++j) acc[v][j] = S::zero();
  }
  // Unrolled twice: most of the fp64 gain on the Xeon (fewer loop-control uops per FMA).
#pragma GCC unroll 2
  for (Index p = 0; p < kc; ++p) {
    Vec column[Vectors];
    for (int v = 0; v < Vectors; ++v) column[v] = S::load(a + v * L);
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
      const Vec bj = S::broadcast(b[j]);
      for (int v = 0; v < Vectors; ++v) acc[v][j] = S::fma(column[v], bj, acc[v][j]);
    }
    a += a_step;
    b += NR;
  }
  for (int j = 0; j < NR; ++j)
    for (int v = 0; v < Vectors; ++v) {
      Scalar* cj = c + j * ldc + v * L;
      if constexpr (update == GemmUpdate::overwrite)
        S::store(cj, acc[v][j]);
      else if constexpr (update == GemmUpdate::accumulate)
        S::store(cj, S::add(S::load(cj), acc[v][j]));
      else
        S::store(cj, S::sub(S::load(cj), acc[v][j]));
    }
}

// Packs rows [i0, i0 + mc) x columns [p0, p0 + kc) of a into MR-row strips, each stored k-major
// (MR values per k), zero-padding the last strip. Fast paths for contiguous columns (vector
// copies) and contiguous rows (a row-major or transposed operand: one contiguous read per row).
template <typename Scalar>
void pack_a(const ConstMatrixView<Scalar>& a, Index i0, Index p0, Index mc, Index kc, Scalar* dst) {
  constexpr Index MR = Blocking<Scalar>::mr, L = Simd<Scalar>::lanes;
  Index i = 0;
  if (a.row_stride == 1) {
    // Columns contiguous: all full strips at once, a column at a time, so that each column is
    // read as one run of up to mc values. Strip by strip, a product of activations (a 4 KB column
    // stride) read MR values from each of kc columns in turn, which the prefetchers did not follow.
    const Index strips = mc / MR;
    for (Index p = 0; p < kc; ++p) {
      const Scalar* src = a.data + i0 + (p0 + p) * a.col_stride;
      for (Index strip = 0; strip < strips; ++strip)
        for (Index v = 0; v < MR; v += L)
          Simd<Scalar>::store(dst + strip * MR * kc + p * MR + v, Simd<Scalar>::load(src + strip * MR + v));
    }
    i = strips * MR;
    dst += strips * MR * kc;
  }
  for (; i < mc; i += MR, dst += MR * kc) {
    const Index rows = std::min(MR, mc - i);
    const Scalar* origin = a.data + (i0 + i) * a.row_stride + p0 * a.col_stride;
    Index p_done = 0;
    if (rows == MR && a.col_stride == 1) {  // rows contiguous: transpose lanes x lanes blocks
      const Index p_full = kc / L * L;
      for (Index r = 0; r < MR; r += L)
        for (Index p = 0; p < p_full; p += L)
          copy_transposed(origin + r * a.row_stride + p, a.row_stride, L, dst + p * MR + r, MR);
      p_done = p_full;
    }
    for (Index r = 0; r < rows; ++r) {
      const Scalar* src = origin + r * a.row_stride;
      for (Index p = p_done; p < kc; ++p) dst[p * MR + r] = src[p * a.col_stride];
    }
    for (Index p = 0; p < kc; ++p) std::fill(dst + p * MR + rows, dst + (p + 1) * MR, Scalar(0));
  }
}

// Packs rows [p0, p0 + kc) x columns [j0, j0 + nc) of b into NR-column panels, each stored k-major
// (NR values per k), zero-padding the last panel.
template <typename Scalar>
void pack_b(const ConstMatrixView<Scalar>& b, Index p0, Index j0, Index kc, Index nc, Scalar* dst) {
  constexpr Index NR = Blocking<Scalar>::nr, L = Simd<Scalar>::lanes;
  for (Index j = 0; j < nc; j += NR, dst += NR * kc) {
    const Index cols = std::min(NR, nc - j);
    const Scalar* origin = b.data + p0 * b.row_stride + (j0 + j) * b.col_stride;
    if (b.col_stride == 1) {  // rows contiguous: `cols` values per k, zero-padded to NR, by masked vectors
      for (Index p = 0; p < kc; ++p)
        for (Index c = 0; c < NR; c += L) {
          const Index valid = std::clamp<Index>(cols - c, 0, L), width = std::min(L, NR - c);
          Simd<Scalar>::store_first(dst + p * NR + c,
                                    Simd<Scalar>::load_first(origin + p * b.row_stride + c, valid), width);
        }
      continue;
    }
    Index p_done = 0;
    if (b.row_stride == 1) {  // columns contiguous: transpose up to lanes columns at a time
      if constexpr (std::is_same_v<Scalar, float> && 2 * NR == L) {
        for (; p_done + 2 * L <= kc; p_done += 2 * L)
          copy_transposed_two_blocks(origin + p_done, b.col_stride, cols, dst + p_done * NR, NR);
      }
      for (; p_done + L <= kc; p_done += L)
        for (Index c = 0; c < cols; c += L)
          copy_transposed(origin + c * b.col_stride + p_done, b.col_stride, std::min(L, cols - c),
                          dst + p_done * NR + c, NR);
    }
    for (Index c = 0; c < cols; ++c) {
      const Scalar* src = origin + c * b.col_stride;
      for (Index p = p_done; p < kc; ++p) dst[p * NR + c] = src[p * b.row_stride];
    }
    for (Index p = 0; p < kc; ++p) std::fill(dst + p * NR + cols, dst + (p + 1) * NR, Scalar(0));
  }
}

// Packing buffers, grown once per thread and reused: no allocation in a training step.
template <typename Scalar>
struct PackBuffers {
  VectorT<Scalar> a, b;
  static PackBuffers& for_this_thread() {
    thread_local PackBuffers buffers;
    return buffers;
  }
};

// A ragged tile into `tile` (MR x NR, overwritten), with as few register rows as cover `rows`.
template <typename Scalar, int Vectors = 1>
void ragged_microkernel(Index rows, Index kc, const Scalar* a, const Scalar* b, Scalar* tile) {
  using Blk = Blocking<Scalar>;
  if constexpr (Vectors < Blk::vectors) {
    if (rows > Vectors * Simd<Scalar>::lanes)
      return ragged_microkernel<Scalar, Vectors + 1>(rows, kc, a, b, tile);
  }
  microkernel<Scalar, GemmUpdate::overwrite, Vectors>(kc, a, b, tile, Blk::mr);
}

// One packed A block against one packed B panel set: every MR x NR tile, the ragged ones through
// a local tile so that the microkernel never reads or writes outside C.
template <typename Scalar, GemmUpdate update>
void multiply_block(const Scalar* a_pack, const Scalar* b_pack, Index mc, Index nc, Index kc, Scalar* c,
                    Index ldc) {
  constexpr Index MR = Blocking<Scalar>::mr, NR = Blocking<Scalar>::nr;
  alignas(64) Scalar tile[MR * NR];
  for (Index jr = 0; jr < nc; jr += NR) {
    const Index cols = std::min(NR, nc - jr);
    for (Index ir = 0; ir < mc; ir += MR) {
      const Index rows = std::min(MR, mc - ir);
      const Scalar* a = a_pack + ir * kc;
      const Scalar* b = b_pack + jr * kc;
      Scalar* out = c + ir + jr * ldc;
      if (rows == MR && cols == NR) {
        microkernel<Scalar, update>(kc, a, b, out, ldc);
        continue;
      }
      ragged_microkernel(rows, kc, a, b, tile);
      for (Index j = 0; j < cols; ++j)
        for (Index i = 0; i < rows; ++i) {
          Scalar& o = out[i + j * ldc];
          const Scalar t = tile[i + j * MR];
          o = update == GemmUpdate::overwrite ? t : update == GemmUpdate::accumulate ? o + t : o - t;
        }
    }
  }
}

template <typename Scalar>
void multiply_block(GemmUpdate update, const Scalar* a_pack, const Scalar* b_pack, Index mc, Index nc,
                    Index kc, Scalar* c, Index ldc) {
  switch (update) {
    case GemmUpdate::overwrite:
      return multiply_block<Scalar, GemmUpdate::overwrite>(a_pack, b_pack, mc, nc, kc, c, ldc);
    case GemmUpdate::accumulate:
      return multiply_block<Scalar, GemmUpdate::accumulate>(a_pack, b_pack, mc, nc, kc, c, ldc);
    case GemmUpdate::subtract:
      return multiply_block<Scalar, GemmUpdate::subtract>(a_pack, b_pack, mc, nc, kc, c, ldc);
  }
}

// k in equal blocks of at most kc: 784 = 392 + 392, not 384 + 384 + 16, whose thin last block
// would cost a whole pass over C (loads and stores of every tile) for 16 FMAs per element.
template <typename Scalar>
Index k_block_size(Index k) {
  const Index kc = Blocking<Scalar>::kc, k_blocks = (k + kc - 1) / kc;
  return (k + k_blocks - 1) / k_blocks;
}

// The BLIS loops as run by thread `t` of `team` (team = 1: the whole product on the calling
// thread). For every (jc, pc) block the team packs the B panel together (thread t its NR-column
// panels t, t + team, ...) into one buffer that all of them read, then each thread runs the ic
// loop over its own rows of C (whole MR tiles) with its own packed A. So B is packed once, not
// once per thread, and every element of C is computed exactly as on one thread. `sync` is the
// team's barrier (nothing for a team of one).
template <typename Scalar, typename Sync>
void packed_loops(const ConstMatrixView<Scalar>& a, const ConstMatrixView<Scalar>& b,
                  const MutableMatrixView<Scalar>& c, GemmUpdate update, Index t, Index team, Scalar* b_pack,
                  Scalar* a_pack, Sync sync) {
  using Blk = Blocking<Scalar>;
  const Index m = c.rows, n = c.cols, k = a.cols;
  const Index kc_step = k_block_size<Scalar>(k);
  const Index row_tiles = (m + Blk::mr - 1) / Blk::mr;
  const Index i_begin = std::min(m, t * row_tiles / team * Blk::mr);
  const Index i_end = std::min(m, (t + 1) * row_tiles / team * Blk::mr);
  for (Index jc = 0; jc < n; jc += Blk::nc) {
    const Index nc = std::min(Blk::nc, n - jc), panels = (nc + Blk::nr - 1) / Blk::nr;
    for (Index pc = 0; pc < k; pc += kc_step) {
      const Index kc = std::min(kc_step, k - pc);
      // The first k block writes C when overwriting; every later one adds to it.
      const GemmUpdate block_update =
          update == GemmUpdate::overwrite && pc > 0 ? GemmUpdate::accumulate : update;
      for (Index p = t; p < panels; p += team)
        pack_b(b, pc, jc + p * Blk::nr, kc, std::min(Blk::nr, nc - p * Blk::nr), b_pack + p * Blk::nr * kc);
      sync();  // the whole panel is packed before anyone reads it
      for (Index ic = i_begin; ic < i_end; ic += Blk::mc) {
        const Index mc = std::min(Blk::mc, i_end - ic);
        pack_a(a, ic, pc, mc, kc, a_pack);
        multiply_block(block_update, a_pack, b_pack, mc, nc, kc, c.data + ic + jc * c.col_stride,
                       c.col_stride);
      }
      sync();  // every thread is done with this panel before it is packed again
    }
  }
}

// The calling thread's packing buffers, grown to what a product needs (B: of n columns).
template <typename Scalar>
void grow_a_buffer(PackBuffers<Scalar>& buffers) {
  using Blk = Blocking<Scalar>;
  if (buffers.a.size() < (Blk::mc + Blk::mr) * Blk::kc) buffers.a.resize((Blk::mc + Blk::mr) * Blk::kc);
}

template <typename Scalar>
Scalar* grown_b_buffer(PackBuffers<Scalar>& buffers, Index n) {
  using Blk = Blocking<Scalar>;
  const Index nc_max = std::min(Blk::nc, (n + Blk::nr - 1) / Blk::nr * Blk::nr);
  if (buffers.b.size() < nc_max * Blk::kc) buffers.b.resize(nc_max * Blk::kc);
  return buffers.b.data();
}

}  // namespace

template <typename Scalar>
void packed_gemm(ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b, MutableMatrixView<Scalar> c,
                 GemmUpdate update) {
  PackBuffers<Scalar>& buffers = PackBuffers<Scalar>::for_this_thread();
  grow_a_buffer(buffers);
  Scalar* const b_pack = grown_b_buffer(buffers, c.cols);
  packed_loops(a, b, c, update, 0, 1, b_pack, buffers.a.data(), [] {});
}

template <typename Scalar>
void packed_gemm_shared_b(ConstMatrixView<Scalar> a, ConstMatrixView<Scalar> b, MutableMatrixView<Scalar> c,
                          GemmUpdate update, int threads) {
  Scalar* const b_pack = grown_b_buffer(PackBuffers<Scalar>::for_this_thread(), c.cols);
  // A thread's first use grows its A buffer; should that fail, every thread must still reach the
  // team's barriers, so the failure is agreed on first and rethrown after the region.
  std::exception_ptr grow_error;
  bool any_failed = false;
  // Every thread computes under the caller's floating-point control (subnormals flushed in an fp32
  // step), as in run_on_threads: otherwise C's rows would depend on which thread computed them.
  const unsigned control = floating_point_control();
#pragma omp parallel num_threads(threads)
  {
    const AdoptedFloatingPointControl adopted(control);
    PackBuffers<Scalar>& mine = PackBuffers<Scalar>::for_this_thread();
    try {
      grow_a_buffer(mine);
    } catch (...) {
#pragma omp critical(gplvm_packed_gemm_error)
      {
        grow_error = std::current_exception();
        any_failed = true;
      }
    }
#pragma omp barrier
    if (!any_failed)
      packed_loops(a, b, c, update, omp_get_thread_num(), omp_get_num_threads(), b_pack, mine.a.data(), [] {
#pragma omp barrier
      });
  }
  if (grow_error) std::rethrow_exception(grow_error);
}

template <typename Scalar>
void packed_rank_update_lower(ConstMatrixView<Scalar> a, Scalar alpha, MutableMatrixView<Scalar> c,
                              Index row_begin, Index row_end) {
  using Blk = Blocking<Scalar>;
  constexpr Index MR = Blk::mr, NR = Blk::nr;
  const Index k = a.cols;
  if (row_begin >= row_end || k == 0) return;
  PackBuffers<Scalar>& buffers = PackBuffers<Scalar>::for_this_thread();
  grow_a_buffer(buffers);
  Scalar* const b_pack = grown_b_buffer(buffers, row_end);
  Scalar* const a_pack = buffers.a.data();
  const ConstMatrixView<Scalar> a_transposed = a.transposed();  // B = A^T: k x n
  const Index kc_step = k_block_size<Scalar>(k);
  alignas(64) Scalar tile[MR * NR];
  // The BLIS loops of C = A A^T over the rows [row_begin, row_end) and the columns up to each
  // row's diagonal: B's panels are packed once per (jc, pc) block, and an MR-row strip meets only
  // the panels that reach its last row. Each tile goes through `tile`, scaled and added to C on
  // and below the diagonal: a tile's k-block costs kc x 24 vector FMAs against 24 vector stores.
  for (Index jc = 0; jc < row_end; jc += Blk::nc) {
    const Index nc = std::min(Blk::nc, row_end - jc), panels = (nc + NR - 1) / NR;
    for (Index pc = 0; pc < k; pc += kc_step) {
      const Index kc = std::min(kc_step, k - pc);
      for (Index p = 0; p < panels; ++p)
        pack_b(a_transposed, pc, jc + p * NR, kc, std::min(NR, nc - p * NR), b_pack + p * NR * kc);
      for (Index ic = std::max(row_begin, jc); ic < row_end; ic += Blk::mc) {
        const Index mc = std::min(Blk::mc, row_end - ic);
        pack_a(a, ic, pc, mc, kc, a_pack);
        for (Index ir = 0; ir < mc; ir += MR) {
          const Index i0 = ic + ir, rows = std::min(MR, mc - ir);
          for (Index jr = 0; jr < nc && jc + jr < i0 + rows; jr += NR) {
            ragged_microkernel(rows, kc, a_pack + ir * kc, b_pack + jr * kc, tile);
            const Index cols = std::min(NR, nc - jr);
            for (Index j = 0; j < cols; ++j) {
              const Index column = jc + jr + j;
              Scalar* out = c.data + column * c.col_stride + i0;
              for (Index i = std::max<Index>(column - i0, 0); i < rows; ++i)
                out[i] += alpha * tile[i + j * MR];
            }
          }
        }
      }
    }
  }
}

#else

template <typename Scalar>
void packed_gemm(ConstMatrixView<Scalar>, ConstMatrixView<Scalar>, MutableMatrixView<Scalar>, GemmUpdate) {
  throw std::logic_error("packed_gemm: this build has no AVX-512 engine (gemm() should not call it)");
}

template <typename Scalar>
void packed_gemm_shared_b(ConstMatrixView<Scalar>, ConstMatrixView<Scalar>, MutableMatrixView<Scalar>,
                          GemmUpdate, int) {
  throw std::logic_error("packed_gemm: this build has no AVX-512 engine (gemm() should not call it)");
}

template <typename Scalar>
void packed_rank_update_lower(ConstMatrixView<Scalar>, Scalar, MutableMatrixView<Scalar>, Index, Index) {
  throw std::logic_error("packed_rank_update_lower: this build has no AVX-512 engine");
}

#endif

template void packed_gemm<float>(ConstMatrixView<float>, ConstMatrixView<float>, MutableMatrixView<float>,
                                 GemmUpdate);
template void packed_gemm<double>(ConstMatrixView<double>, ConstMatrixView<double>, MutableMatrixView<double>,
                                  GemmUpdate);
template void packed_gemm_shared_b<float>(ConstMatrixView<float>, ConstMatrixView<float>,
                                          MutableMatrixView<float>, GemmUpdate, int);
template void packed_gemm_shared_b<double>(ConstMatrixView<double>, ConstMatrixView<double>,
                                           MutableMatrixView<double>, GemmUpdate, int);
template void packed_rank_update_lower<double>(ConstMatrixView<double>, double, MutableMatrixView<double>,
                                               Index, Index);

}  // namespace gplvm::detail
