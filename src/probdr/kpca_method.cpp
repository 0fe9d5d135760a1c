// Kernel PCA as a ProbDR covariance moment: S_hat = H K H with K_ij = k(y_i, y_j) for the kernel
// probdr.kernel of the kernel registry (variance 1, lengthscale probdr.kernel_lengthscale, or
// sqrt(D / 2) when 0, which makes eq_ard scikit-learn's rbf with gamma = 1 / D). Classical
// coordinates: U_l Lambda_l^{1/2}, scikit-learn KernelPCA's transform of its training data.
//
//   exact (probdr.landmarks = 0): K's rows held densely (DenseRowCovariance), refused above
//     probdr.dense_limit rows;
//   Nystrom (probdr.landmarks = m > 0): m landmark rows Z drawn without replacement by a keyed
//     permutation of the row indices (seed train.seed), the same at every rank count, and
//     K ~ Phi Phi^T with Phi = K_nZ K_ZZ^{-1/2}, centred by its column means (H Phi): a
//     LowRankCovariance of m columns, an approximation, and named one in the description.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "builtin_methods.hpp"
#include "double_centring.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/keyed_permutation.hpp"
#include "gplvm/linalg/symmetric_eigen.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "method_inputs.hpp"

namespace gplvm {
namespace {

// K_ZZ's eigenvalues below this fraction of its largest are dropped from K_ZZ^{-1/2} (a
// pseudo-inverse): near-duplicate landmarks make K_ZZ singular to rounding.
constexpr double kNystromRcond = 1e-10;

double kernel_lengthscale(const ProbdrSettings& settings, Index width) {
  return settings.kernel_lengthscale > 0 ? settings.kernel_lengthscale
                                         : std::sqrt(static_cast<double>(width) / 2.0);
}

std::unique_ptr<Kernel> data_kernel(const ProbdrSettings& settings, Index width) {
  KernelInit init;
  init.variance = 1.0;
  init.lengthscale = kernel_lengthscale(settings, width);
  try {
    return make_kernel(settings.kernel, width, init);
  } catch (const InputError& e) {  // the registry names model.kernel; here the key is probdr.kernel
    throw InputError(e.reason(), {"", "probdr.kernel", settings.kernel});
  }
}

Matrix kernel_rows(const Kernel& kernel, const DataRef& rows, const DataRef& columns) {
  Matrix k;
  kernel.cross(Matrix(rows), Matrix(columns), k);
  return k;
}

std::unique_ptr<CovarianceOperator> exact_moment(const Kernel& kernel, const DataRef& local_data,
                                                 const Communicator& comm) {
  Matrix rows = kernel_rows(kernel, local_data, comm.allgather_rows(local_data));
  double_centre(rows, comm);
  return std::make_unique<DenseRowCovariance>(comm, std::move(rows));
}

// The landmark rows, in increasing global index, gathered to every rank.
RowMatrix landmark_rows(const DataRef& local_data, const RowPartition& partition, Index count,
                        std::uint64_t seed, const Communicator& comm) {
  const KeyedPermutation permutation(partition.num_rows(), seed, 0);
  std::vector<std::uint64_t> chosen(static_cast<std::size_t>(count));
  for (Index i = 0; i < count; ++i)
    chosen[static_cast<std::size_t>(i)] = permutation(static_cast<std::uint64_t>(i));
  std::sort(chosen.begin(), chosen.end());
  const std::uint64_t begin = partition.begin(comm.rank()), end = begin + partition.count(comm.rank());
  RowMatrix mine(0, local_data.cols());
  for (std::uint64_t row : chosen)
    if (row >= begin && row < end) {
      mine.conservativeResize(mine.rows() + 1, Eigen::NoChange);
      mine.row(mine.rows() - 1) = local_data.row(static_cast<Index>(row - begin));
    }
  return comm.allgather_rows(DataRef(mine));  // ranks hold consecutive blocks: still in index order
}

// (K_ZZ)^{-1/2} by its eigendecomposition, small eigenvalues dropped.
Matrix inverse_root(const Matrix& kzz) {
  const SymmetricEigenpairs pairs = largest_eigenpairs(kzz, kzz.rows(), "K_ZZ (Nystrom kernel PCA)");
  Vector scales = Vector::Zero(pairs.values.size());
  for (Index i = 0; i < scales.size(); ++i)
    if (pairs.values[i] > kNystromRcond * pairs.values[0]) scales[i] = 1.0 / std::sqrt(pairs.values[i]);
  return pairs.vectors * scales.asDiagonal() * pairs.vectors.transpose();
}

std::unique_ptr<CovarianceOperator> nystrom_moment(const Kernel& kernel, const DataRef& local_data,
                                                   const RowPartition& partition,
                                                   const ProbdrSettings& settings, const Communicator& comm) {
  const RowMatrix landmarks = landmark_rows(local_data, partition, settings.landmarks, settings.seed, comm);
  RowMatrix factor =
      kernel_rows(kernel, local_data, landmarks) * inverse_root(kernel_rows(kernel, landmarks, landmarks));
  // H K H ~ (H Phi)(H Phi)^T: centre Phi's columns by their global means.
  Vector means = factor.colwise().sum().transpose();
  comm.allreduce_sum(means.data(), means.size());
  factor.rowwise() -= (means / static_cast<double>(partition.num_rows())).transpose();
  return std::make_unique<LowRankCovariance>(comm, std::move(factor));
}

MomentEstimate estimate_kpca(const DataRef& local_data, const ProbdrSettings& settings,
                             const Communicator& comm) {
  const RowPartition partition = checked_rows(local_data, comm);
  const Index m = settings.landmarks;
  require(m >= 0 && static_cast<std::uint64_t>(m) <= partition.num_rows(),
          "probdr.landmarks must be between 0 (exact) and the number of rows (" +
              std::to_string(partition.num_rows()) + ")",
          {"", "probdr.landmarks", std::to_string(m)});
  if (m == 0) require_dense_limit(partition.num_rows(), settings, "exact kernel PCA");
  const std::unique_ptr<Kernel> kernel = data_kernel(settings, local_data.cols());
  MomentEstimate moment;
  moment.form = MomentForm::covariance;
  moment.covariance = m == 0 ? exact_moment(*kernel, local_data, comm)
                             : nystrom_moment(*kernel, local_data, partition, settings, comm);
  moment.degrees_of_freedom = degrees_of_freedom(settings, 1.0);
  moment.classical = scaled_eigenvectors;
  const std::string kernel_name = settings.kernel + " kernel, lengthscale " +
                                  std::to_string(kernel_lengthscale(settings, local_data.cols()));
  moment.description = m == 0 ? "centred kernel matrix H K H (" + kernel_name + "), exact, dense by rows"
                              : "Nystrom approximation of the centred kernel matrix H K H (" + kernel_name +
                                    ") from " + std::to_string(m) + " landmark rows (seed " +
                                    std::to_string(settings.seed) + "), as its factor";
  return moment;
}

// Exact: s*_i = k(y*, y_i) - kbar_i - kbar* + kbar, with kbar_i the training kernel's row means. The
// fitted columns of X are orthogonal to 1 (H K H's eigenvectors, or a fit kept off its null
// vector), so the terms constant in i drop out: s* X = sum_i k(y*, y_i) x_i - sum_i kbar_i x_i.
RowMatrix extend_exact(const Kernel& kernel, const OutOfSampleInputs& in, const Communicator& comm) {
  const CrossBlock cross = [&](const DataRef& slice) { return kernel_rows(kernel, slice, in.training); };
  const auto n = static_cast<double>(comm.allreduce_sum(static_cast<std::int64_t>(in.training.rows())));
  const Matrix ones = Matrix::Ones(in.training.rows(), 1);
  const Vector row_means = cross_times_latents(in.training, ones, cross, comm).col(0) / n;
  Vector offset = in.training_latents.transpose() * row_means;
  comm.allreduce_sum(offset.data(), offset.size());
  RowMatrix product = cross_times_latents(in.new_rows, in.training_latents, cross, comm);
  product.rowwise() -= offset.transpose();
  return product * covariance_extension_factor(latent_gram(in.training_latents, comm), in.noise);
}

// Nystrom: the new row's features phi* = k(y*, Z) K_ZZ^{-1/2}, centred by the training features'
// means, against the training factor: s* X = phi* ((H Phi)^T X).
RowMatrix extend_nystrom(const Kernel& kernel, const OutOfSampleInputs& in, const ProbdrSettings& settings,
                         const Communicator& comm) {
  const RowPartition partition = checked_rows(in.training, comm);
  const RowMatrix landmarks = landmark_rows(in.training, partition, settings.landmarks, settings.seed, comm);
  const Matrix root = inverse_root(kernel_rows(kernel, landmarks, landmarks));
  RowMatrix factor = kernel_rows(kernel, in.training, landmarks) * root;
  Vector means = factor.colwise().sum().transpose();
  comm.allreduce_sum(means.data(), means.size());
  means /= static_cast<double>(partition.num_rows());
  factor.rowwise() -= means.transpose();
  Matrix projected = factor.transpose() * in.training_latents;
  comm.allreduce_sum(projected);
  RowMatrix features = kernel_rows(kernel, in.new_rows, landmarks) * root;
  features.rowwise() -= means.transpose();
  return features * projected * covariance_extension_factor(latent_gram(in.training_latents, comm), in.noise);
}

RowMatrix extend_kpca(const OutOfSampleInputs& in, const ProbdrSettings& settings, const Communicator& comm) {
  const std::unique_ptr<Kernel> kernel = data_kernel(settings, in.training.cols());
  return settings.landmarks == 0 ? extend_exact(*kernel, in, comm)
                                 : extend_nystrom(*kernel, in, settings, comm);
}

}  // namespace

ProbdrMethod kpca_method() {
  ProbdrMethod m;
  m.name = "kpca";
  m.summary = "kernel PCA: the centred kernel matrix H K H (probdr.kernel) as a covariance";
  m.form = MomentForm::covariance;
  m.estimate = estimate_kpca;
  m.extend = extend_kpca;
  m.extension =
      "Nystrom: the new row's centred kernel against the training rows (with landmarks: its Nystrom "
      "features)";
  return m;
}

}  // namespace gplvm
