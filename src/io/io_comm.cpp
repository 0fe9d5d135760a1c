#include "io_comm.hpp"

#include <array>

#include "gplvm/core/error.hpp"

namespace gplvm::io_detail {
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

[[noreturn]] void raise(const FlatError& flat) {
  ErrorContext context{flat.text[1], flat.text[2], flat.text[3]};
  switch (flat.kind) {
    case ErrorKind::input:
      throw InputError(flat.text[0], std::move(context));
    case ErrorKind::numerical:
      throw NumericalError(flat.text[0], std::move(context));
    default:
      throw Error(flat.text[0], std::move(context));
  }
}

}  // namespace

IoComm::IoComm(MPI_Comm comm) : comm_(comm), parallel_(mpi_is_running()) {
  if (!parallel_) return;
  check(MPI_Comm_rank(comm_, &rank_), "rank");
  check(MPI_Comm_size(comm_, &size_), "size");
}

void IoComm::check(int code, const char* what) const {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string("MPI ") + what + " failed in the I/O layer on rank " + std::to_string(rank_) +
              ": " + std::string(text, length));
}

void IoComm::barrier() const {
  if (parallel_) check(MPI_Barrier(comm_), "barrier");
}

void IoComm::broadcast_bytes(void* data, std::size_t bytes, int root) const {
  if (!parallel_ || size_ == 1 || bytes == 0) return;
  check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_), "broadcast");
}

void IoComm::broadcast(std::string& text, int root) const {
  std::uint64_t length = text.size();
  broadcast_bytes(&length, sizeof length, root);
  text.resize(length);
  broadcast_bytes(text.data(), length, root);
}

std::uint64_t IoComm::min(std::uint64_t value) const {
  if (parallel_) check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_MIN, comm_), "allreduce");
  return value;
}

std::uint64_t IoComm::max(std::uint64_t value) const {
  if (parallel_) check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_MAX, comm_), "allreduce");
  return value;
}

std::vector<std::uint64_t> IoComm::allgather(std::uint64_t value) const {
  std::vector<std::uint64_t> all(size_, value);
  if (parallel_)
    check(MPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm_), "allgather");
  return all;
}

void IoComm::agree(std::exception_ptr local) const {
  if (!parallel_ || size_ == 1) {
    if (local) std::rethrow_exception(local);
    return;
  }
  const std::uint64_t failing = min(local ? static_cast<std::uint64_t>(rank_) : size_);
  if (failing == static_cast<std::uint64_t>(size_)) return;
  const int root = static_cast<int>(failing);
  if (rank_ == root) {
    // Send the details first, then throw the original object (its exact type is kept here).
    FlatError flat = flatten(local);
    int kind = static_cast<int>(flat.kind);
    broadcast_bytes(&kind, sizeof kind, root);
    for (std::string& s : flat.text) broadcast(s, root);
    std::rethrow_exception(local);
  }
  FlatError flat;
  int kind = 0;
  broadcast_bytes(&kind, sizeof kind, root);
  flat.kind = static_cast<ErrorKind>(kind);
  for (std::string& s : flat.text) broadcast(s, root);
  raise(flat);
}

}  // namespace gplvm::io_detail
