#include "gplvm/probdr/spectral_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/objectives/wishart_precision.hpp"
#include "gplvm/parallel/column_signs.hpp"
#include "gplvm/petsc/petsc_error.hpp"
#include "gplvm/petsc/shell_matrix.hpp"
#include "gplvm/probdr/petsc_covariance.hpp"
#include "gplvm/probdr/petsc_precision.hpp"

namespace gplvm {
namespace {

constexpr const char* kLatentDimKey = "model.latent_dim";
constexpr int kPowerSteps = 8;
constexpr const char* kEigensolverKey = "probdr.eigensolver";
// The shift's distance outside the spectrum, relative to ||A||: small enough that the wanted
// eigenvalues, relative to the shift, stay apart (a 10^6-point Laplacian's smallest are near 1e-5
// ||A||), large enough that A - sigma I stays well conditioned for the factorisation (1e6).
constexpr double kShiftMargin = 1e-6;
// The automatic Krylov subspace (probdr.eigensolver_subspace = 0) of a sparse matrix: SLEPc's
// default up to this many rows and under shift-and-invert, which separates the wanted eigenvalues
// anyway; beyond it, this many vectors more than the eigenpairs wanted. Diffusion maps of 10^6 rows
// in 50 dimensions (the leading eigenvalues of M clustered below 1) had not converged after 500
// restarts of the default 17-vector subspace. Operators with dense products (kpca, cmds, isomap)
// keep the default: there a product costs more than the subspace's orthogonalisation.
constexpr Index kSmallProblemRows = 10000;
constexpr Index kLargeSubspaceExtra = 64;

// The extreme eigenpairs a closed form needs, this rank's rows of their vectors.
struct Spectrum {
  Vector values;
  Matrix local_vectors;
  double trace = 0.0;  // of the moment (S_hat or Gamma_hat, without gamma)
  Index iterations = 0;
  std::string route;
};

using Product = std::function<Matrix(const ConstMatrixRef&)>;

void require_latent_dim(Index latent_dim, Index null_vectors, Index n) {
  require(latent_dim >= 1 && latent_dim + null_vectors < n,
          "the latent dimension l must satisfy 1 <= l and l + " + std::to_string(null_vectors) +
              " (the null vectors dropped) < n = " + std::to_string(n),
          {"", kLatentDimKey, std::to_string(latent_dim)});
}

std::int64_t first_row_of(Index local_rows, const Communicator& comm) {
  const std::vector<std::int64_t> counts = comm.allgather(static_cast<std::int64_t>(local_rows));
  std::int64_t first = 0;
  for (int r = 0; r < comm.rank(); ++r) first += counts[r];
  return first;
}

// ||M||_2 from below by a few power steps: SLEPc's convergence scale (petsc/shell_matrix.hpp), for
// which a small factor does not matter. The start vector is a function of the global row index, so
// the estimate is the same at every rank count up to rounding.
double power_norm(const Product& product, Index local_rows, const Communicator& comm) {
  const std::int64_t first = first_row_of(local_rows, comm);
  Vector v(local_rows);
  for (Index i = 0; i < local_rows; ++i) v[i] = 1.5 + std::cos(0.618 * static_cast<double>(first + i));
  v /= std::sqrt(comm.allreduce_sum(v.squaredNorm()));
  double estimate = 0.0;
  for (int step = 0; step < kPowerSteps; ++step) {
    const Vector w = product(v).col(0);
    const double norm = std::sqrt(comm.allreduce_sum(w.squaredNorm()));
    if (!(norm > 0)) break;
    estimate = std::max(estimate, norm);
    v = w / norm;
  }
  return estimate > 0 ? estimate : 1.0;
}

bool shift_invert_wanted(const SpectralFitOptions& options) {
  return options.route != EigenRoute::krylov_schur;
}

void refuse_shift_invert(const SpectralFitOptions& options, const std::string& why) {
  require(options.route != EigenRoute::shift_invert, "shift_invert needs " + why + "; use krylov_schur",
          {"", kEigensolverKey, "shift_invert"});
}

double infinity_norm(Mat matrix) {
  PetscReal norm = 0;
  check_petsc(MatNorm(matrix, NORM_INFINITY, &norm), "MatNorm");
  return norm;
}

// `eigen` with its subspace chosen (probdr.eigensolver_subspace; SparseEigenOptions::subspace).
SparseEigenOptions with_subspace(SparseEigenOptions eigen, const SpectralFitOptions& options, Index n,
                                 bool sparse_products) {
  if (options.subspace > 0) {
    eigen.subspace = options.subspace;
  } else if (sparse_products && !eigen.shift && n > kSmallProblemRows) {
    eigen.subspace = std::min(n, std::max(2 * eigen.count, eigen.count + kLargeSubspaceExtra));
  }
  return eigen;
}

Index global_rows(Mat matrix) {
  PetscInt rows = 0;
  check_petsc(MatGetSize(matrix, &rows, nullptr), "MatGetSize");
  return static_cast<Index>(rows);
}

std::string route_name(const SparseEigenOptions& eigen) {
  if (!eigen.shift) return "Krylov-Schur (SLEPc)";
  char shift[32];
  std::snprintf(shift, sizeof shift, "%.10g", *eigen.shift);
  return std::string("Krylov-Schur, shift-and-invert about ") + shift + " (SLEPc, MUMPS)";
}

// A sparse moment's eigenpairs by the route `eigen` names. Under probdr.eigensolver = auto a failed
// shift-and-invert factorisation falls back to plain Krylov-Schur with a warning: the fill of a
// high-dimensional k-NN graph can exceed the memory (MUMPS asked for 20 GB per rank on 10^6 rows in 50
// dimensions, INFOG(1) = -13). MUMPS's status is global, so every rank fails alike; the fallback is
// agreed over the ranks all the same.
SparseEigenpairs sparse_eigenpairs(Mat matrix, SparseEigenOptions eigen, const SpectralFitOptions& options,
                                   const Communicator& comm, std::string& route) {
  route = route_name(eigen);
  const Index n = global_rows(matrix);
  if (!eigen.shift || options.route == EigenRoute::shift_invert)
    return symmetric_eigenpairs(matrix, with_subspace(eigen, options, n, true), comm);
  std::string failure;
  SparseEigenpairs pairs;
  try {
    pairs = symmetric_eigenpairs(matrix, with_subspace(eigen, options, n, true), comm);
  } catch (const Error& e) {
    failure = e.what();
  }
  if (comm.allreduce_max(static_cast<std::int64_t>(failure.empty() ? 0 : 1)) == 0) return pairs;
  if (comm.is_root())
    log_warning(
        "shift-and-invert failed" + (failure.empty() ? std::string() : " (" + failure + ")") +
        "; solving by Krylov-Schur instead (probdr.eigensolver = krylov_schur skips the factorisation)");
  eigen.shift.reset();
  route = route_name(eigen) + ", after shift-and-invert failed";
  return symmetric_eigenpairs(matrix, with_subspace(eigen, options, n, true), comm);
}

// Krylov-Schur on a shell matrix whose product is the operator's.
// sparse_products: a product costs O(n k) (a PETSc matrix behind the operator), so a larger
// subspace is cheap (with_subspace).
SparseEigenpairs operator_eigenpairs(const Product& product, Index local_rows, Index n,
                                     const SparseEigenOptions& eigen, const SpectralFitOptions& options,
                                     bool sparse_products, const Communicator& comm,
                                     std::optional<double> norm_bound = std::nullopt) {
  const double norm = norm_bound && *norm_bound > 0 ? *norm_bound : power_norm(product, local_rows, comm);
  const MatHandle shell = shell_matrix(
      local_rows, n, [&product](const ConstVectorRef& in, VectorRef out) { out = product(in).col(0); }, norm,
      comm);
  return symmetric_eigenpairs(shell.get(), with_subspace(eigen, options, n, sparse_products), comm);
}

SparseEigenOptions eigen_options(Index count, SpectrumEnd end, const SpectralFitOptions& options) {
  SparseEigenOptions eigen;
  eigen.count = count;
  eigen.end = end;
  eigen.tolerance = options.tolerance;
  eigen.progress = options.progress;
  return eigen;
}

// The l largest of S_hat: a factor's through its d x d Gram, any other operator's by Krylov-Schur.
Spectrum largest_of(const CovarianceOperator& covariance, const SpectralFitOptions& options,
                    const Communicator& comm) {
  const Index l = options.latent_dim;
  if (const auto* low_rank = dynamic_cast<const LowRankCovariance*>(&covariance)) {
    refuse_shift_invert(options, "a sparse covariance matrix with a known largest eigenvalue (dmaps)");
    FactorEigenpairs pairs = factor_eigenpairs(comm, low_rank->local_factor(), l);
    // The Krylov route's sign convention, so that both routes give the same vectors.
    fix_column_signs(pairs.local_vectors, first_row_of(covariance.local_rows(), comm), comm);
    return {pairs.values, pairs.local_vectors, pairs.trace, 0,
            "dense eigendecomposition of the factor's Gram"};
  }
  const double trace = comm.allreduce_sum(covariance.local_trace());
  SparseEigenOptions eigen = eigen_options(l, SpectrumEnd::largest, options);
  const auto* sparse = dynamic_cast<const PetscMatrixCovariance*>(&covariance);
  if (!sparse || !sparse->spectrum_top()) {
    refuse_shift_invert(options, "a sparse covariance matrix with a known largest eigenvalue (dmaps)");
  } else if (shift_invert_wanted(options)) {
    // A's eigenpairs after v's (v v^T is A's top eigenpair, removed from S_hat): S_hat's largest.
    const double top = *sparse->spectrum_top();
    eigen.shift = top + kShiftMargin * std::max(std::abs(top), infinity_norm(sparse->matrix()));
    if (sparse->deflated()) eigen.local_deflation = sparse->local_deflation();
    std::string route;
    const SparseEigenpairs pairs = sparse_eigenpairs(sparse->matrix(), eigen, options, comm, route);
    return {pairs.values, pairs.local_vectors, trace, pairs.iterations, route};
  }
  const Product product = [&covariance](const ConstMatrixRef& x) { return covariance.apply(x); };
  // A dense moment's Frobenius norm bounds ||S_hat||_2 from above for one pass over its rows, where
  // the power steps would take eight products (n^2 / P each); for the quickly decaying spectra of
  // kernel and distance matrices the two are close.
  std::optional<double> norm_bound;
  if (const auto* dense = dynamic_cast<const DenseRowCovariance*>(&covariance))
    norm_bound = std::sqrt(comm.allreduce_sum(dense->local_block().squaredNorm()));
  const SparseEigenpairs pairs = operator_eigenpairs(product, covariance.local_rows(), covariance.num_rows(),
                                                     eigen, options, sparse != nullptr, comm, norm_bound);
  return {pairs.values, pairs.local_vectors, trace, pairs.iterations, route_name(eigen)};
}

// The `count` smallest of Gamma_hat: a PETSc matrix's directly, any other operator's through a shell.
Spectrum smallest_of(const PrecisionOperator& precision, Index count, const SpectralFitOptions& options,
                     const Communicator& comm) {
  SparseEigenOptions eigen = eigen_options(count, SpectrumEnd::smallest, options);
  const double trace = comm.allreduce_sum(precision.local_trace());
  if (const auto* sparse = dynamic_cast<const PetscMatrixPrecision*>(&precision)) {
    // Gamma_hat is positive semi-definite: a shift just below 0 keeps Gamma_hat - sigma I definite.
    if (shift_invert_wanted(options)) eigen.shift = -kShiftMargin * infinity_norm(sparse->matrix());
    std::string route;
    const SparseEigenpairs pairs = sparse_eigenpairs(sparse->matrix(), eigen, options, comm, route);
    return {pairs.values, pairs.local_vectors, trace, pairs.iterations, route};
  }
  refuse_shift_invert(options, "a sparse precision matrix (le)");
  const Product product = [&precision](const ConstMatrixRef& x) { return precision.apply(x); };
  const SparseEigenpairs pairs =
      operator_eigenpairs(product, precision.local_rows(), precision.num_rows(), eigen, options, false, comm);
  return {pairs.values, pairs.local_vectors, trace, pairs.iterations, route_name(eigen)};
}

Matrix classical_of(const MomentEstimate& moment, const Matrix& vectors, const Vector& values) {
  return moment.classical ? moment.classical(vectors, values) : vectors;
}

SpectralFit covariance_fit(const MomentEstimate& moment, const SpectralFitOptions& options,
                           const Communicator& comm) {
  const CovarianceOperator& covariance = *moment.covariance;
  const Index n = covariance.num_rows();
  require_latent_dim(options.latent_dim, 0, n);
  const Spectrum spectrum = largest_of(covariance, options, comm);
  const CovarianceClosedForm closed =
      covariance_closed_form(spectrum.values, spectrum.trace, n, options.noise);
  SpectralFit fit;
  fit.optimum.noise = closed.noise;
  fit.optimum.eigenvalues = spectrum.values;
  fit.optimum.latents = spectrum.local_vectors * closed.scales.asDiagonal();
  fit.classical = classical_of(moment, spectrum.local_vectors, spectrum.values);
  fit.trace = spectrum.trace;
  fit.iterations = spectrum.iterations;
  fit.eigensolver = spectrum.route;
  return fit;
}

void require_regularisation(double gamma, Index null_vectors) {
  require(std::isfinite(gamma) && gamma >= 0, "the precision regularisation gamma must be finite and >= 0",
          {"", kPrecisionRegularisationKey, std::to_string(gamma)});
  // With a null vector the objective has no minimum at gamma = 0 (docs/math/probdr.md, section 3).
  require(null_vectors == 0 || gamma > 0,
          "a precision moment with a null vector needs a regularisation gamma > 0: the Wishart precision "
          "objective is unbounded below without it",
          {"", kPrecisionRegularisationKey, std::to_string(gamma)});
}

SpectralFit precision_fit(const MomentEstimate& moment, const SpectralFitOptions& options,
                          const Communicator& comm) {
  const PrecisionOperator& precision = *moment.precision;
  const Index n = precision.num_rows(), l = options.latent_dim, nulls = moment.null_vectors;
  const double gamma = options.regularisation;
  require_regularisation(gamma, nulls);
  require_latent_dim(l, nulls, n);
  const Spectrum spectrum = smallest_of(precision, l + nulls, options, comm);

  SpectralFit fit;
  fit.trace = spectrum.trace + static_cast<double>(n) * gamma;
  fit.dropped = spectrum.values.head(nulls).array() + gamma;
  const Vector retained = spectrum.values.tail(l).array() + gamma;
  require(retained[0] > kNullVectorTolerance * fit.trace / static_cast<double>(n),
          "Gamma_hat + gamma I has a null vector among the retained (eigenvalue " +
              std::to_string(retained[0]) +
              "): the Wishart precision objective is unbounded below; increase the regularisation gamma",
          {"", kPrecisionRegularisationKey, std::to_string(gamma)});
  const Matrix vectors = spectrum.local_vectors.rightCols(l);
  const PrecisionClosedForm closed = precision_closed_form(retained, fit.trace, n, options.noise);
  fit.optimum.noise = closed.noise;
  fit.optimum.eigenvalues = retained;
  fit.optimum.latents = vectors * closed.scales.asDiagonal();
  fit.classical = classical_of(moment, vectors, spectrum.values.tail(l));
  fit.iterations = spectrum.iterations;
  fit.eigensolver = spectrum.route;
  return fit;
}

}  // namespace

SpectralFit spectral_fit(const MomentEstimate& moment, const SpectralFitOptions& options,
                         const Communicator& comm) {
  const bool covariance = moment.form == MomentForm::covariance;
  require(covariance ? moment.covariance != nullptr : moment.precision != nullptr,
          "the moment estimate lacks the operator its form names", {"", "probdr.method", moment.description});
  return covariance ? covariance_fit(moment, options, comm) : precision_fit(moment, options, comm);
}

}  // namespace gplvm
