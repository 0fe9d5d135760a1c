#include "gplvm/parallel/communicator.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/phase_clock.hpp"

namespace gplvm {
namespace {

bool mpi_is_running() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  return initialised && !finalised;
}

// An exception flattened into what another rank needs to throw the same one.
enum class ErrorKind : int { error = 1, input = 2, numerical = 3 };

struct FlatError {
  ErrorKind kind = ErrorKind::error;
  std::array<std::string, 4> text;  // reason, file, key, value
};

FlatError flatten(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    const ErrorKind kind = dynamic_cast<const InputError*>(&e)       ? ErrorKind::input
                           : dynamic_cast<const NumericalError*>(&e) ? ErrorKind::numerical
                                                                     : ErrorKind::error;
    const ErrorContext& c = e.context();
    return {kind, {e.reason(), c.file, c.key, c.value}};
  } catch (const std::exception& e) {
    return {ErrorKind::error, {e.what(), "", "", ""}};
  } catch (...) {
    return {ErrorKind::error, {"unknown error", "", "", ""}};
  }
}

template <class E>
[[noreturn]] void throw_agreed(E error) {
  error.mark_agreed();
  throw error;
}

[[noreturn]] void raise_agreed(const FlatError& flat) {
  ErrorContext context{flat.text[1], flat.text[2], flat.text[3]};
  switch (flat.kind) {
    case ErrorKind::input:
      throw_agreed(InputError(flat.text[0], std::move(context)));
    case ErrorKind::numerical:
      throw_agreed(NumericalError(flat.text[0], std::move(context)));
    default:
      throw_agreed(Error(flat.text[0], std::move(context)));
  }
}

// Where each rank's slice starts in a buffer of consecutive per-rank slices.
std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  return offsets;
}

}  // namespace

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    // Funneled: a rank's threads (core/threads.hpp) never call MPI; only the thread that
    // initialised it does, outside parallel regions.
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    owns_ = true;
    if (provided < MPI_THREAD_FUNNELED)
      log_warning(
          "this MPI library supports no threads beside MPI's (MPI_THREAD_SINGLE); run with "
          "OMP_NUM_THREADS=1");
  }
}

MpiEnvironment::~MpiEnvironment() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (owns_ && !finalised) MPI_Finalize();
}

Communicator::Communicator(MPI_Comm comm) : comm_(comm), mpi_running_(mpi_is_running()) {
  if (!mpi_running_) return;
  check(MPI_Comm_rank(comm_, &rank_), "rank");
  check(MPI_Comm_size(comm_, &size_), "size");
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
  const ScopedCollective timed;
  if (mpi_running_) check(MPI_Barrier(comm_), "barrier");
}

void Communicator::allreduce_in_place(void* data, Index count, MPI_Datatype type, MPI_Op op,
                                      std::size_t element_bytes) const {
  const ScopedCollective timed;
  if (count == 0 || !mpi_running_) return;
  check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), type, op, comm_), "allreduce");
  count_bytes(static_cast<std::uint64_t>(count) * element_bytes);
}

void Communicator::allreduce_sum(double* data, Index count) const {
  allreduce_in_place(data, count, MPI_DOUBLE, MPI_SUM, sizeof(double));
}

void Communicator::allreduce_sum(float* data, Index count) const {
  allreduce_in_place(data, count, MPI_FLOAT, MPI_SUM, sizeof(float));
}

double Communicator::allreduce_sum(double value) const {
  allreduce_sum(&value, 1);
  return value;
}

double Communicator::allreduce_max(double value) const {
  allreduce_in_place(&value, 1, MPI_DOUBLE, MPI_MAX, sizeof(double));
  return value;
}

void Communicator::allreduce_max(double* data, Index count) const {
  allreduce_in_place(data, count, MPI_DOUBLE, MPI_MAX, sizeof(double));
}

std::int64_t Communicator::allreduce_sum(std::int64_t value) const {
  allreduce_in_place(&value, 1, MPI_INT64_T, MPI_SUM, sizeof(value));
  return value;
}

std::int64_t Communicator::allreduce_min(std::int64_t value) const {
  allreduce_in_place(&value, 1, MPI_INT64_T, MPI_MIN, sizeof(value));
  return value;
}

std::int64_t Communicator::allreduce_max(std::int64_t value) const {
  allreduce_in_place(&value, 1, MPI_INT64_T, MPI_MAX, sizeof(value));
  return value;
}

