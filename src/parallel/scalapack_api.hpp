#pragma once
// Raw declarations of the BLACS, ScaLAPACK and PBLAS entry points the project calls (Debian's
// libscalapack-openmpi). Private to src/parallel: everything else goes through the checked
// wrappers in gplvm/parallel/scalapack.hpp.
//
// The Fortran routines (descinit_, numroc_, the tools, pdpotr*_) take every argument by pointer and
// one hidden length per CHARACTER argument, which we pass (omitting them is undefined behaviour
// with recent gfortran). The PBLAS routines (pdtrsm_, pdgemm_, pdsyrk_) and pdgemr2d_ are C
// functions with a Fortran-style interface and no hidden lengths.
#include <mpi.h>

#include <cstddef>

extern "C" {
// BLACS (C interface).
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);

// ScaLAPACK tools.
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
int indxg2p_(const int* indxglob, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
int indxg2l_(const int* indxglob, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
int indxl2g_(const int* indxloc, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);

// ScaLAPACK (Fortran).
void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desca,
              int* info, std::size_t uplo_len);
void pdpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* ia, const int* ja,
              const int* desca, double* b, const int* ib, const int* jb, const int* descb, int* info,
              std::size_t uplo_len);
void pdpotri_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desca,
              int* info, std::size_t uplo_len);

// PBLAS and the redistribution routine (C).
void pdtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
             const int* n, const double* alpha, const double* a, const int* ia, const int* ja,
             const int* desca, double* b, const int* ib, const int* jb, const int* descb);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta, double* c,
             const int* ic, const int* jc, const int* descc);
void pdsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* beta, double* c,
             const int* ic, const int* jc, const int* descc);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca,
               double* b, const int* ib, const int* jb, const int* descb, const int* ictxt);
}
