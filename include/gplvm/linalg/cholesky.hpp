#pragma once
// The project's one Cholesky helper: LAPACK dpotrf with bounded jitter escalation.
//
// On failure it adds jitter = initial_relative_jitter * mean(diag K) to the diagonal and retries,
// multiplying the jitter by `growth` each time, at most `max_jitter_tries` times, logging a
// warning for each escalation. If every try fails it throws NumericalError naming the matrix
// (the caller's `what`), its size, the failing column and the last jitter tried.
#include <functional>
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm {

struct CholeskyOptions {
  double initial_relative_jitter = 1e-6;
  double growth = 10.0;
  int max_jitter_tries = 5;
};

// One attempt at factorising K + jitter I. `retry` is false on the first attempt (jitter 0, K as
// given) and true afterwards, when the failed attempt has overwritten K and the attempt must restore
// it first. Returns 0 on success, else the 1-based column at which the factorisation failed.
using CholeskyAttempt = std::function<Index(double jitter, bool retry)>;

// The jitter-escalation policy itself, shared by CholeskyFactor and the distributed (ScaLAPACK)
// factorisation so that both escalate, warn and fail identically: a plain attempt, then jitter
// initial_relative_jitter * mean_diagonal, times `growth` per retry, at most max_jitter_tries
// retries; a factorisation that needed jitter is one warning (unless log_warnings is false: a
// collective factorisation logs on one rank only) naming the jitter and the tries, with the likely
// causes the first time in the process; if all fail, NumericalError naming `what`, the n x n size,
// the failing column, the last jitter and the likely causes. Returns the jitter of the successful
// attempt (0 if the first).
double factorize_with_jitter(const CholeskyAttempt& attempt, const std::string& what, Index n,
                             double mean_diagonal, const CholeskyOptions& options = {},
                             bool log_warnings = true);

class CholeskyFactor {
 public:
  CholeskyFactor() = default;

  // Factorises the symmetric positive-definite K (both triangles must hold K). Takes K by value:
  // pass with std::move to factorise in place without a copy.
  static CholeskyFactor factorize(Matrix K, const std::string& what, const CholeskyOptions& options = {});

  Index size() const noexcept { return factor_.rows(); }
  // The lower-triangular L with K + jitter I = L L^T; the strict upper triangle holds K (untouched).
  const Matrix& storage() const noexcept { return factor_; }
  double jitter() const noexcept { return jitter_; }

  double log_determinant() const;                // log |K + jitter I|
  void solve_in_place(MatrixRef B) const;        // B <- (K + jitter I)^{-1} B
  void solve_lower_in_place(MatrixRef B) const;  // B <- L^{-1} B
  void solve_upper_in_place(MatrixRef B) const;  // B <- L^{-T} B
  Matrix inverse() const;                        // (K + jitter I)^{-1}, both triangles filled

 private:
  Matrix factor_;
  double jitter_ = 0.0;
};

}  // namespace gplvm
