#pragma once
// A thin RAII layer over the HDF5 C API: identifiers that close themselves, files opened on an MPI
// communicator with the MPI-IO driver, and every negative HDF5 return turned into an exception
// that names the file and the object path.
//
// HDF5's automatic error-stack printing is switched off: its stack is read into the exception
// message instead, so a failure prints one line rather than a screenful from every rank.
//
// Files are read on a communicator, collectively: every rank of the communicator makes the same
// calls in the same order with the same object paths. Files are written by one process alone,
// through the serial (sec2) driver (io/result_writer.hpp), so that a failing write can never
// leave ranks on different paths inside a collective HDF5 call. Errors these functions raise because of the
// file's content (missing object, wrong shape or type) are raised on every rank alike, since all
// ranks read the same metadata.
//
// Without MPI_Init (serial tools and tests) files are opened with HDF5's default POSIX driver
// and the communicator is treated as this process alone; the files are identical either way.
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"

namespace gplvm {

// Element types the project reads: float data, integer labels.
enum class ElementType { float32, float64, integer };
std::string to_string(ElementType type);

// Owns one HDF5 identifier and releases it with the matching H5*close function.
class Hdf5Handle {
 public:
  using Closer = herr_t (*)(hid_t);

  Hdf5Handle() noexcept = default;
  Hdf5Handle(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  Hdf5Handle(Hdf5Handle&& other) noexcept;
  Hdf5Handle& operator=(Hdf5Handle&& other) noexcept;
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  ~Hdf5Handle() { reset(); }

  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }
  // Closes now. Returns false when HDF5 reported an error, which for a file means a failed flush.
  bool reset() noexcept;

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// Switches off HDF5's error printing (idempotent; every entry point of this layer calls it).
void silence_hdf5_errors();
// The messages on HDF5's error stack ("outermost: innermost"), clearing the stack.
std::string take_hdf5_error_message();
// Throws Error("<what>: <HDF5 message>", where) when status is negative.
void check_hdf5(herr_t status, const std::string& what, const ErrorContext& where);
// Takes ownership of id, throwing Error as check_hdf5 does when it is negative.
Hdf5Handle checked_handle(hid_t id, Hdf5Handle::Closer closer, const std::string& what,
                          const ErrorContext& where);
// Shuts the library down before MPI_Finalize, rather than in HDF5's own exit handler after MPI is
// gone. Every file is closed by then (readers and writers close theirs as they unwind).
void close_hdf5_library() noexcept;

class Hdf5Dataset;

class Hdf5File {
 public:
  // Collective. Opens an input read-only on every rank of comm, each through the serial (sec2)
  // driver, so that nothing is ever created beside the input. InputError naming the file, on every
  // rank, when it is missing, unreadable, not an HDF5 file or truncated (HDF5 checks the stored end
  // of file against the file's size).
  static Hdf5File open(const std::string& path, MPI_Comm comm);
  // Not collective. Creates a new file for this process alone to write, with the serial (sec2)
  // driver; Error when it exists already or cannot be created.
  static Hdf5File create(const std::string& path);

  Hdf5File(Hdf5File&&) noexcept = default;
  Hdf5File& operator=(Hdf5File&&) noexcept = default;

  const std::string& path() const noexcept { return path_; }
  MPI_Comm comm() const noexcept { return comm_; }
  hid_t id() const noexcept { return handle_.get(); }
  bool is_open() const noexcept { return handle_.valid(); }

  // Closes the file (collectively where it was opened on a communicator). For a file made by
  // create(), the disk space its final flush needs is reserved first: Error, with the file still
  // open and intact, when it cannot be (a full disk), since HDF5 (1.10) cannot close a file whose
  // flush failed and would crash closing it again at exit.
  void close();
  // Not collective; for a file made by create() that is being thrown away: its remaining writes go
  // to memory, so the close cannot fail, and nothing is left open for HDF5's shutdown.
  void close_discarding() noexcept;
  // Whether an object (group or dataset) exists at the absolute path; "/" always does.
  bool exists(const std::string& object_path) const;
  // InputError naming the file and path when there is no dataset there.
  Hdf5Dataset open_dataset(const std::string& dataset_path) const;

 private:
  Hdf5File(std::string path, MPI_Comm comm, Hdf5Handle handle, bool written);
  void reserve_space_for_flush();

  std::string path_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  Hdf5Handle handle_;
  bool written_ = false;  // made by create(): written through the sec2 driver
};

// An open dataset with its shape and element class, read once at opening.
class Hdf5Dataset {
 public:
  hid_t id() const noexcept { return handle_.get(); }
  const std::string& file() const noexcept { return file_; }
  const std::string& path() const noexcept { return path_; }
  const std::vector<std::uint64_t>& dims() const noexcept { return dims_; }
  // A description of the stored type, e.g. "float32", "integer", "string" (for messages).
  const std::string& type_name() const noexcept { return type_name_; }
  bool is_string() const noexcept { return type_class_ == H5T_STRING; }

  // The element type; InputError naming file, path and the stored type when it is none of them.
  ElementType element_type() const;
  // InputError naming file, path and the actual rank unless the dataset has `rank` dimensions.
  void require_rank(int rank, const std::string& expected) const;
  // Whether the dataset carries an attribute of this name.
  bool has_attribute(const std::string& name) const;
  ErrorContext context(std::string value = {}) const { return {file_, path_, std::move(value)}; }

 private:
  friend class Hdf5File;
  Hdf5Dataset(Hdf5Handle handle, std::string file, std::string path);

  Hdf5Handle handle_;
  std::string file_, path_;
  std::vector<std::uint64_t> dims_;
  H5T_class_t type_class_ = H5T_NO_CLASS;
  std::size_t type_size_ = 0;
  std::string type_name_;
};

}  // namespace gplvm
