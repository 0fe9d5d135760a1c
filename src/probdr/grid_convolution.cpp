#include "grid_convolution.hpp"

#include <fftw3.h>

#include <algorithm>
#include <mutex>
#include <new>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// FFTW's planner is not thread-safe (its executors are).
std::mutex& planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

template <typename T>
T* fftw_array(Index count) {
  void* memory = fftw_malloc(sizeof(T) * static_cast<std::size_t>(std::max<Index>(count, 1)));
  if (memory == nullptr) throw std::bad_alloc();
  return static_cast<T*>(memory);
}

fftw_complex* as_fftw(std::complex<double>* z) {
  return reinterpret_cast<fftw_complex*>(z);
}

}  // namespace

void GridConvolution::FftwDeleter::operator()(void* memory) const {
  fftw_free(memory);
}

struct GridConvolution::Plans {
  fftw_plan dct = nullptr;           // the kernels' DCT-I, in place
  fftw_plan rows_forward = nullptr;  // 1-D: the whole transform
  fftw_plan columns_forward = nullptr, columns_backward = nullptr;
  fftw_plan rows_backward = nullptr;  // 1-D: the whole inverse
  ~Plans() {
    const std::lock_guard<std::mutex> lock(planner_mutex());
    for (fftw_plan plan : {dct, rows_forward, columns_forward, columns_backward, rows_backward})
      if (plan) fftw_destroy_plan(plan);
  }
};

GridConvolution::GridConvolution() = default;
GridConvolution::~GridConvolution() = default;

