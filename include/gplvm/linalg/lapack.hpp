#pragma once
// The LAPACK routines the project calls directly (Fortran symbols from liblapack / OpenBLAS).
namespace gplvm::lapack {
extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
}
}  // namespace gplvm::lapack
