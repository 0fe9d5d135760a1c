#include "gplvm/probdr/out_of_sample.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/linalg/symmetric_eigen.hpp"
#include "gplvm/parallel/remote_rows.hpp"

namespace gplvm {
namespace {

// New rows travel in slices of at most this many, so that a rank holds a (slice x its training
// rows) block, never (new rows x training rows).
constexpr Index kSliceRows = 1024;

std::vector<std::int64_t> rows_per_rank(Index local_rows, const Communicator& comm) {
  return comm.allgatherv(std::vector<std::int64_t>{static_cast<std::int64_t>(local_rows)});
}

std::uint64_t first_row_of(const std::vector<std::int64_t>& counts, int rank) {
  std::uint64_t first = 0;
  for (int r = 0; r < rank; ++r) first += static_cast<std::uint64_t>(counts[r]);
  return first;
}

// Calls visit(root, begin, slice) for every slice of every rank's new rows, on every rank, the slice
// broadcast from its owner (`begin`: its first row among the owner's rows).
template <typename Visit>
void for_each_new_slice(const DataRef& local_new, const Communicator& comm, Visit&& visit) {
  const std::vector<std::int64_t> counts = rows_per_rank(local_new.rows(), comm);
  const Index width = comm.allreduce_max(static_cast<std::int64_t>(local_new.cols()));
  for (int root = 0; root < comm.size(); ++root)
    for (Index begin = 0; begin < counts[root]; begin += kSliceRows) {
      const Index rows = std::min<Index>(kSliceRows, counts[root] - begin);
      RowMatrix slice(rows, width);
      if (comm.rank() == root) slice = local_new.middleRows(begin, rows);
      comm.broadcast(slice.data(), slice.size(), root);
      visit(root, begin, DataRef(slice));
    }
}

struct Candidate {
  double distance;
  std::int64_t index;
  bool operator<(const Candidate& other) const {
    return distance < other.distance || (distance == other.distance && index < other.index);
  }
};

}  // namespace

Matrix latent_gram(const ConstMatrixRef& local_latents, const Communicator& comm) {
  Matrix gram = local_latents.transpose() * local_latents;
  comm.allreduce_sum(gram);
  return gram;
}

Matrix covariance_extension_factor(const Matrix& gram, double noise, double power) {
  Matrix shifted = gram;
  shifted.diagonal().array() += noise;
  const SymmetricEigenpairs pairs = largest_eigenpairs(shifted, shifted.rows(), "X^T X + s2 I");
  require(pairs.values.minCoeff() > 0.0,
          "the fitted latents and noise give a singular X^T X + s2 I: the run cannot extend to new rows",
          {"", "probdr.fixed_noise", std::to_string(noise)});
  const Vector scales = pairs.values.array().pow(-1.0 / power);
  return pairs.vectors * scales.asDiagonal() * pairs.vectors.transpose();
}

RowMatrix cross_times_latents(const DataRef& local_new, const ConstMatrixRef& local_training_latents,
                              const CrossBlock& cross, const Communicator& comm) {
  const Index l = comm.allreduce_max(static_cast<std::int64_t>(local_training_latents.cols()));
  RowMatrix out(local_new.rows(), l);
  for_each_new_slice(local_new, comm, [&](int root, Index begin, const DataRef& slice) {
    Matrix partial = local_training_latents.rows() > 0 ? Matrix(cross(slice) * local_training_latents)
                                                       : Matrix(Matrix::Zero(slice.rows(), l));
    comm.allreduce_sum(partial);
    if (comm.rank() == root) out.middleRows(begin, slice.rows()) = partial;
  });
  return out;
}

KnnGraph training_neighbours(const DataRef& local_training, const DataRef& local_new, Index k,
                             const Communicator& comm) {
  const std::vector<std::int64_t> training_counts = rows_per_rank(local_training.rows(), comm);
  std::int64_t num_training = 0;
  for (std::int64_t c : training_counts) num_training += c;
  require(k >= 1 && k <= num_training,
          "needs 1 <= k <= the number of training rows (" + std::to_string(num_training) + ")",
          {"", "graph.k", std::to_string(k)});
  const std::uint64_t first = first_row_of(training_counts, comm.rank());
  const Index local_k = std::min<Index>(k, local_training.rows());

  KnnGraph out;
  out.num_rows = static_cast<std::uint64_t>(num_training);
  out.first_row = 0;
  out.k = k;
  out.neighbours.resize(local_new.rows(), k);
  out.distances.resize(local_new.rows(), k);
  for_each_new_slice(local_new, comm, [&](int root, Index begin, const DataRef& slice) {
    // This rank's candidates for every row of the slice: local_k of them, padded to k with
    // infinitely far ones, so every rank sends the same count.
    std::vector<double> distances(static_cast<std::size_t>(slice.rows() * k),
                                  std::numeric_limits<double>::infinity());
    std::vector<std::int64_t> indices(static_cast<std::size_t>(slice.rows() * k), -1);
    if (local_k > 0) {
      const KnnGraph mine = query_neighbours(local_training, slice, local_k, "graph.k");
      for (Index i = 0; i < slice.rows(); ++i)
        for (Index t = 0; t < local_k; ++t) {
          distances[static_cast<std::size_t>(i * k + t)] = mine.distances(i, t);
          indices[static_cast<std::size_t>(i * k + t)] =
              mine.neighbours(i, t) + static_cast<std::int64_t>(first);
        }
    }
    const std::vector<double> all_distances = comm.allgatherv(distances);
    const std::vector<std::int64_t> all_indices = comm.allgatherv(indices);
    if (comm.rank() != root) return;
    const std::size_t per_rank = distances.size();
    for (Index i = 0; i < slice.rows(); ++i) {
      std::vector<Candidate> candidates;
      for (int r = 0; r < comm.size(); ++r)
        for (Index t = 0; t < k; ++t) {
          const std::size_t at = static_cast<std::size_t>(r) * per_rank + static_cast<std::size_t>(i * k + t);
          if (all_indices[at] >= 0) candidates.push_back({all_distances[at], all_indices[at]});
        }
      std::partial_sort(candidates.begin(), candidates.begin() + k, candidates.end());
      for (Index t = 0; t < k; ++t) {
        out.neighbours(begin + i, t) = candidates[static_cast<std::size_t>(t)].index;
        out.distances(begin + i, t) = candidates[static_cast<std::size_t>(t)].distance;
      }
    }
  });
  return out;
}

RowMatrix extend_centred_rows(const OutOfSampleInputs& in, double scale, const Communicator& comm) {
  const auto n = static_cast<double>(comm.allreduce_sum(static_cast<std::int64_t>(in.training.rows())));
  Vector means = in.training.colwise().sum().transpose();
  comm.allreduce_sum(means.data(), means.size());
  means /= n;
  const RowMatrix factor = scale * (in.training.rowwise() - means.transpose());
  Matrix projected = factor.transpose() * in.training_latents;  // F^T X, D x l
  comm.allreduce_sum(projected);
  const RowMatrix centred_new = scale * (in.new_rows.rowwise() - means.transpose());
  const Matrix gram = latent_gram(in.training_latents, comm);
  return centred_new * projected * covariance_extension_factor(gram, in.noise);
}

RowMatrix training_rows(const ConstMatrixRef& local_rows, std::uint64_t num_rows, const IndexMatrix& indices,
                        const Communicator& comm) {
  const std::vector<std::int64_t> wanted(indices.data(), indices.data() + indices.size());
  const RowMatrix local = local_rows;
  return fetch_rows(DataRef(local), num_rows, wanted, comm);
}

}  // namespace gplvm
