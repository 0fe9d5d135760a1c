#pragma once
// The project's one MPI wrapper: RAII initialisation, typed collectives on double buffers and
// Eigen matrices, collective error agreement, and a count of the bytes each process sends
// through collectives (reported by the benchmarks as communication per step). Every collective's
// time is charged to the phase its caller named or, where none did, to `collectives`
// (core/phase_clock.hpp), so a run's breakdown shows communication without a profiler.
//
// MPI need not be running: serial tools (gplvm import) and serial tests use the I/O layer without
// MPI_Init. Then this process is the whole communicator (rank 0 of 1) and every collective is the
// identity, so the same code serves both.
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

// MPI_Init_thread (MPI_THREAD_FUNNELED: only the main thread calls MPI) on construction, if not yet
// initialised; MPI_Finalize on destruction, if it initialised.
class MpiEnvironment {
 public:
  MpiEnvironment(int* argc, char*** argv);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

 private:
  bool owns_ = false;
};

class Communicator {
 public:
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  bool is_root() const noexcept { return rank_ == 0; }
  MPI_Comm raw() const noexcept { return comm_; }
  // MPI is initialised (and not finalised): collectives are real, files may use MPI-IO.
  bool mpi_running() const noexcept { return mpi_running_; }

  void barrier() const;
  // In-place elementwise sum over all ranks.
  void allreduce_sum(double* data, Index count) const;
  void allreduce_sum(float* data, Index count) const;
  void allreduce_sum(MatrixRef m) const { allreduce_sum(m.data(), m.size()); }
  double allreduce_sum(double value) const;
  double allreduce_max(double value) const;
  void allreduce_max(double* data, Index count) const;  // in place, elementwise
  std::int64_t allreduce_sum(std::int64_t value) const;
  std::int64_t allreduce_min(std::int64_t value) const;
  std::int64_t allreduce_max(std::int64_t value) const;
  std::vector<std::int64_t> allgather(std::int64_t value) const;  // one value per rank, rank order
  // Collective validation: if any rank's `problem` is non-empty, every rank throws the same
  // InputError (the lowest failing rank's message, key naming what was checked), so no rank is
  // left waiting in a collective while another has thrown.
  void agree_on_problem(const std::string& problem, const std::string& key) const;
  // Collective: when any rank passes an exception, every rank throws the exception of the
  // lowest such rank (gplvm::InputError, NumericalError and Error keep their type and context),
  // marked agreed (Error::agreed), so that the job can end without aborting.
  void agree(std::exception_ptr local) const;
  // Runs f on every rank, then agrees on its outcome: checks whose outcome can differ between
  // ranks must not leave one rank throwing while the others enter a collective.
  template <class F>
  void all_or_none(F&& f) const {
    std::exception_ptr error;
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
    agree(error);
  }
  // Runs f on rank 0 only (file system work that must happen once), then agrees on its outcome.
  template <class F>
  void on_root(F&& f) const {
    all_or_none([&] {
      if (is_root()) f();
    });
  }
  // Collective: MPI_Comm_split into groups by `color` (ranks of one color form one communicator,
  // ordered by `key`, then by rank here). The new communicator is freed when its last copy goes;
  // every copy must be gone before MPI ends. Without MPI, this process alone (a copy of this one).
  Communicator split(int color, int key) const;
  // Ranks of this communicator that share this process's node (MPI_COMM_TYPE_SHARED).
  int ranks_on_node() const;
  void broadcast(double* data, Index count, int root = 0) const;
  std::string broadcast(const std::string& text, int root = 0) const;
  void broadcast_bytes(void* data, std::size_t bytes, int root = 0) const;
  // Point to point: `bytes` (at most INT_MAX) from this rank to `destination`, received in send
  // order by the matching receive_bytes there (for transfers to one rank in bounded pieces).
  void send_bytes(const void* data, std::size_t bytes, int destination, int tag = 0) const;
  void receive_bytes(void* data, std::size_t bytes, int source, int tag = 0) const;
  // MPI_Sendrecv of bytes: `send_bytes` to `destination` while `receive_bytes` arrive from
  // `source` (both at most INT_MAX), as one call so that a ring shift (every rank sending to the
  // next and receiving from the previous) cannot deadlock. Without MPI, destination and source are
  // this process: the send buffer is copied into the receive buffer.
  void sendrecv_bytes(const void* send, std::size_t send_bytes, int destination, void* receive,
                      std::size_t receive_bytes, int source, int tag = 0) const;
  // MPI_Alltoallv: counts and displacements in elements, one entry per rank.
  void alltoallv(const double* send, const std::vector<int>& send_counts, const std::vector<int>& send_displs,
                 double* receive, const std::vector<int>& receive_counts,
                 const std::vector<int>& receive_displs) const;
  void alltoallv(const float* send, const std::vector<int>& send_counts, const std::vector<int>& send_displs,
                 float* receive, const std::vector<int>& receive_counts,
                 const std::vector<int>& receive_displs) const;
  void alltoallv(const std::int64_t* send, const std::vector<int>& send_counts,
                 const std::vector<int>& send_displs, std::int64_t* receive,
                 const std::vector<int>& receive_counts, const std::vector<int>& receive_displs) const;
  // Concatenates every rank's vector (any length, possibly empty) in rank order.
  std::vector<std::int64_t> allgatherv(const std::vector<std::int64_t>& local) const;
  std::vector<double> allgatherv(const std::vector<double>& local) const;
  // Concatenates every rank's rows (same column count, any row count, possibly zero) in rank order.
  Matrix allgather_rows(const ConstMatrixRef& local) const;
  RowMatrix allgather_rows(const DataRef& local) const;
  // Concatenates every rank's columns (same row count, any column count, possibly zero) in rank
  // order: a column block of a column-major matrix is contiguous, so this is one allgatherv.
  Matrix allgather_columns(const ConstMatrixRef& local) const;
  // The same where every rank knows every rank's count (counts[r] rows or columns from rank r):
  // one allgatherv, without the allgather that would otherwise learn the counts.
  RowMatrix allgather_rows(const DataRef& local, const std::vector<int>& counts) const;
  Matrix allgather_columns(const ConstMatrixRef& local, const std::vector<int>& counts) const;