std::vector<std::int64_t> Communicator::allgather(std::int64_t value) const {
  const ScopedCollective timed;
  std::vector<std::int64_t> all(size_, value);
  if (!mpi_running_) return all;
  check(MPI_Allgather(&value, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm_), "allgather");
  count_bytes(sizeof(value));
  return all;
}

void Communicator::agree_on_problem(const std::string& problem, const std::string& key) const {
  agree(problem.empty()
            ? nullptr
            : std::make_exception_ptr(InputError(problem, {"", key, "rank " + std::to_string(rank_)})));
}

void Communicator::agree(std::exception_ptr local) const {
  if (size_ == 1) {
    if (local) std::rethrow_exception(local);
    return;
  }
  const std::int64_t failing = allreduce_min(local ? rank_ : size_);
  if (failing == size_) return;
  const int root = static_cast<int>(failing);
  if (rank_ == root) {
    // Send the details first, then throw the original object (its exact type is kept here).
    const FlatError flat = flatten(local);
    int kind = static_cast<int>(flat.kind);
    broadcast_bytes(&kind, sizeof kind, root);
    for (const std::string& s : flat.text) broadcast(s, root);
    try {
      std::rethrow_exception(local);
    } catch (Error& e) {
      e.mark_agreed();
      throw;
    } catch (...) {
      raise_agreed(flat);  // what the other ranks throw, so that every rank ends alike
    }
  }
  FlatError flat;
  int kind = 0;
  broadcast_bytes(&kind, sizeof kind, root);
  flat.kind = static_cast<ErrorKind>(kind);
  for (std::string& s : flat.text) s = broadcast(s, root);
  raise_agreed(flat);
}

Communicator Communicator::split(int color, int key) const {
  if (!mpi_running_) return *this;
  MPI_Comm part = MPI_COMM_NULL;
  check(MPI_Comm_split(comm_, color, key, &part), "comm_split");
  Communicator result(part);
  result.owned_ = std::shared_ptr<MPI_Comm>(new MPI_Comm(part), [](MPI_Comm* c) {
    // MPI may already have ended when a communicator outlives it by mistake: then nothing is freed.
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(c);
    delete c;
  });
  return result;
}

int Communicator::ranks_on_node() const {
  if (!mpi_running_) return 1;
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "comm_split_type");
  int count = 1;
  MPI_Comm_size(node, &count);
  MPI_Comm_free(&node);
  return count;
}

void Communicator::broadcast(double* data, Index count, int root) const {
  const ScopedCollective timed;
  if (!mpi_running_) return;
  check(MPI_Bcast(data, static_cast<int>(count), MPI_DOUBLE, root, comm_), "broadcast");
  if (rank_ == root) count_bytes(static_cast<std::uint64_t>(count) * sizeof(double));
}

std::string Communicator::broadcast(const std::string& text, int root) const {
  const ScopedCollective timed;
  if (!mpi_running_) return text;
  std::uint64_t length = text.size();
  check(MPI_Bcast(&length, 1, MPI_UINT64_T, root, comm_), "broadcast");
  std::string out = rank_ == root ? text : std::string(length, '\0');
  check(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, root, comm_), "broadcast");
  if (rank_ == root) count_bytes(sizeof(length) + length);
  return out;
}

void Communicator::broadcast_bytes(void* data, std::size_t bytes, int root) const {
  const ScopedCollective timed;
  if (!mpi_running_ || size_ == 1 || bytes == 0) return;
  check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_), "broadcast");
  if (rank_ == root) count_bytes(bytes);
}

void Communicator::send_bytes(const void* data, std::size_t bytes, int destination, int tag) const {
  const ScopedCollective timed;
  if (!mpi_running_ || bytes == 0) return;
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("message of " + std::to_string(bytes) + " bytes exceeds MPI's count limit");
  check(MPI_Send(data, static_cast<int>(bytes), MPI_BYTE, destination, tag, comm_), "send");
  count_bytes(bytes);
}

void Communicator::receive_bytes(void* data, std::size_t bytes, int source, int tag) const {
  const ScopedCollective timed;
  if (!mpi_running_ || bytes == 0) return;
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("message of " + std::to_string(bytes) + " bytes exceeds MPI's count limit");
  check(MPI_Recv(data, static_cast<int>(bytes), MPI_BYTE, source, tag, comm_, MPI_STATUS_IGNORE), "receive");
}

