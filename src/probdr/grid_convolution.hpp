#pragma once
// Discrete convolution of charges on a regular 1-D or 2-D grid of n nodes per dimension with even,
// translation-invariant kernels (the interpolated repulsion's potentials, interpolated_repulsion.hpp):
// the Toeplitz product embedded in a circulant of 2n per dimension and applied by FFTW.
//   - A kernel's spectrum is real (an even sequence): a DCT-I (FFTW's REDFT00) of its (n + 1)^l values
//     at offsets 0..n (0 at offset n, which no two nodes are apart) gives it at a quarter of the
//     circulant's transform in 2-D.
//   - The charges fill a quarter of the 2-D circulant: their transform runs the rows' real transforms
//     on the n charged rows only, then the columns' complex transforms; the potentials' inverse runs
//     the columns, then the rows' real transforms on the n rows wanted only (3/4 of a full 2-D
//     transform each way).
//   - The quadratic form sum_q c(q) (K * c)(q) comes from the spectra (Parseval), without an inverse.
// The plans are FFTW_ESTIMATE (picked by rule, not by timing: the same plan, hence the same bits, on
// every rank and every run) and, with the buffers, are kept while the grid's shape repeats. Calls for
// different channels may run on different threads at once (each channel has its own buffers).
#include <complex>
#include <memory>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

class GridConvolution {
 public:
  GridConvolution();
  ~GridConvolution();
  GridConvolution(const GridConvolution&) = delete;
  GridConvolution& operator=(const GridConvolution&) = delete;

  // Prepares for `kernels` kernels and `channels` charge channels on a dims-D grid (1 or 2) of
  // `nodes` (>= 2) nodes per dimension; keeps everything when the shape is the one already prepared.
  void reshape(int dims, Index nodes, int kernels, int channels);
  // Kernel k's values at node offsets (i, j) in [0, nodes)^dims (row-major): stores its spectrum.
  void set_kernel(int k, const double* offsets);
  // Channel c's charges, node q's at charges[q * stride] (nodes row-major): stores their spectrum.
  void set_charges(int c, const double* charges, Index stride);
  // sum over nodes q of charge_c(q) potential(q), the potential that convolve(k, c) would give.
  double quadratic_form(int k, int c) const;
  // potential[q * stride] = sum over nodes q' of kernel_k(q - q') charge_c(q'), for every node q.
  // Consumes channel c's spectrum (set_charges again before another convolution of c).
  void convolve(int k, int c, double* potential, Index stride);

 private:
  struct Plans;
  struct FftwDeleter {
    void operator()(void* memory) const;
  };
  template <typename T>
  using FftwArray = std::unique_ptr<T[], FftwDeleter>;
  // Kernel k's spectrum at frequency (f1, f2) of the circulant (f2 <= nodes).
  double kernel_at(const double* kernel, Index f1, Index f2) const {
    return kernel[(f1 <= nodes_ ? f1 : size_ - f1) * (nodes_ + 1) + f2];
  }

  int dims_ = 0;
  Index nodes_ = 0, size_ = 0, half_ = 0;  // n, 2n, n + 1 (the real transform's last dimension)
  std::unique_ptr<Plans> plans_;
  FftwArray<double> dct_;                                 // (n + 1)^dims
  std::vector<FftwArray<double>> reals_;                  // per channel: n x 2n (1-D: 2n)
  std::vector<FftwArray<std::complex<double>>> spectra_;  // per channel: 2n x (n + 1) (1-D: n + 1)
  std::vector<std::vector<double>> kernels_;              // real spectra at frequencies [0, n]^dims
};

}  // namespace gplvm
