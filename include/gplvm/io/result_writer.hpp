#pragma once
// Run results and checkpoints: one HDF5 file per run, written under a temporary name in the
// destination directory and renamed over the final name by commit(). Readers therefore see
// either the previous complete file or the new complete file, never a half-written one, and a
// run that fails (or is killed) before commit() leaves the final path untouched.
//
// Everything here is collective over the communicator: every rank makes the same calls in the
// same order with the same paths. One rank (rank 0, "the writer") alone creates, writes, closes
// and renames the file, through HDF5's serial driver: no HDF5 call on an output is collective, so
// no failure can leave ranks on different paths inside HDF5. Every write ends with the writer's
// outcome agreed on every rank (Communicator::agree): when it fails (a full disk), the writer
// closes its file, which cannot hang, removes the temporary file, and every rank throws the same
// error naming the output; nothing is left open for HDF5's shutdown. "Replicated" writes take the
// same values on every rank and rank 0's copy is written; write_distributed_rows() takes each
// rank's own rows, which the other ranks send to the writer in bounded messages.
//
// Object paths are absolute ("/params/kernel/variance"); missing groups are created.
// Matrices are stored row-major, so h5py reads an N x Q matrix as an (N, Q) array in natural order.
#include <mpi.h>

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/io/hdf5_file.hpp"

namespace gplvm {

// How floating-point data are stored in the file (values are always passed as double).
enum class StorageType { float64, float32 };

class Hdf5ResultWriter {
 public:
  // Collective. Rank 0 creates "<final_path>.tmp-<unique suffix>" next to final_path. InputError
  // naming the directory when it is missing or not writable, before anything is created.
  Hdf5ResultWriter(std::string final_path, MPI_Comm comm);
  // Without commit(), the writer closes and removes the temporary file, so nothing is left
  // behind. Collective (every rank returns once the file is gone) unless an exception unwinds
  // through it, which may be one rank's alone: then it waits for no other rank.
  ~Hdf5ResultWriter();
  Hdf5ResultWriter(const Hdf5ResultWriter&) = delete;
  Hdf5ResultWriter& operator=(const Hdf5ResultWriter&) = delete;

  // Not collective. InputError naming the directory unless a file can be created in the
  // directory of final_path (and final_path is not a directory). Call it at startup so that an
  // unwritable output fails before hours of training.
  static void check_writable(const std::string& final_path);

  const std::string& final_path() const noexcept { return final_path_; }
  const std::string& temp_path() const noexcept { return temp_path_; }
  bool committed() const noexcept { return state_ == State::committed; }

  // Replicated data (the same on every rank).
  void write_matrix(const std::string& path, const ConstMatrixRef& m,
                    StorageType storage = StorageType::float64);
  void write_vector(const std::string& path, const ConstVectorRef& v,
                    StorageType storage = StorageType::float64);
  void write_scalar(const std::string& path, double value);
  void write_int64_vector(const std::string& path, const std::vector<std::int64_t>& values);
  // A fixed-length UTF-8 string dataset (h5py reads it as bytes; .decode() gives the text).
  void write_string(const std::string& path, const std::string& text);

  // Attributes on a group or dataset ("/" is the file's root group); a missing object is created
  // as a group, and an existing attribute of the same name is replaced.
  void write_attribute(const std::string& object_path, const std::string& name, const std::string& value);
  void write_attribute(const std::string& object_path, const std::string& name, const char* value) {
    write_attribute(object_path, name, std::string(value));
  }
  void write_attribute(const std::string& object_path, const std::string& name, double value);
  void write_attribute(const std::string& object_path, const std::string& name, std::int64_t value);
  // Any other integer (int, unsigned, size_t) is stored as int64.
  template <std::integral T>
  void write_attribute(const std::string& object_path, const std::string& name, T value) {
    write_attribute(object_path, name, static_cast<std::int64_t>(value));
  }

  // Each rank's local_rows are rows [row_begin, row_begin + local_rows.rows()) of a total_rows x D
  // dataset; the ranks' blocks must tile [0, total_rows) exactly (ranks may hold no rows). With a
  // row_shape (whose product is D) the dataset is total_rows x row_shape, each row in C order.
  void write_distributed_rows(const std::string& path, const DataRef& local_rows, std::uint64_t row_begin,
                              std::uint64_t total_rows, StorageType storage = StorageType::float64,
                              const std::vector<std::uint64_t>& row_shape = {});
  // The same for a 1-D int64 dataset (labels): local holds entries [row_begin, row_begin + size).
  void write_distributed_int64(const std::string& path, const std::vector<std::int64_t>& local,
                               std::uint64_t row_begin, std::uint64_t total_rows);

