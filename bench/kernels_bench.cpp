// The step's two dense kernels, each against its baselines in the same run:
//  - GEMM at the encoder's four operand layouts (forward X W with row-major X, weight gradients
//    X^T dZ and H^T dZ, input gradient dZ W^T), B = 1024, D = 784, h = 512: OpenBLAS
//    (cblas_?gemm with the transposes expressed as flags), Eigen's product, and gplvm::gemm;
//  - the triangular solves L^{-1} B and L^{-T} B with B of A x 784 (A = 100, 200, 400), as the SAS
//    step's whitening and remainder do: OpenBLAS's cblas_dtrsm, Eigen's solveInPlace and gplvm's;
//  - the data fit's rank-k update C += beta beta^T / 2 (beta of A x 784): OpenBLAS's cblas_dsyrk,
//    Eigen's rankUpdate and gplvm::rank_update_lower.
// Each figure is the best of --repeats timings, in GFLOP/s (solve: A^2 n FLOPs; update: A^2 k).
//
// Threads: OMP_NUM_THREADS (default 1) for gplvm's kernels and OpenBLAS alike; Eigen's run on one.
//
//   [OMP_NUM_THREADS=T] bench_kernels [--repeats 15]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <Eigen/Cholesky>

#include "gplvm/core/threads.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/linalg/gemm.hpp"
#include "gplvm/linalg/rank_update.hpp"
#include "gplvm/linalg/triangular_solve.hpp"

extern "C" {
void openblas_set_num_threads(int);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha, const float* a,
                 int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha, const double* a,
                 int lda, const double* b, int ldb, double beta, double* c, int ldc);
void cblas_dtrsm(int layout, int side, int uplo, int transa, int diag, int m, int n, double alpha,
                 const double* a, int lda, double* b, int ldb);
void cblas_dsyrk(int layout, int uplo, int trans, int n, int k, double alpha, const double* a, int lda,
                 double beta, double* c, int ldc);
}