void Communicator::sendrecv_bytes(const void* send, std::size_t send_bytes, int destination, void* receive,
                                  std::size_t receive_bytes, int source, int tag) const {
  const ScopedCollective timed;
  constexpr auto limit = static_cast<std::size_t>(std::numeric_limits<int>::max());
  if (send_bytes > limit || receive_bytes > limit)
    throw Error("message of " + std::to_string(std::max(send_bytes, receive_bytes)) +
                " bytes exceeds MPI's count limit");
  if (!mpi_running_ || size_ == 1) {  // this process sends to itself
    if (send_bytes != receive_bytes) throw Error("sendrecv to this rank with different sizes");
    if (send_bytes > 0) std::memmove(receive, send, send_bytes);
    return;
  }
  check(MPI_Sendrecv(send, static_cast<int>(send_bytes), MPI_BYTE, destination, tag, receive,
                     static_cast<int>(receive_bytes), MPI_BYTE, source, tag, comm_, MPI_STATUS_IGNORE),
        "sendrecv");
  if (destination != rank_) count_bytes(send_bytes);
}

void Communicator::alltoallv(const std::int64_t* send, const std::vector<int>& send_counts,
                             const std::vector<int>& send_displs, std::int64_t* receive,
                             const std::vector<int>& receive_counts,
                             const std::vector<int>& receive_displs) const {
  alltoallv_of(send, send_counts, send_displs, receive, receive_counts, receive_displs, MPI_INT64_T);
}

template <typename Scalar>
std::vector<Scalar> Communicator::allgatherv_of(const std::vector<Scalar>& local, MPI_Datatype type) const {
  const ScopedCollective timed;
  if (!mpi_running_ || size_ == 1) return local;
  const std::vector<int> counts = gather_counts(static_cast<int>(local.size()));
  const std::vector<int> offsets = offsets_of(counts);
  std::vector<Scalar> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  check(MPI_Allgatherv(local.data(), counts[rank_], type, all.data(), counts.data(), offsets.data(), type,
                       comm_),
        "allgatherv");
  count_bytes(local.size() * sizeof(Scalar));
  return all;
}

std::vector<std::int64_t> Communicator::allgatherv(const std::vector<std::int64_t>& local) const {
  return allgatherv_of(local, MPI_INT64_T);
}

std::vector<double> Communicator::allgatherv(const std::vector<double>& local) const {
  return allgatherv_of(local, MPI_DOUBLE);
}

void Communicator::alltoallv(const double* send, const std::vector<int>& send_counts,
                             const std::vector<int>& send_displs, double* receive,
                             const std::vector<int>& receive_counts,
                             const std::vector<int>& receive_displs) const {
  alltoallv_of(send, send_counts, send_displs, receive, receive_counts, receive_displs, MPI_DOUBLE);
}

void Communicator::alltoallv(const float* send, const std::vector<int>& send_counts,
                             const std::vector<int>& send_displs, float* receive,
                             const std::vector<int>& receive_counts,
                             const std::vector<int>& receive_displs) const {
  alltoallv_of(send, send_counts, send_displs, receive, receive_counts, receive_displs, MPI_FLOAT);
}

template <typename Scalar>
void Communicator::alltoallv_of(const Scalar* send, const std::vector<int>& send_counts,
                                const std::vector<int>& send_displs, Scalar* receive,
                                const std::vector<int>& receive_counts,
                                const std::vector<int>& receive_displs, MPI_Datatype type) const {
  const ScopedCollective timed;
  if (!mpi_running_) {  // the whole exchange is this process's block to itself
    std::copy_n(send + send_displs[0], send_counts[0], receive + receive_displs[0]);
    return;
  }
  check(MPI_Alltoallv(send, send_counts.data(), send_displs.data(), type, receive, receive_counts.data(),
                      receive_displs.data(), type, comm_),
        "alltoallv");
  std::uint64_t sent = 0;
  for (int r = 0; r < size_; ++r)
    if (r != rank_) sent += static_cast<std::uint64_t>(send_counts[r]);
  count_bytes(sent * sizeof(Scalar));
}

std::vector<int> Communicator::gather_counts(int local_count) const {
  const ScopedCollective timed;
  std::vector<int> counts(size_, local_count);
  if (mpi_running_)
    check(MPI_Allgather(&local_count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_), "allgather");
  return counts;
}

void Communicator::allgatherv(const double* send, const std::vector<int>& counts, double* receive) const {
  const ScopedCollective timed;
  const std::vector<int> offsets = offsets_of(counts);
  check(MPI_Allgatherv(send, counts[rank_], MPI_DOUBLE, receive, counts.data(), offsets.data(), MPI_DOUBLE,
                       comm_),
        "allgatherv");
  count_bytes(static_cast<std::uint64_t>(counts[rank_]) * sizeof(double));
}