  // Collective. The writer closes the file and renames it to final_path; every rank returns once
  // the final file is in place. Error when closing or renaming fails, in which case the temporary
  // file is removed.
  void commit();

 private:
  // Every rank's row block (rank order) and the dataset's width, validated on every rank.
  struct Distribution {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;  // (first row, row count)
    std::uint64_t width = 0;
    std::vector<std::uint64_t> row_shape;  // the dimensions after the first ({width} when empty)
  };
  Hdf5Handle create_dataset(const std::string& path, hid_t file_type, const std::vector<std::uint64_t>& dims);
  void write_replicated(const std::string& path, hid_t file_type, hid_t mem_type,
                        const std::vector<std::uint64_t>& dims, const void* data);
  void write_attribute_value(const std::string& object_path, const std::string& name, hid_t file_type,
                             hid_t mem_type, const void* data);
  void write_attribute_here(const std::string& object_path, const std::string& name, hid_t file_type,
                            hid_t mem_type, const void* data);
  Distribution check_distribution(const std::string& path, std::uint64_t rows, std::uint64_t cols,
                                  std::uint64_t row_begin, std::uint64_t total_rows) const;
  void write_rows_through_writer(const std::string& path, hid_t file_type, hid_t mem_type,
                                 std::size_t element_bytes, const Distribution& d, std::uint64_t total_rows,
                                 const void* local);
  void require_open(const std::string& path) const;
  // Runs one write on the writer rank and agrees on its outcome; on failure, discards and rethrows.
  template <class Write>
  void on_writer(const std::string& object_path, Write&& write);
  // Not collective: the writer closes its file (a close that cannot fail) and removes it.
  void discard() noexcept;

  enum class State { open, committed, discarded };
  std::string final_path_, temp_path_;
  MPI_Comm comm_;
  std::optional<Hdf5File> file_;  // on the writer rank only
  State state_ = State::open;
  int exceptions_at_construction_ = 0;
};

// Reads result and checkpoint files (to resume, evaluate or encode). Collective like the writer.
class Hdf5ResultReader {
 public:
  // InputError naming the file when it is missing or not HDF5.
  Hdf5ResultReader(const std::string& path, MPI_Comm comm);

  const std::string& path() const noexcept { return file_.path(); }
  bool exists(const std::string& object_path) const { return file_.exists(object_path); }
  bool has_attribute(const std::string& object_path, const std::string& name) const;
  // The names of a group's members in name order (empty when the group does not exist).
  std::vector<std::string> group_members(const std::string& group_path) const;

  // Each InputError names the file and the path when the object is missing or has another shape.
  Matrix read_matrix(const std::string& path) const;  // 2-D
  Vector read_vector(const std::string& path) const;  // 1-D
  double read_scalar(const std::string& path) const;  // scalar or one element
  Vector read_values(const std::string& path) const;  // scalar (one value) or 1-D
  std::vector<std::int64_t> read_int64_vector(const std::string& path) const;
  std::string read_string(const std::string& path) const;  // fixed or variable length

  std::string read_attribute_string(const std::string& object_path, const std::string& name) const;
  std::int64_t read_attribute_int64(const std::string& object_path, const std::string& name) const;
  double read_attribute_double(const std::string& object_path, const std::string& name) const;

  // Rows [row_begin, row_begin + count) of a 2-D dataset, each rank its own range.
  RowMatrix read_distributed_rows(const std::string& path, std::uint64_t row_begin,
                                  std::uint64_t count) const;
  // Entries [row_begin, row_begin + count) of a 1-D integer dataset (or N x 1), each rank its own.
  std::vector<std::int64_t> read_distributed_int64(const std::string& path, std::uint64_t row_begin,
                                                   std::uint64_t count) const;

 private:
  Hdf5Handle open_attribute(const std::string& object_path, const std::string& name) const;

  Hdf5File file_;
};

}  // namespace gplvm