  // A buffer split into consecutive per-rank slices, counts[r] elements for rank r (every rank
  // passes the same counts). reduce_scatter_sum leaves in this rank's slice the elementwise sum of
  // that slice over all ranks, and the rest of the buffer as it was (this rank's own terms): half
  // the traffic of an allreduce, for a consumer that needs only its slice (sharded Adam).
  // allgather_slices is the inverse exchange: every rank's slice, copied into every rank's buffer.
  void reduce_scatter_sum(double* data, const std::vector<int>& counts) const;
  void reduce_scatter_sum(float* data, const std::vector<int>& counts) const;
  void allgather_slices(double* data, const std::vector<int>& counts) const;

  // Bytes this process has contributed to collectives since construction or the last reset; zero
  // on a single rank, where nothing leaves the process.
  std::uint64_t bytes_sent() const noexcept { return bytes_sent_; }
  void reset_byte_count() noexcept { bytes_sent_ = 0; }

 private:
  std::vector<int> gather_counts(int local_count) const;
  // MPI_Allreduce in place of `count` elements of `type` (a no-op on none or without MPI).
  void allreduce_in_place(void* data, Index count, MPI_Datatype type, MPI_Op op,
                          std::size_t element_bytes) const;
  // One allgatherv of every rank's block of whole units (rows of a row-major matrix, columns of a
  // column-major one: unit_length doubles each), units[r] from rank r, into `out` in rank order.
  template <typename Local>
  void allgather_units(const Local& local, bool contiguous, Index unit_length, const std::vector<int>& units,
                       double* out) const;
  // MPI_Allgatherv of doubles, counts[r] from rank r, concatenated in rank order into `receive`.
  void allgatherv(const double* send, const std::vector<int>& counts, double* receive) const;
  template <typename Scalar>
  std::vector<Scalar> allgatherv_of(const std::vector<Scalar>& local, MPI_Datatype type) const;
  template <typename Scalar>
  void alltoallv_of(const Scalar* send, const std::vector<int>& send_counts,
                    const std::vector<int>& send_displs, Scalar* receive,
                    const std::vector<int>& receive_counts, const std::vector<int>& receive_displs,
                    MPI_Datatype type) const;
  template <typename Scalar>
  void reduce_scatter_in_place(Scalar* data, const std::vector<int>& counts, MPI_Datatype type) const;
  void count_bytes(std::uint64_t bytes) const {
    if (size_ > 1) bytes_sent_ += bytes;
  }
  void check(int code, const char* what) const;

  MPI_Comm comm_;
  // Set on a communicator made by split(): frees it when the last copy is destroyed.
  std::shared_ptr<MPI_Comm> owned_;
  bool mpi_running_ = false;
  int rank_ = 0, size_ = 1;
  mutable std::uint64_t bytes_sent_ = 0;
};

}  // namespace gplvm
