// Classical (Torgerson) multidimensional scaling as a ProbDR covariance moment:
//   S_hat = B = -1/2 H D2 H,   D2_ij = ||y_i - y_j||^2,
// held densely by rows (DenseRowCovariance): each rank forms its rows of D2 against all the data
// (allgathered: n D doubles, fine below probdr.dense_limit rows) and double-centres them in place.
// Classical coordinates: U_l Lambda_l^{1/2}, which the ProbDR optimum reproduces as the noise
// s2 -> 0 (fixed).
//
// PSD clipping. For Euclidean distances B = H Y Y^T H is positive semi-definite, so clipping its
// negative eigenvalues (the paper's S_hat^+) changes it only at rounding level. The closed form
// needs only the l largest eigenpairs, which clipping never changes; the estimated noise is the mean
// of the discarded eigenvalues of the unclipped B, (tr B - sum retained) / (n - l), and the fit is
// then exactly a stationary point of the Wishart objective on that same B.
#include <algorithm>
#include <memory>
#include <string>

#include "builtin_methods.hpp"
#include "double_centring.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/graph/squared_distances.hpp"
#include "method_inputs.hpp"

namespace gplvm {
namespace {

// This rank's rows of -1/2 H D2 H, formed in place. Column-major local x n storage is row-major
// n x local: the distances of every row to a tile of this rank's rows (D2 is symmetric, and each
// entry is the same bits either way round: graph/squared_distances.hpp) fill it tile by tile, the
// tile's transposed rows staying in cache.
Matrix centred_gram_rows(const DataRef& local_data, const Communicator& comm) {
  const RowMatrix all = comm.allgather_rows(local_data);
  const Vector all_norms = row_squared_norms(all), local_norms = row_squared_norms(local_data);
  const Index local = local_data.rows();
  Matrix rows(local, all.rows());
  advise_huge_pages(rows.data(), static_cast<std::size_t>(rows.size()) * sizeof(double));
  for (Index start = 0; start < local; start += kDistanceTileRows) {
    const Index count = std::min(kDistanceTileRows, local - start);
    squared_distances_into(all, all_norms, local_data.middleRows(start, count),
                           local_norms.segment(start, count), rows.data() + start, local);
  }
  rows *= -0.5;
  double_centre(rows, comm);
  return rows;
}

MomentEstimate estimate_cmds(const DataRef& local_data, const ProbdrSettings& settings,
                             const Communicator& comm) {
  require(settings.landmarks == 0,
          "classical MDS has no landmark approximation here: set probdr.landmarks = 0 (the exact moment)",
          {"", "probdr.landmarks", std::to_string(settings.landmarks)});
  const RowPartition partition = checked_rows(local_data, comm);
  require_dense_limit(partition.num_rows(), settings, "classical MDS");
  MomentEstimate moment;
  moment.form = MomentForm::covariance;
  moment.covariance = std::make_unique<DenseRowCovariance>(comm, centred_gram_rows(local_data, comm));
  moment.degrees_of_freedom = degrees_of_freedom(settings, 1.0);
  moment.classical = scaled_eigenvectors;
  moment.description = "double-centred squared Euclidean distances -1/2 H D2 H, exact, dense by rows";
  return moment;
}

}  // namespace

ProbdrMethod cmds_method() {
  ProbdrMethod m;
  m.name = "cmds";
  m.summary = "classical MDS: -1/2 H D2 H of the squared Euclidean distances as a covariance";
  m.form = MomentForm::covariance;
  m.estimate = estimate_cmds;
  // For Euclidean distances -1/2 H D2 H = Y_c Y_c^T, and the Nystrom (Gower) extension of a new
  // row's squared distances is its projection onto the principal axes.
  m.extend = [](const OutOfSampleInputs& in, const ProbdrSettings&, const Communicator& comm) {
    return extend_centred_rows(in, 1.0, comm);
  };
  m.extension = "Gower's formula (the Nystrom extension of -1/2 H D2 H): projection onto the principal axes";
  return m;
}

}  // namespace gplvm
