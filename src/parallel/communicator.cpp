#include "gplvm/parallel/communicator.hpp"

#include <numeric>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    MPI_Init(argc, argv);
    owns_ = true;
  }
}

MpiEnvironment::~MpiEnvironment() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (owns_ && !finalised) MPI_Finalize();
}

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  // Errors come back as codes and become exceptions, rather than aborting inside MPI.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}

void Communicator::check(int code, const char* what) const {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string("MPI ") + what + " failed on rank " + std::to_string(rank_) + ": " +
              std::string(text, length));
}

void Communicator::barrier() const {
  check(MPI_Barrier(comm_), "barrier");
}

void Communicator::allreduce_sum(double* data, Index count) const {
  if (count == 0) return;
  check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_DOUBLE, MPI_SUM, comm_), "allreduce");
  count_bytes(static_cast<std::uint64_t>(count) * sizeof(double));
}

double Communicator::allreduce_sum(double value) const {
  allreduce_sum(&value, 1);
  return value;
}

double Communicator::allreduce_max(double value) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, comm_), "allreduce");
  count_bytes(sizeof(double));
  return value;
}

std::int64_t Communicator::allreduce_sum(std::int64_t value) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, comm_), "allreduce");
  count_bytes(sizeof(value));
  return value;
}

std::int64_t Communicator::allreduce_min(std::int64_t value) const {
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_MIN, comm_), "allreduce");
  count_bytes(sizeof(value));
  return value;
}

void Communicator::agree_on_problem(const std::string& problem, const std::string& key) const {
  const std::int64_t first = allreduce_min(problem.empty() ? size_ : rank_);
  if (first == size_) return;
  throw InputError(broadcast(problem, static_cast<int>(first)), {"", key, "rank " + std::to_string(first)});
}

int Communicator::ranks_on_node() const {
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "comm_split_type");
  int count = 1;
  MPI_Comm_size(node, &count);
  MPI_Comm_free(&node);
  return count;
}

void Communicator::broadcast(double* data, Index count, int root) const {
  check(MPI_Bcast(data, static_cast<int>(count), MPI_DOUBLE, root, comm_), "broadcast");
  if (rank_ == root) count_bytes(static_cast<std::uint64_t>(count) * sizeof(double));
}

std::string Communicator::broadcast(const std::string& text, int root) const {
  std::uint64_t length = text.size();
  check(MPI_Bcast(&length, 1, MPI_UINT64_T, root, comm_), "broadcast");
  std::string out = rank_ == root ? text : std::string(length, '\0');
  check(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, root, comm_), "broadcast");
  if (rank_ == root) count_bytes(sizeof(length) + length);
  return out;
}

void Communicator::alltoallv(const double* send, const std::vector<int>& send_counts,
                             const std::vector<int>& send_displs, double* receive,
                             const std::vector<int>& receive_counts,
                             const std::vector<int>& receive_displs) const {
  check(MPI_Alltoallv(send, send_counts.data(), send_displs.data(), MPI_DOUBLE, receive,
                      receive_counts.data(), receive_displs.data(), MPI_DOUBLE, comm_),
        "alltoallv");
  std::uint64_t sent = 0;
  for (int r = 0; r < size_; ++r)
    if (r != rank_) sent += static_cast<std::uint64_t>(send_counts[r]);
  count_bytes(sent * sizeof(double));
}

std::vector<int> Communicator::gather_counts(int local_count) const {
  std::vector<int> counts(size_);
  check(MPI_Allgather(&local_count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_), "allgather");
  return counts;
}

RowMatrix Communicator::allgather_rows(const DataRef& local) const {
  // Row-major rows are contiguous, so the gather is one allgatherv of doubles.
  const Index cols = local.cols();
  const std::vector<int> rows = gather_counts(static_cast<int>(local.rows()));
  std::vector<int> counts(size_), offsets(size_);
  for (int r = 0; r < size_; ++r) counts[r] = rows[r] * static_cast<int>(cols);
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  RowMatrix out(std::accumulate(rows.begin(), rows.end(), 0), cols);
  const RowMatrix contiguous = local;  // a Ref may have an outer stride
  check(MPI_Allgatherv(contiguous.data(), counts[rank_], MPI_DOUBLE, out.data(), counts.data(),
                       offsets.data(), MPI_DOUBLE, comm_),
        "allgatherv");
  count_bytes(static_cast<std::uint64_t>(counts[rank_]) * sizeof(double));
  return out;
}

Matrix Communicator::allgather_rows(const ConstMatrixRef& local) const {
  const RowMatrix rows = local;
  return allgather_rows(DataRef(rows));
}

}  // namespace gplvm