RowMatrix Communicator::allgather_rows(const DataRef& local) const {
  if (!mpi_running_ || size_ == 1) return local;
  return allgather_rows(local, gather_counts(static_cast<int>(local.rows())));
}

template <typename Local>
void Communicator::allgather_units(const Local& local, bool contiguous, Index unit_length,
                                   const std::vector<int>& units, double* out) const {
  std::vector<int> counts(size_);
  for (int r = 0; r < size_; ++r) counts[r] = units[r] * static_cast<int>(unit_length);
  if (contiguous) {
    allgatherv(local.data(), counts, out);
  } else {  // a Ref may have an outer stride: pack the block first
    const typename Local::PlainObject packed = local;
    allgatherv(packed.data(), counts, out);
  }
}

RowMatrix Communicator::allgather_rows(const DataRef& local, const std::vector<int>& rows) const {
  require(static_cast<int>(rows.size()) == size_ && rows[rank_] == local.rows(),
          "allgather_rows: the counts do not match this rank's rows",
          {"", "rows", std::to_string(local.rows())});
  if (!mpi_running_ || size_ == 1) return local;
  // Row-major rows are contiguous, so the gather is one allgatherv of doubles.
  RowMatrix out(std::accumulate(rows.begin(), rows.end(), 0), local.cols());
  allgather_units(local, local.outerStride() == local.cols() || local.rows() <= 1, local.cols(), rows,
                  out.data());
  return out;
}

Matrix Communicator::allgather_columns(const ConstMatrixRef& local) const {
  if (!mpi_running_ || size_ == 1) return local;
  return allgather_columns(local, gather_counts(static_cast<int>(local.cols())));
}

Matrix Communicator::allgather_columns(const ConstMatrixRef& local, const std::vector<int>& cols) const {
  require(static_cast<int>(cols.size()) == size_ && cols[rank_] == local.cols(),
          "allgather_columns: the counts do not match this rank's columns",
          {"", "columns", std::to_string(local.cols())});
  if (!mpi_running_ || size_ == 1) return local;
  // Column-major columns are contiguous, so this too is one allgatherv of doubles.
  Matrix out(local.rows(), std::accumulate(cols.begin(), cols.end(), 0));
  allgather_units(local, local.outerStride() == local.rows() || local.cols() <= 1, local.rows(), cols,
                  out.data());
  return out;
}

template <typename Scalar>
void Communicator::reduce_scatter_in_place(Scalar* data, const std::vector<int>& counts,
                                           MPI_Datatype type) const {
  const ScopedCollective timed;
  require(static_cast<int>(counts.size()) == size_, "reduce_scatter_sum needs one count per rank",
          {"", "counts", std::to_string(counts.size())});
  if (!mpi_running_ || size_ == 1) return;
  // MPI_IN_PLACE would put this rank's result at the start of the buffer, not at its slice, so the
  // slice is received into scratch and copied back.
  const int offset = offsets_of(counts)[rank_];
  std::vector<Scalar> slice(static_cast<std::size_t>(counts[rank_]));
  check(MPI_Reduce_scatter(data, slice.data(), counts.data(), type, MPI_SUM, comm_), "reduce_scatter");
  std::copy(slice.begin(), slice.end(), data + offset);
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  count_bytes(static_cast<std::uint64_t>(total - counts[rank_]) * sizeof(Scalar));
}

void Communicator::reduce_scatter_sum(double* data, const std::vector<int>& counts) const {
  reduce_scatter_in_place(data, counts, MPI_DOUBLE);
}

void Communicator::reduce_scatter_sum(float* data, const std::vector<int>& counts) const {
  reduce_scatter_in_place(data, counts, MPI_FLOAT);
}

void Communicator::allgather_slices(double* data, const std::vector<int>& counts) const {
  const ScopedCollective timed;
  require(static_cast<int>(counts.size()) == size_, "allgather_slices needs one count per rank",
          {"", "counts", std::to_string(counts.size())});
  if (!mpi_running_ || size_ == 1) return;
  const std::vector<int> offsets = offsets_of(counts);
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, counts.data(), offsets.data(), MPI_DOUBLE,
                       comm_),
        "allgatherv");
  count_bytes(static_cast<std::uint64_t>(counts[rank_]) * sizeof(double));
}

Matrix Communicator::allgather_rows(const ConstMatrixRef& local) const {
  const RowMatrix rows = local;
  return allgather_rows(DataRef(rows));
}

}  // namespace gplvm
