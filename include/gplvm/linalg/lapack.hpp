#pragma once
// The LAPACK routines the project calls directly (Fortran symbols from liblapack / OpenBLAS).
namespace gplvm::lapack {
extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info);
}
}  // namespace gplvm::lapack