namespace {

using namespace gplvm;
using Clock = std::chrono::steady_clock;
constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112, kLeft = 141, kLower = 122, kNonUnit = 131;

int repeats = 15;
int threads = 1;

template <typename F>
double best_seconds(F&& f) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

// OpenBLAS's timings, then a pause: with several threads its pool spins on for a while after a
// call and would take the cores from the kernels timed next.
template <typename F>
double blas_seconds(F&& f) {
  const double seconds = best_seconds(f);
  if (threads > 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return seconds;
}

void blas_gemm(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
               float* c) {
  cblas_sgemm(kColMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n, k, 1.0f, a, lda, b, ldb, 0.0f,
              c, m);
}
void blas_gemm(bool ta, bool tb, int m, int n, int k, const double* a, int lda, const double* b, int ldb,
               double* c) {
  cblas_dgemm(kColMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n, k, 1.0, a, lda, b, ldb, 0.0, c,
              m);
}

template <typename Scalar>
void gemm_layouts(const char* precision) {
  using Mat = MatrixT<Scalar>;
  using RowMat = RowMatrixT<Scalar>;
  const Index B = 1024, D = 784, H = 512;
  const RowMat X = RowMat::Random(B, D);  // data rows: row-major
  const Mat W = Mat::Random(D, H), dZ = Mat::Random(B, H), Hid = Mat::Random(B, D);
  Mat Z(B, H), dW(D, H), G(B, D);
  const double flops = 2.0 * B * D * H;
  auto report = [&](const char* what, auto&& blas, auto&& eigen, auto&& ours) {
    const double tb = blas_seconds(blas), te = best_seconds(eigen), to = best_seconds(ours);
    std::printf("%-7s %-34s %8.1f %8.1f %8.1f %8.2f\n", precision, what, flops / tb / 1e9, flops / te / 1e9,
                flops / to / 1e9, std::min(tb, te) / to);
  };
  const int b = static_cast<int>(B), d = static_cast<int>(D), h = static_cast<int>(H);
  // X row-major (B x D) is X^T column-major (D x B) to BLAS.
  report(
      "forward X W (X row-major)",
      [&] { blas_gemm(true, false, b, h, d, X.data(), d, W.data(), d, Z.data()); },
      [&] { Z.noalias() = X * W; },
      [&] { gemm(view_of(X), view_of(W), mutable_view_of(Z), GemmUpdate::overwrite); });
  report(
      "weight grad X^T dZ", [&] { blas_gemm(false, false, d, h, b, X.data(), d, dZ.data(), b, dW.data()); },
      [&] { dW.noalias() = X.transpose() * dZ; },
      [&] { gemm(view_of(X).transposed(), view_of(dZ), mutable_view_of(dW), GemmUpdate::overwrite); });
  report(
      "weight grad H^T dZ (H col-major)",
      [&] { blas_gemm(true, false, d, h, b, Hid.data(), b, dZ.data(), b, dW.data()); },
      [&] { dW.noalias() = Hid.transpose() * dZ; },
      [&] { gemm(view_of(Hid).transposed(), view_of(dZ), mutable_view_of(dW), GemmUpdate::overwrite); });
  report(
      "input grad dZ W^T", [&] { blas_gemm(false, true, b, d, h, dZ.data(), b, W.data(), d, G.data()); },
      [&] { G.noalias() = dZ * W.transpose(); },
      [&] { gemm(view_of(dZ), view_of(W).transposed(), mutable_view_of(G), GemmUpdate::overwrite); });
}

void print_row(const std::string& name, double flops, double tb, double te, double to) {
  std::printf("%-7s %-34s %8.1f %8.1f %8.1f %8.2f\n", "float64", name.c_str(), flops / tb / 1e9,
              flops / te / 1e9, flops / to / 1e9, std::min(tb, te) / to);
}

// L^{-1} B and L^{-T} B with B of A x 784, as the whitening and the remainder's solves do.
void triangular_solves() {
  const Index n = 784;
  for (const bool transposed : {false, true})
    for (Index a : {100, 200, 400}) {
      const Matrix S = Matrix::Random(a, a);
      const Matrix L =
          Eigen::LLT<Matrix>(S * S.transpose() + static_cast<double>(a) * Matrix::Identity(a, a)).matrixL();
      const Matrix rhs = Matrix::Random(a, n);
      Matrix x(a, n);
      const int ai = static_cast<int>(a), ni = static_cast<int>(n);
      // Each timing includes the copy of the right-hand side (the same for all three).
      const double tb = blas_seconds([&] {
        x = rhs;
        cblas_dtrsm(kColMajor, kLeft, kLower, transposed ? kTrans : kNoTrans, kNonUnit, ai, ni, 1.0, L.data(),
                    ai, x.data(), ai);
      });
      const double te = best_seconds([&] {
        x = rhs;
        if (transposed)
          L.triangularView<Eigen::Lower>().transpose().solveInPlace(x);
        else
          L.triangularView<Eigen::Lower>().solveInPlace(x);
      });
      const double to = best_seconds([&] {
        x = rhs;
        if (transposed)
          solve_lower_transposed_in_place(L, x);
        else
          solve_lower_triangular_in_place(L, x);
      });
      print_row(std::string(transposed ? "solve L^-T B" : "solve L^-1 B") + ", A = " + std::to_string(a),
                static_cast<double>(a) * a * n, tb, te, to);
    }
}

// The data fit's C += 1/2 beta beta^T on the lower triangle, beta of A x 784 (A^2 k FLOPs counted).
void rank_updates() {
  const Index k = 784;
  for (Index a : {100, 200, 400}) {
    const Matrix beta = Matrix::Random(a, k);
    Matrix c = Matrix::Zero(a, a);
    const int ai = static_cast<int>(a), ki = static_cast<int>(k);
    const double tb = blas_seconds(
        [&] { cblas_dsyrk(kColMajor, kLower, kNoTrans, ai, ki, 0.5, beta.data(), ai, 1.0, c.data(), ai); });
    const double te = best_seconds([&] { c.selfadjointView<Eigen::Lower>().rankUpdate(beta, 0.5); });
    const double to = best_seconds([&] { rank_update_lower(beta, 0.5, c); });
    print_row("rank-k update C += B B^T/2, A = " + std::to_string(a), static_cast<double>(a) * a * k, tb, te,
              to);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "bench_kernels: unknown option %s (usage: bench_kernels [--repeats N])\n",
                   argv[i]);
      return 2;
    }
  }
  threads = threads_from_environment();
  openblas_set_num_threads(threads);
  std::printf("%s; gplvm::gemm engine: %s; threads: %d (OpenBLAS and gplvm; Eigen: 1)\n",
              blas_kernel_note().c_str(), gemm_engine_name().c_str(), threads);
  std::printf("%-7s %-34s %8s %8s %8s %8s\n", "", "GFLOP/s (best of repeats)", "OpenBLAS", "Eigen", "gplvm",
              "speed-up");
  gemm_layouts<float>("float32");
  gemm_layouts<double>("float64");
  triangular_solves();
  rank_updates();
  return 0;
}
