#include "gplvm/linalg/cholesky.hpp"

#include <atomic>
#include <sstream>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/linalg/lapack.hpp"
#include "gplvm/linalg/triangular_solve.hpp"

namespace gplvm {
namespace {

// dpotrf on the lower triangle; returns LAPACK's info (0, or the failing column, 1-based).
int potrf_lower(Matrix& a) {
  int n = static_cast<int>(a.rows()), lda = std::max(1, n), info = 0;
  char uplo = 'L';
  lapack::dpotrf_(&uplo, &n, a.data(), &lda, &info);
  return info;
}

// dpotrf overwrote only the lower triangle; the strict upper triangle still holds K.
void restore_lower_from_upper(Matrix& a, const Vector& diagonal, double jitter) {
  for (Index j = 0; j < a.cols(); ++j) {
    a(j, j) = diagonal[j] + jitter;
    for (Index i = j + 1; i < a.rows(); ++i) a(i, j) = a(j, i);
  }
}

std::string describe(const std::string& what, Index n) {
  std::ostringstream s;
  s << "Cholesky of " << what << " (" << n << "x" << n << ")";
  return s.str();
}

// What makes a GP's kernel matrix numerically singular, in the user's terms.
constexpr const char* kLikelyCauses =
    "the usual causes are data far from the scale of the kernel and noise variances (set them for the data's "
    "scale, or standardise the data), duplicate data rows, or more inducing inputs than the data support";

// The causes once per process: a run whose every step needs jitter should not repeat them per step.
std::string causes_once() {
  static std::atomic<bool> said{false};
  return said.exchange(true) ? "" : std::string("; ") + kLikelyCauses;
}

}  // namespace

double factorize_with_jitter(const CholeskyAttempt& attempt, const std::string& what, Index n,
                             double mean_diagonal, const CholeskyOptions& options, bool log_warnings) {
  Index info = attempt(0.0, false);
  if (info == 0) return 0.0;
  const Index first_failure = info;
  double jitter = 0.0;
  const double base = options.initial_relative_jitter * mean_diagonal;
  int tries = 0;
  for (; info > 0 && tries < options.max_jitter_tries; ++tries) {
    jitter = (tries == 0) ? base : jitter * options.growth;
    info = attempt(jitter, true);
  }
  if (info != 0) {
    std::ostringstream msg;
    msg << describe(what, n) << " failed: matrix not positive definite at column " << info;
    if (options.max_jitter_tries > 0)
      msg << " even with jitter " << jitter << " after " << options.max_jitter_tries << " escalations";
    msg << "; " << kLikelyCauses;
    throw NumericalError(msg.str());
  }
  if (log_warnings) {
    std::ostringstream msg;
    msg << describe(what, n) << " was not positive definite at column " << first_failure
        << "; it factorised with jitter " << jitter << " (" << tries << (tries == 1 ? " try" : " tries")
        << ")" << causes_once();
    log_warning(msg.str());
  }
  return jitter;
}

CholeskyFactor CholeskyFactor::factorize(Matrix K, const std::string& what, const CholeskyOptions& options) {
  if (K.rows() != K.cols())
    throw InputError(describe(what, K.rows()) + ": matrix is not square",
                     {"", "cols", std::to_string(K.cols())});
  if (!K.allFinite()) throw NumericalError(describe(what, K.rows()) + ": matrix has non-finite entries");
  const Vector diagonal = K.diagonal();
  const auto attempt = [&](double jitter, bool retry) -> Index {
    if (retry) restore_lower_from_upper(K, diagonal, jitter);
    return potrf_lower(K);
  };
  CholeskyFactor result;
  result.jitter_ = factorize_with_jitter(attempt, what, K.rows(), diagonal.mean(), options);
  result.factor_ = std::move(K);
  return result;
}

double CholeskyFactor::log_determinant() const {
  return 2.0 * factor_.diagonal().array().log().sum();
}

void CholeskyFactor::solve_in_place(MatrixRef B) const {
  solve_lower_triangular_in_place(factor_, B);
  solve_lower_transposed_in_place(factor_, B);
}

void CholeskyFactor::solve_lower_in_place(MatrixRef B) const {
  solve_lower_triangular_in_place(factor_, B);
}

void CholeskyFactor::solve_upper_in_place(MatrixRef B) const {
  solve_lower_transposed_in_place(factor_, B);
}

Matrix CholeskyFactor::inverse() const {
  Matrix inv = factor_;
  int n = static_cast<int>(inv.rows()), lda = std::max(1, n), info = 0;
  char uplo = 'L';
  lapack::dpotri_(&uplo, &n, inv.data(), &lda, &info);
  if (info != 0) throw NumericalError("dpotri failed with info " + std::to_string(info));
  inv.triangularView<Eigen::StrictlyUpper>() = inv.transpose();
  return inv;
}

}  // namespace gplvm
