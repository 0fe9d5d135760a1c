#include "gplvm/objectives/sparse_statistics.hpp"

#include <algorithm>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// Rows converted from float32 at a time: bounds the double copy to a few hundred KiB.
constexpr Index kConvertRows = 256;

void require_matching_rows(const PsiStatistics& psi, Index data_rows) {
  require(psi.psi1.rows() == data_rows, "Psi-statistics and data have different numbers of rows",
          {"", "rows", std::to_string(psi.psi1.rows()) + " vs " + std::to_string(data_rows)});
  require(psi.psi2.rows() == psi.psi1.cols() && psi.psi2.cols() == psi.psi1.cols(),
          "Psi2 is not M x M for the M columns of Psi1", {"", "psi2", std::to_string(psi.psi2.rows())});
}

SparseStatistics statistics_without_data(const PsiStatistics& psi, Index data_rows, Index data_dim) {
  require_matching_rows(psi, data_rows);
  SparseStatistics s;
  s.psi0 = psi.psi0;
  s.psi2 = psi.psi2;
  s.num_rows = static_cast<double>(data_rows);
  s.psi1_data.resize(psi.psi1.cols(), data_dim);
  return s;
}

}  // namespace

SparseStatistics SparseStatistics::zero(Index num_inducing, Index data_dim) {
  SparseStatistics s;
  s.psi1_data = Matrix::Zero(num_inducing, data_dim);
  s.psi2 = Matrix::Zero(num_inducing, num_inducing);
  return s;
}

SparseStatistics& SparseStatistics::operator+=(const SparseStatistics& other) {
  require(other.num_inducing() == num_inducing() && other.data_dim() == data_dim(),
          "adding sparse statistics of different shapes", {"", "shape"});
  psi0 += other.psi0;
  psi1_data += other.psi1_data;
  psi2 += other.psi2;
  data_norm += other.data_norm;
  num_rows += other.num_rows;
  kl += other.kl;
  return *this;
}

SparseStatistics& SparseStatistics::scale(double factor) {
  psi0 *= factor;
  psi1_data *= factor;
  psi2 *= factor;
  data_norm *= factor;
  num_rows *= factor;
  kl *= factor;
  return *this;
}

Index SparseStatistics::packed_size() const {
  return psi1_data.size() + psi2.size() + 4;
}

void SparseStatistics::pack(double* buffer) const {
  buffer = std::copy_n(psi1_data.data(), psi1_data.size(), buffer);
  buffer = std::copy_n(psi2.data(), psi2.size(), buffer);
  buffer[0] = psi0;
  buffer[1] = data_norm;
  buffer[2] = num_rows;
  buffer[3] = kl;
}

void SparseStatistics::unpack(const double* buffer) {
  std::copy_n(buffer, psi1_data.size(), psi1_data.data());
  buffer += psi1_data.size();
  std::copy_n(buffer, psi2.size(), psi2.data());
  buffer += psi2.size();
  psi0 = buffer[0];
  data_norm = buffer[1];
  num_rows = buffer[2];
  kl = buffer[3];
}

void SparseStatistics::allreduce(const Communicator& comm) {
  if (comm.size() == 1) return;
  std::vector<double> buffer(static_cast<size_t>(packed_size()));
  pack(buffer.data());
  comm.allreduce_sum(buffer.data(), packed_size());
  unpack(buffer.data());
}

StatisticsAdjoint StatisticsAdjoint::scaled(double factor) const {
  StatisticsAdjoint a;
  a.d_psi0 = factor * d_psi0;
  a.d_psi1_data = factor * d_psi1_data;
  a.d_psi2 = factor * d_psi2;
  a.d_data_norm = factor * d_data_norm;
  a.d_kl = factor * d_kl;
  return a;
}

SparseStatistics sparse_statistics(const PsiStatistics& psi, const DataRef& Y_local) {
  SparseStatistics s = statistics_without_data(psi, Y_local.rows(), Y_local.cols());
  s.psi1_data.noalias() = psi.psi1.transpose() * Y_local;
  s.data_norm = Y_local.squaredNorm();
  return s;
}

SparseStatistics sparse_statistics(const PsiStatistics& psi, const DataRefF& Y_local) {
  SparseStatistics s = statistics_without_data(psi, Y_local.rows(), Y_local.cols());
  s.psi1_data.setZero();
  RowMatrix block;
  for (Index first = 0; first < Y_local.rows(); first += kConvertRows) {
    const Index rows = std::min(kConvertRows, Y_local.rows() - first);
    block = Y_local.middleRows(first, rows).cast<double>();
    s.psi1_data.noalias() += psi.psi1.middleRows(first, rows).transpose() * block;
    s.data_norm += block.squaredNorm();
  }
  return s;
}

Matrix psi1_adjoint(const StatisticsAdjoint& adjoint, const DataRef& Y_local) {
  return Y_local * adjoint.d_psi1_data.transpose();
}

Matrix psi1_adjoint(const StatisticsAdjoint& adjoint, const DataRefF& Y_local) {
  Matrix out(Y_local.rows(), adjoint.d_psi1_data.rows());
  RowMatrix block;
  for (Index first = 0; first < Y_local.rows(); first += kConvertRows) {
    const Index rows = std::min(kConvertRows, Y_local.rows() - first);
    block = Y_local.middleRows(first, rows).cast<double>();
    out.middleRows(first, rows).noalias() = block * adjoint.d_psi1_data.transpose();
  }
  return out;
}

}  // namespace gplvm
