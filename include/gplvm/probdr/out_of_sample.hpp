#pragma once
// The out-of-sample extension of a fitted ProbDR method (docs/math/probdr.md, section 10): latents
// of new rows y* from the training rows and their fitted latents X, without refitting.
//
// Covariance moments (Nystrom). With s* the new row's cross moment against the n training rows (the
// row S_hat would have with y* among them), x* = s* X (X^T X + s2 I)^{-1}: for the spectral fit,
// X = U (Lambda - s2 I)^{1/2}, this is u*_j = s* u_j / lambda_j scaled like column j, the Nystrom
// formula; written with X^T X + s2 I = R^T Lambda R it holds for any rotation X R of the optimum,
// so a gradient fit extends the same way. Diffusion maps extend one diffusion step,
// (X^T X + s2 I)^{-1/t}. Precision moments have their own formulas (Laplacian eigenmaps: the
// Nystrom formula of the similarity I - L; LLE: the new row's reconstruction weights).
//
// Everything here is collective; new rows are split over the ranks as RowPartition splits them,
// independently of the training rows.
#include <functional>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// What an extension is given: this rank's training rows and their latents, the fitted noise (s2 of
// a covariance moment, beta of a precision one) and this rank's new rows.
struct OutOfSampleInputs {
  DataRef training;
  ConstMatrixRef training_latents;
  double noise = 0.0;
  DataRef new_rows;
};

// A method's extension, set by its moment estimator on the training rows (MomentEstimate::extend).
using OutOfSampleExtension = std::function<RowMatrix(const OutOfSampleInputs&, const Communicator&)>;

// X^T X over every rank's rows (l x l, replicated).
Matrix latent_gram(const ConstMatrixRef& local_latents, const Communicator& comm);

// (G + s2 I)^{-1/power} by G's eigendecomposition (symmetric, G + s2 I positive definite).
Matrix covariance_extension_factor(const Matrix& gram, double noise, double power = 1.0);

// sum_i c(y*, y_i) x_i over every training row i, for this rank's new rows: `cross` gives the block
// c(new rows, this rank's training rows) for a slice of the new rows (every rank's new rows pass
// every rank, in slices of a bounded number of rows, so no n x m block is ever held).
using CrossBlock = std::function<Matrix(const DataRef& new_slice)>;
RowMatrix cross_times_latents(const DataRef& local_new, const ConstMatrixRef& local_training_latents,
                              const CrossBlock& cross, const Communicator& comm);

// The k nearest training rows of each of this rank's new rows, among every rank's training rows, by
// exact Euclidean distance (ties by the lower global index); neighbours hold global training rows.
KnnGraph training_neighbours(const DataRef& local_training, const DataRef& local_new, Index k,
                             const Communicator& comm);

// The extension of a covariance moment that is the Gram matrix of centred, scaled rows,
// S_hat = F F^T with F = scale (Y - 1 mu^T) and mu the training rows' column means (PCA, and
// classical MDS of Euclidean distances): s* = f* F^T with f* = scale (y* - mu), so x* = f* (F^T X)
// (X^T X + s2 I)^{-1}, the projection onto the principal axes.
RowMatrix extend_centred_rows(const OutOfSampleInputs& in, double scale, const Communicator& comm);

// Rows of the training latents by global index (fetched from their ranks).
RowMatrix training_rows(const ConstMatrixRef& local_rows, std::uint64_t num_rows, const IndexMatrix& indices,
                        const Communicator& comm);

}  // namespace gplvm
