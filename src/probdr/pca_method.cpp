// PCA (principal coordinates) as a ProbDR covariance moment: S_hat = Y_c Y_c^T / D, Y_c the data
// centred by its global column means, held as the factor F = Y_c / sqrt(D) and never formed
// (LowRankCovariance). Its eigenvalues are the squared singular values of Y_c over D, so the
// classical coordinates, the PCA scores U_l Sigma_l, are U_l (D Lambda_l)^{1/2}. The Wishart's
// degrees of freedom default to D: S_hat D = Y_c Y_c^T is then exactly the Wishart's statistic.
#include <cmath>
#include <memory>
#include <string>

#include "builtin_methods.hpp"
#include "method_inputs.hpp"

namespace gplvm {
namespace {

// F = (Y - 1 mu^T) / sqrt(D) for the global column means mu (one allreduce of D doubles).
RowMatrix centred_factor(const DataRef& local_data, std::uint64_t num_rows, const Communicator& comm) {
  Vector means = local_data.colwise().sum().transpose();
  comm.allreduce_sum(means.data(), means.size());
  means /= static_cast<double>(num_rows);
  RowMatrix factor = local_data.rowwise() - means.transpose();
  factor /= std::sqrt(static_cast<double>(local_data.cols()));
  return factor;
}

MomentEstimate estimate_pca(const DataRef& local_data, const ProbdrSettings& settings,
                            const Communicator& comm) {
  const RowPartition partition = checked_rows(local_data, comm);
  const auto width = static_cast<double>(local_data.cols());
  MomentEstimate moment;
  moment.form = MomentForm::covariance;
  moment.covariance =
      std::make_unique<LowRankCovariance>(comm, centred_factor(local_data, partition.num_rows(), comm));
  moment.degrees_of_freedom = degrees_of_freedom(settings, width);
  moment.classical = [width](const Matrix& vectors, const Vector& values) -> Matrix {
    return scaled_eigenvectors(vectors, values * width);  // U_l Sigma_l, the PCA scores
  };
  moment.description =
      "sample covariance Y_c Y_c^T / D of the column-centred data (D = " + std::to_string(local_data.cols()) +
      "), as its factor";
  return moment;
}

}  // namespace

ProbdrMethod pca_method() {
  ProbdrMethod m;
  m.name = "pca";
  m.summary = "principal component analysis: the centred data's Y Y^T / D as a covariance";
  m.form = MomentForm::covariance;
  m.estimate = estimate_pca;
  m.extend = [](const OutOfSampleInputs& in, const ProbdrSettings&, const Communicator& comm) {
    return extend_centred_rows(in, 1.0 / std::sqrt(static_cast<double>(in.training.cols())), comm);
  };
  m.extension = "projection onto the principal axes (the Nystrom extension of Y_c Y_c^T / D)";
  return m;
}

}  // namespace gplvm
