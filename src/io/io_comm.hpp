#pragma once
// Internal to src/io: the I/O layer's view of its communicator.
//
// Parallel HDF5 needs MPI only for files opened with the MPI-IO driver, and the serial tools
// (gplvm import) and serial tests run without MPI_Init. Without MPI this process is the whole
// "communicator" and every collective below is the identity, so the same code serves both.
//
// The other job here is keeping ranks in step on errors: a rank that throws while the others go
// on into a collective HDF5 call would hang the job. Checks whose outcome can differ between ranks
// (each rank's own hyperslab, a file system call done on rank 0) run through all_or_none() or
// on_root(), which make every rank throw the same exception.
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace gplvm::io_detail {

class IoComm {
 public:
  explicit IoComm(MPI_Comm comm);

  MPI_Comm raw() const noexcept { return comm_; }
  // MPI is initialised (and not finalised): files use MPI-IO and collectives are real.
  bool parallel() const noexcept { return parallel_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  bool is_root() const noexcept { return rank_ == 0; }

  void barrier() const;
  void broadcast_bytes(void* data, std::size_t bytes, int root = 0) const;
  void broadcast(std::string& text, int root = 0) const;
  std::uint64_t min(std::uint64_t value) const;
  std::uint64_t max(std::uint64_t value) const;
  std::vector<std::uint64_t> allgather(std::uint64_t value) const;

  // Collective: when any rank passes an exception, every rank throws the exception of the
  // lowest such rank (gplvm::InputError, NumericalError and Error keep their type and context).
  void agree(std::exception_ptr local) const;

  // Runs f on every rank, then agrees on its outcome.
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

 private:
  void check(int code, const char* what) const;

  MPI_Comm comm_;
  bool parallel_ = false;
  int rank_ = 0, size_ = 1;
};

}  // namespace gplvm::io_detail
