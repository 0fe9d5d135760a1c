#include "gplvm/parallel/scalapack.hpp"

#include "gplvm/linalg/lapack.hpp"

#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "scalapack_api.hpp"

namespace gplvm::scalapack {
namespace {

// ScaLAPACK's integers are 32-bit: refuse rather than truncate.
int to_int(Index value, const char* what) {
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    throw Error(std::string("ScaLAPACK ") + what + " out of 32-bit range", {"", what, std::to_string(value)});
  return static_cast<int>(value);
}

std::string shape(const BlockCyclicMatrix& m) {
  return std::to_string(m.rows()) + "x" + std::to_string(m.cols());
}

void require_shape(bool ok, const char* routine, const std::string& detail) {
  if (!ok) throw Error(std::string(routine) + ": " + detail);
}

void check_info(int info, const char* routine) {
  if (info < 0)
    throw Error(std::string(routine) + " rejected argument " + std::to_string(-info) + " (info " +
                std::to_string(info) + ")");
}

void require_same_grid(const BlockCyclicMatrix& a, const BlockCyclicMatrix& b, const char* routine) {
  require_shape(&a.grid() == &b.grid(), routine, "operands are on different process grids");
}

void require_square_blocks(const BlockCyclicMatrix& a, const char* routine) {
  require_shape(a.rows() == a.cols(), routine, "matrix " + shape(a) + " is not square");
  require_shape(a.row_block() == a.col_block(), routine, "blocks must be square");
}

// op(m)'s dimensions for a 'N' / 'T' flag.
Index op_rows(const BlockCyclicMatrix& m, char trans) {
  return trans == 'N' ? m.rows() : m.cols();
}
Index op_cols(const BlockCyclicMatrix& m, char trans) {
  return trans == 'N' ? m.cols() : m.rows();
}

constexpr int one = 1;

}  // namespace

Index numroc(Index n, Index block, int proc, int source, int procs) {
  const int n32 = to_int(n, "n"), nb = to_int(block, "block");
  return numroc_(&n32, &nb, &proc, &source, &procs);
}

int indxg2p(Index global, Index block, int source, int procs) {
  const int g = to_int(global + 1, "index"), nb = to_int(block, "block"), unused = 0;
  return indxg2p_(&g, &nb, &unused, &source, &procs);
}

Index indxg2l(Index global, Index block, int procs) {
  const int g = to_int(global + 1, "index"), nb = to_int(block, "block"), unused = 0;
  return indxg2l_(&g, &nb, &unused, &unused, &procs) - 1;
}

Index indxl2g(Index local, Index block, int proc, int source, int procs) {
  const int l = to_int(local + 1, "index"), nb = to_int(block, "block");
  return indxl2g_(&l, &nb, &proc, &source, &procs) - 1;
}

std::array<int, 9> descinit(Index m, Index n, int mb, int nb, int rsrc, int csrc, int context, Index lld) {
  std::array<int, 9> desc{};
  const int m32 = to_int(m, "rows"), n32 = to_int(n, "cols"), lld32 = to_int(lld, "leading dimension");
  int info = 0;
  descinit_(desc.data(), &m32, &n32, &mb, &nb, &rsrc, &csrc, &context, &lld32, &info);
  if (info != 0)
    throw Error("descinit rejected argument " + std::to_string(-info) + " (info " + std::to_string(info) +
                ") for a " + std::to_string(m) + "x" + std::to_string(n) + " matrix in " +
                std::to_string(mb) + "x" + std::to_string(nb) + " blocks");
  return desc;
}

// On a 1 x 1 grid the local storage is the whole column-major matrix, and LAPACK's recursive
// dpotrf (and plain BLAS/LAPACK for the others) run at the machine's rate where ScaLAPACK's
// right-looking panel algorithm loses a third of it (measured: pdpotrf 34 vs dpotrf 52 GFLOP/s).
bool single_process(const BlockCyclicMatrix& a) {
  return a.grid().nprow() == 1 && a.grid().npcol() == 1;
}

int leading_dimension(const BlockCyclicMatrix& a) {
  return std::max(1, to_int(a.local().rows(), "lld"));
}

int pdpotrf(BlockCyclicMatrix& a, char uplo) {
  require_square_blocks(a, "pdpotrf");
  if (!a.grid().is_member() || a.rows() == 0) return 0;
  const int n = to_int(a.rows(), "n");
  int info = 0;
  if (single_process(a)) {
    const int lda = leading_dimension(a);
    lapack::dpotrf_(&uplo, &n, a.data(), &lda, &info);
    check_info(info, "dpotrf");
    return info;
  }
  pdpotrf_(&uplo, &n, a.data(), &one, &one, a.descriptor(), &info, 1);
  check_info(info, "pdpotrf");
  return info;
}

void pdpotrs(const BlockCyclicMatrix& factor, BlockCyclicMatrix& b, char uplo) {
  require_square_blocks(factor, "pdpotrs");
  require_same_grid(factor, b, "pdpotrs");
  require_shape(b.rows() == factor.rows() && b.row_block() == factor.row_block(), "pdpotrs",
                "right-hand side " + shape(b) + " does not match the factor " + shape(factor));
  if (!b.grid().is_member() || b.rows() == 0 || b.cols() == 0) return;
  const int n = to_int(factor.rows(), "n"), nrhs = to_int(b.cols(), "nrhs");
  int info = 0;
  pdpotrs_(&uplo, &n, &nrhs, factor.data(), &one, &one, factor.descriptor(), b.data(), &one, &one,
           b.descriptor(), &info, 1);
  check_info(info, "pdpotrs");
}

void pdpotri(BlockCyclicMatrix& factor, char uplo) {
  require_square_blocks(factor, "pdpotri");
  if (!factor.grid().is_member() || factor.rows() == 0) return;
  const int n = to_int(factor.rows(), "n");
  int info = 0;
  if (single_process(factor)) {
    const int lda = leading_dimension(factor);
    lapack::dpotri_(&uplo, &n, factor.data(), &lda, &info);
  } else {
    pdpotri_(&uplo, &n, factor.data(), &one, &one, factor.descriptor(), &info, 1);
  }
  check_info(info, "pdpotri");
  if (info > 0)
    throw NumericalError("pdpotri: the Cholesky factor is singular at diagonal entry " +
                         std::to_string(info));
}

void pdtrsm(char side, char uplo, char trans, char diag, double alpha, const BlockCyclicMatrix& a,
            BlockCyclicMatrix& b) {
  require_same_grid(a, b, "pdtrsm");
  require_shape(a.rows() == a.cols(), "pdtrsm", "triangular matrix " + shape(a) + " is not square");
  const Index solved = side == 'L' ? b.rows() : b.cols();
  require_shape(solved == a.rows(), "pdtrsm", "triangular " + shape(a) + " does not match " + shape(b));
  if (!b.grid().is_member() || b.rows() == 0 || b.cols() == 0) return;
  const int m = to_int(b.rows(), "m"), n = to_int(b.cols(), "n");
  if (single_process(a)) {
    const int lda = leading_dimension(a), ldb = leading_dimension(b);
    lapack::dtrsm_(&side, &uplo, &trans, &diag, &m, &n, &alpha, a.data(), &lda, b.data(), &ldb);
    return;
  }
  pdtrsm_(&side, &uplo, &trans, &diag, &m, &n, &alpha, a.data(), &one, &one, a.descriptor(), b.data(), &one,
          &one, b.descriptor());
}

void pdgemm(char trans_a, char trans_b, double alpha, const BlockCyclicMatrix& a, const BlockCyclicMatrix& b,
            double beta, BlockCyclicMatrix& c) {
  require_same_grid(a, c, "pdgemm");
  require_same_grid(b, c, "pdgemm");
  const Index k = op_cols(a, trans_a);
  require_shape(
      op_rows(a, trans_a) == c.rows() && op_cols(b, trans_b) == c.cols() && op_rows(b, trans_b) == k,
      "pdgemm", "shapes " + shape(a) + ", " + shape(b) + " -> " + shape(c) + " do not conform");
  if (!c.grid().is_member() || c.rows() == 0 || c.cols() == 0) return;
  const int m = to_int(c.rows(), "m"), n = to_int(c.cols(), "n"), k32 = to_int(k, "k");
  pdgemm_(&trans_a, &trans_b, &m, &n, &k32, &alpha, a.data(), &one, &one, a.descriptor(), b.data(), &one,
          &one, b.descriptor(), &beta, c.data(), &one, &one, c.descriptor());
}

void pdsyrk(char uplo, char trans, double alpha, const BlockCyclicMatrix& a, double beta,
            BlockCyclicMatrix& c) {
  require_same_grid(a, c, "pdsyrk");
  require_shape(c.rows() == c.cols() && op_rows(a, trans) == c.rows(), "pdsyrk",
                "shapes " + shape(a) + " -> " + shape(c) + " do not conform");
  if (!c.grid().is_member() || c.rows() == 0) return;
  const int n = to_int(c.rows(), "n"), k = to_int(op_cols(a, trans), "k");
  pdsyrk_(&uplo, &trans, &n, &k, &alpha, a.data(), &one, &one, a.descriptor(), &beta, c.data(), &one, &one,
          c.descriptor());
}

void pdgemr2d(Index rows, Index cols, const BlockCyclicMatrix& a, Index a_row, Index a_col,
              BlockCyclicMatrix& b, Index b_row, Index b_col, const BlacsGrid& span) {
  require_shape(a_row >= 0 && a_col >= 0 && a_row + rows <= a.rows() && a_col + cols <= a.cols(), "pdgemr2d",
                "source block exceeds the " + shape(a) + " matrix");
  require_shape(b_row >= 0 && b_col >= 0 && b_row + rows <= b.rows() && b_col + cols <= b.cols(), "pdgemr2d",
                "target block exceeds the " + shape(b) + " matrix");
  if (rows == 0 || cols == 0 || !span.is_member()) return;
  const int m = to_int(rows, "m"), n = to_int(cols, "n");
  const int ia = to_int(a_row + 1, "ia"), ja = to_int(a_col + 1, "ja");
  const int ib = to_int(b_row + 1, "ib"), jb = to_int(b_col + 1, "jb");
  const int context = span.context();
  pdgemr2d_(&m, &n, a.data(), &ia, &ja, a.descriptor(), b.data(), &ib, &jb, b.descriptor(), &context);
}

}  // namespace gplvm::scalapack