void GridConvolution::reshape(int dims, Index nodes, int kernels, int channels) {
  if (dims == dims_ && nodes == nodes_ && static_cast<int>(kernels_.size()) == kernels &&
      static_cast<int>(spectra_.size()) == channels)
    return;
  require((dims == 1 || dims == 2) && nodes >= 2 && kernels >= 1 && channels >= 1,
          "the grid convolution needs a 1-D or 2-D grid of at least 2 nodes per dimension");
  plans_.reset();
  dims_ = dims;
  nodes_ = nodes;
  size_ = 2 * nodes;
  half_ = nodes + 1;
  const Index n = nodes_, m = size_, h = half_;
  const Index corner = dims == 1 ? h : h * h;
  dct_.reset(fftw_array<double>(corner));
  reals_.clear();
  spectra_.clear();
  for (int c = 0; c < channels; ++c) {
    reals_.emplace_back(fftw_array<double>(dims == 1 ? m : n * m));
    spectra_.emplace_back(fftw_array<std::complex<double>>(dims == 1 ? h : m * h));
  }
  kernels_.assign(static_cast<std::size_t>(kernels), std::vector<double>(static_cast<std::size_t>(corner)));

  auto plans = std::make_unique<Plans>();
  double* real = reals_[0].get();
  fftw_complex* spectrum = as_fftw(spectra_[0].get());
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), hi = static_cast<int>(h);
  {
    const std::lock_guard<std::mutex> lock(planner_mutex());
    if (dims == 1) {
      plans->dct = fftw_plan_r2r_1d(hi, dct_.get(), dct_.get(), FFTW_REDFT00, FFTW_ESTIMATE);
      plans->rows_forward = fftw_plan_dft_r2c_1d(mi, real, spectrum, FFTW_ESTIMATE);
      plans->rows_backward = fftw_plan_dft_c2r_1d(mi, spectrum, real, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
    } else {
      plans->dct =
          fftw_plan_r2r_2d(hi, hi, dct_.get(), dct_.get(), FFTW_REDFT00, FFTW_REDFT00, FFTW_ESTIMATE);
      // Rows: n real rows of length 2n, each to n + 1 frequencies (rows of `spectrum`, h apart).
      plans->rows_forward =
          fftw_plan_many_dft_r2c(1, &mi, ni, real, nullptr, 1, mi, spectrum, nullptr, 1, hi, FFTW_ESTIMATE);
      plans->rows_backward = fftw_plan_many_dft_c2r(1, &mi, ni, spectrum, nullptr, 1, hi, real, nullptr, 1,
                                                    mi, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
      // Columns: h complex columns of length 2n, in place (elements h apart, columns 1 apart).
      plans->columns_forward = fftw_plan_many_dft(1, &mi, hi, spectrum, nullptr, hi, 1, spectrum, nullptr, hi,
                                                  1, FFTW_FORWARD, FFTW_ESTIMATE);
      plans->columns_backward = fftw_plan_many_dft(1, &mi, hi, spectrum, nullptr, hi, 1, spectrum, nullptr,
                                                   hi, 1, FFTW_BACKWARD, FFTW_ESTIMATE);
    }
  }
  if (!plans->dct || !plans->rows_forward || !plans->rows_backward ||
      (dims == 2 && (!plans->columns_forward || !plans->columns_backward)))
    throw Error("FFTW could not plan the grid convolution");
  plans_ = std::move(plans);
}

void GridConvolution::set_kernel(int k, const double* offsets) {
  const Index n = nodes_, h = half_;
  double* corner = dct_.get();
  if (dims_ == 1) {
    std::copy_n(offsets, n, corner);
    corner[n] = 0.0;
  } else {
    for (Index i = 0; i < n; ++i) {
      std::copy_n(offsets + i * n, n, corner + i * h);
      corner[i * h + n] = 0.0;
    }
    std::fill_n(corner + n * h, h, 0.0);
  }
  fftw_execute_r2r(plans_->dct, corner, corner);
  // The DCT-I of the offsets 0..n is the circulant's (real) spectrum at frequencies 0..n; the
  // inverse transform's 1 / (2n)^dims is folded in.
  const double scale = 1.0 / (dims_ == 1 ? static_cast<double>(size_) : static_cast<double>(size_ * size_));
  std::vector<double>& spectrum = kernels_[static_cast<std::size_t>(k)];
  for (std::size_t f = 0; f < spectrum.size(); ++f) spectrum[f] = corner[f] * scale;
}

void GridConvolution::set_charges(int c, const double* charges, Index stride) {
  const Index n = nodes_, m = size_, h = half_;
  double* real = reals_[static_cast<std::size_t>(c)].get();
  std::complex<double>* spectrum = spectra_[static_cast<std::size_t>(c)].get();
  if (dims_ == 1) {
    for (Index i = 0; i < n; ++i) real[i] = charges[i * stride];
    std::fill(real + n, real + m, 0.0);
    fftw_execute_dft_r2c(plans_->rows_forward, real, as_fftw(spectrum));
    return;
  }
  for (Index i = 0; i < n; ++i) {
    double* row = real + i * m;
    const double* source = charges + i * n * stride;
    for (Index j = 0; j < n; ++j) row[j] = source[j * stride];
    std::fill(row + n, row + m, 0.0);
  }
  fftw_execute_dft_r2c(plans_->rows_forward, real, as_fftw(spectrum));
  std::fill(spectrum + n * h, spectrum + m * h, std::complex<double>(0.0, 0.0));  // the uncharged rows
  fftw_execute_dft(plans_->columns_forward, as_fftw(spectrum), as_fftw(spectrum));
}

double GridConvolution::quadratic_form(int k, int c) const {
  // Parseval over the circulant: (1 / (2n)^dims) sum_f K(f) |C(f)|^2, the real transform's frequencies
  // 1..n-1 of the last dimension standing for themselves and their conjugates.
  const double* kernel = kernels_[static_cast<std::size_t>(k)].data();
  const std::complex<double>* spectrum = spectra_[static_cast<std::size_t>(c)].get();
  const Index rows = dims_ == 1 ? 1 : size_;
  double sum = 0.0;
  for (Index f1 = 0; f1 < rows; ++f1) {
    const std::complex<double>* row = spectrum + f1 * half_;
    for (Index f2 = 0; f2 < half_; ++f2) {
      const double weight = f2 == 0 || f2 == nodes_ ? 1.0 : 2.0;
      sum += weight * (dims_ == 1 ? kernel[f2] : kernel_at(kernel, f1, f2)) * std::norm(row[f2]);
    }
  }
  return sum;
}

void GridConvolution::convolve(int k, int c, double* potential, Index stride) {
  const Index n = nodes_, m = size_, h = half_;
  const double* kernel = kernels_[static_cast<std::size_t>(k)].data();
  double* real = reals_[static_cast<std::size_t>(c)].get();
  std::complex<double>* spectrum = spectra_[static_cast<std::size_t>(c)].get();
  if (dims_ == 1) {
    for (Index f = 0; f < h; ++f) spectrum[f] *= kernel[f];
    fftw_execute_dft_c2r(plans_->rows_backward, as_fftw(spectrum), real);
    for (Index i = 0; i < n; ++i) potential[i * stride] = real[i];
    return;
  }
  for (Index f1 = 0; f1 < m; ++f1) {
    const double* kernel_row = kernel + (f1 <= n ? f1 : m - f1) * h;
    std::complex<double>* row = spectrum + f1 * h;
    for (Index f2 = 0; f2 < h; ++f2) row[f2] *= kernel_row[f2];
  }
  fftw_execute_dft(plans_->columns_backward, as_fftw(spectrum), as_fftw(spectrum));
  fftw_execute_dft_c2r(plans_->rows_backward, as_fftw(spectrum), real);  // the first n rows only
  for (Index i = 0; i < n; ++i) {
    const double* row = real + i * m;
    double* target = potential + i * n * stride;
    for (Index j = 0; j < n; ++j) target[j * stride] = row[j];
  }
}

}  // namespace gplvm
