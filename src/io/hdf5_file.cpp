#include "gplvm/io/hdf5_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "gplvm/parallel/communicator.hpp"

namespace gplvm {
namespace {

// The sec2 driver reports a failed system call as "file write failed: time = ..., filename = ...,
// file descriptor = 5, errno = 28, error message = 'No space left on device', buf = 0x..., total
// write size = ..., bytes actually written = 18446744073709551615, offset = ...": what failed and
// why are kept, the buffer addresses and byte counts (meaningless to a user) dropped.
std::string without_system_call_details(const std::string& text) {
  const std::string marker = "error message = '";
  const auto why = text.find(marker);
  if (why == std::string::npos) return text;
  const auto why_end = text.find('\'', why + marker.size());
  const std::string reason = text.substr(
      why + marker.size(), why_end == std::string::npos ? std::string::npos : why_end - why - marker.size());
  const auto details = text.find(", time = ");
  const auto colon = text.find(": time = ");
  const auto what_end = std::min(details, colon);
  return (what_end == std::string::npos ? std::string("system call failed") : text.substr(0, what_end)) +
         ": " + reason;
}

herr_t collect_error(unsigned /*depth*/, const H5E_error2_t* entry, void* out) {
  auto* messages = static_cast<std::vector<std::string>*>(out);
  if (entry->desc && *entry->desc) {
    std::string text = entry->desc;
    std::replace(text.begin(), text.end(), '\n', ' ');  // the sec2 driver's messages span lines
    messages->push_back(without_system_call_details(text));
  }
  return 0;
}

// A missing or unreadable file gets a plain message rather than HDF5's "unable to open file".
void require_readable_hdf5(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) throw InputError("input file does not exist", ErrorContext(path));
  if (fs::is_directory(status))
    throw InputError("input path is a directory, not an HDF5 file", ErrorContext(path));
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    throw InputError(std::string("cannot read input file: ") + std::strerror(errno), ErrorContext(path));
  ::close(fd);
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    take_hdf5_error_message();
    throw InputError("input file is not an HDF5 file", ErrorContext(path));
  }
}

// Inputs are read through the serial (sec2) driver on every rank, never through MPI-IO: Open MPI's
// MPI-IO layer probes file locking at each open by creating and deleting `<input>.locktest.<rank>`
// beside the input (its sharedfp/lockedfile component), which writes into the user's folder, deletes
// a file of that name if the user has one, and races with anything listing the folder. Each rank
// reads only its own contiguous row block, so collective buffering would gain little here.
Hdf5Handle read_access_plist(const std::string& path) {
  Hdf5Handle fapl = checked_handle(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot create file access list",
                                   ErrorContext(path));
  check_hdf5(H5Pset_fapl_sec2(fapl.get()), "cannot select the serial driver", ErrorContext(path));
  return fapl;
}

std::string class_name(H5T_class_t type_class, std::size_t size) {
  switch (type_class) {
    case H5T_FLOAT:
      return "float" + std::to_string(8 * size);
    case H5T_INTEGER:
      return "integer";
    case H5T_STRING:
      return "string";
    case H5T_COMPOUND:
      return "compound";
    case H5T_ENUM:
      return "enum";
    case H5T_ARRAY:
      return "array";
    case H5T_VLEN:
      return "variable-length sequence";
    default:
      return "unsupported type class " + std::to_string(static_cast<int>(type_class));
  }
}

// Beyond the file's current size and its cached metadata, for what the final flush adds (the
// superblock's end-of-file address, a heap grown by the last names): generous, and still cheap.
constexpr hsize_t kFlushHeadroomBytes = hsize_t{64} << 10;

// The file descriptor of a file opened with the sec2 driver.
int sec2_descriptor(hid_t file, const ErrorContext& where) {
  void* handle = nullptr;
  check_hdf5(H5Fget_vfd_handle(file, H5P_DEFAULT, &handle), "cannot get the file descriptor", where);
  return *static_cast<int*>(handle);
}

// Allocates disk blocks for [0, length) of the file without changing its size; where the file
// system cannot (EOPNOTSUPP), glibc's posix_fallocate writes the blocks instead.
int reserve_blocks(int fd, hsize_t length) {
  if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(length)) == 0) return 0;
  if (errno != EOPNOTSUPP) return errno;
  return ::posix_fallocate(fd, 0, static_cast<off_t>(length));
}

std::string describe_dims(const std::vector<std::uint64_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string text = std::to_string(dims.size()) + "-D (";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? " x " : "") + std::to_string(dims[i]);
  return text + ")";
}

}  // namespace

std::string to_string(ElementType type) {
  switch (type) {
    case ElementType::float32:
      return "float32";
    case ElementType::float64:
      return "float64";
    case ElementType::integer:
      return "integer";
  }
  return "unknown";
}

Hdf5Handle::Hdf5Handle(Hdf5Handle&& other) noexcept
    : id_(std::exchange(other.id_, -1)), closer_(std::exchange(other.closer_, nullptr)) {}

Hdf5Handle& Hdf5Handle::operator=(Hdf5Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, -1);
    closer_ = std::exchange(other.closer_, nullptr);
  }
  return *this;
}

bool Hdf5Handle::reset() noexcept {
  if (id_ < 0) return true;
  const herr_t status = closer_ ? closer_(id_) : 0;
  id_ = -1;
  return status >= 0;
}

void silence_hdf5_errors() {
  // Cheap, and repeating it survives a library re-initialisation (H5close) by other code.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

std::string take_hdf5_error_message() {
  std::vector<std::string> messages;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &messages);
  H5Eclear2(H5E_DEFAULT);
  if (messages.empty()) return "unknown HDF5 error";
  // The outermost entry says what was attempted, the innermost why it failed.
  if (messages.size() == 1 || messages.front() == messages.back()) return messages.front();
  return messages.front() + ": " + messages.back();
}

void check_hdf5(herr_t status, const std::string& what, const ErrorContext& where) {
  if (status < 0) throw Error(what + ": " + take_hdf5_error_message(), where);
}

Hdf5Handle checked_handle(hid_t id, Hdf5Handle::Closer closer, const std::string& what,
                          const ErrorContext& where) {
  if (id < 0) throw Error(what + ": " + take_hdf5_error_message(), where);
  return Hdf5Handle(id, closer);
}

void close_hdf5_library() noexcept {
  silence_hdf5_errors();
  H5close();
}

Hdf5File::Hdf5File(std::string path, MPI_Comm comm, Hdf5Handle handle, bool written)
    : path_(std::move(path)), comm_(comm), handle_(std::move(handle)), written_(written) {}

Hdf5File Hdf5File::open(const std::string& path, MPI_Comm comm) {
  silence_hdf5_errors();
  const Communicator io(comm);
  // Rank 0 alone probes the file: thousands of ranks stat-ing one file would load a parallel file
  // system's metadata server for nothing, and H5Fopen below fails on any rank that cannot see it.
  io.on_root([&] { require_readable_hdf5(path); });
  const Hdf5Handle fapl = read_access_plist(path);
  // Every rank reads the same superblock, so a truncated or corrupt file fails on all of them;
  // agreeing anyway keeps a rank that could open it from waiting for one that could not.
  Hdf5Handle file;
  io.all_or_none([&] {
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    if (id < 0)
      throw InputError("cannot open HDF5 file (truncated or corrupt?): " + take_hdf5_error_message(),
                       ErrorContext(path));
    file = Hdf5Handle(id, H5Fclose);
  });
  return Hdf5File(path, comm, std::move(file), false);
}

Hdf5File Hdf5File::create(const std::string& path) {
  silence_hdf5_errors();
  const ErrorContext where(path);
  const Hdf5Handle fapl =
      checked_handle(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot create file access list", where);
  check_hdf5(H5Pset_fapl_sec2(fapl.get()), "cannot select the serial driver", where);
  // Closing the file closes every object still open in it, so that a close leaves nothing open.
  check_hdf5(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), "cannot set the close degree", where);
  // Raw data go to the disk in H5Dwrite, whose failure leaves the file intact, rather than from a
  // sieve buffer in the final flush, whose failure would not.
  check_hdf5(H5Pset_sieve_buf_size(fapl.get(), 0), "cannot disable the sieve buffer", where);
  Hdf5Handle file = checked_handle(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose,
                                   "cannot create HDF5 file", where);
  return Hdf5File(path, MPI_COMM_SELF, std::move(file), true);
}

// HDF5 1.10 writes a file's metadata when it is flushed or closed; if that write fails, the
// file's identifier stays registered but half torn down, and closing it again (as H5close and
// HDF5's exit handler do) crashes the process. Reserving the blocks first means the flush cannot
// run out of space.
void Hdf5File::reserve_space_for_flush() {
  const ErrorContext where(path_);
  hsize_t size = 0;
  check_hdf5(H5Fget_filesize(id(), &size), "cannot read the file size", where);
  std::size_t max_size = 0, min_clean_size = 0, cached = 0;
  int entries = 0;
  check_hdf5(H5Fget_mdc_size(id(), &max_size, &min_clean_size, &cached, &entries),
             "cannot read the metadata cache size", where);
  const int error = reserve_blocks(sec2_descriptor(id(), where), size + cached + kFlushHeadroomBytes);
  if (error != 0) {
    throw Error("cannot reserve the disk space to complete the file: " + std::string(std::strerror(error)),
                where);
  }
}

void Hdf5File::close() {
  if (!handle_.valid()) return;
  if (written_) reserve_space_for_flush();
  if (!handle_.reset())
    throw Error("cannot close HDF5 file (its data may be incomplete): " + take_hdf5_error_message(),
                ErrorContext(path_));
}

void Hdf5File::close_discarding() noexcept {
  if (!handle_.valid()) return;
  if (written_) {
    // The descriptor now refers to an anonymous memory file: the flush HDF5 makes while closing
    // writes there (a few pages of metadata) and cannot fail for want of disk space.
    try {
      const int fd = sec2_descriptor(id(), ErrorContext(path_));
      const int memory = ::memfd_create("gplvm-discarded-output", MFD_CLOEXEC);
      if (memory >= 0) {
        ::dup2(memory, fd);
        ::close(memory);
      }
    } catch (...) {
      // Closing as it is remains the best left to do.
    }
  }
  handle_.reset();
  take_hdf5_error_message();
}

bool Hdf5File::exists(const std::string& object_path) const {
  if (object_path.empty() || object_path == "/") return true;
  // H5Lexists fails rather than answering "no" when an intermediate group is missing, so each
  // prefix is checked in turn.
  for (std::size_t slash = object_path.find('/', 1);; slash = object_path.find('/', slash + 1)) {
    const std::string prefix = object_path.substr(0, slash);
    if (prefix.empty() || prefix.back() == '/') return false;  // "//" or a trailing slash
    const htri_t found = H5Lexists(id(), prefix.c_str(), H5P_DEFAULT);
    if (found <= 0) {
      if (found < 0) take_hdf5_error_message();
      return false;
    }
    if (slash == std::string::npos) break;
  }
  const htri_t resolves =
      H5Oexists_by_name(id(), object_path.c_str(), H5P_DEFAULT);  // false for dangling links
  if (resolves < 0) take_hdf5_error_message();
  return resolves > 0;
}

Hdf5Dataset Hdf5File::open_dataset(const std::string& dataset_path) const {
  const ErrorContext where(path_, dataset_path);
  std::optional<Hdf5Dataset> dataset;
  // A damaged object header fails alike on every rank (each reads the same bytes), yet each would
  // fail on its own: agreed, it is one input error naming the file and the object on all of them.
  Communicator(comm_).all_or_none([&] {
    if (!exists(dataset_path)) throw InputError("dataset not found", where);
    try {
      Hdf5Handle object = checked_handle(H5Oopen(id(), dataset_path.c_str(), H5P_DEFAULT), H5Oclose,
                                         "cannot open HDF5 object", where);
      if (H5Iget_type(object.get()) != H5I_DATASET)
        throw InputError("object is a group or named type, not a dataset", where);
      dataset.emplace(Hdf5Dataset(std::move(object), path_, dataset_path));
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError("cannot read the object's header (damaged file?): " + e.reason(), where);
    }
  });
  return std::move(*dataset);
}

Hdf5Dataset::Hdf5Dataset(Hdf5Handle handle, std::string file, std::string path)
    : handle_(std::move(handle)), file_(std::move(file)), path_(std::move(path)) {
  const Hdf5Handle space =
      checked_handle(H5Dget_space(id()), H5Sclose, "cannot read dataset shape", context());
  const int ndims = H5Sget_simple_extent_ndims(space.get());
  check_hdf5(ndims, "cannot read dataset rank", context());
  std::vector<hsize_t> dims(ndims);
  check_hdf5(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "cannot read dataset shape",
             context());
  dims_.assign(dims.begin(), dims.end());
  const Hdf5Handle type = checked_handle(H5Dget_type(id()), H5Tclose, "cannot read dataset type", context());
  type_class_ = H5Tget_class(type.get());
  type_size_ = H5Tget_size(type.get());
  type_name_ = class_name(type_class_, type_size_);
}

ElementType Hdf5Dataset::element_type() const {
  if (type_class_ == H5T_FLOAT && type_size_ == 4) return ElementType::float32;
  if (type_class_ == H5T_FLOAT && type_size_ == 8) return ElementType::float64;
  if (type_class_ == H5T_INTEGER) return ElementType::integer;
  throw InputError("unsupported element type " + type_name_ + " (expected float32, float64 or integer)",
                   context(type_name_));
}

bool Hdf5Dataset::has_attribute(const std::string& name) const {
  const htri_t found = H5Aexists(id(), name.c_str());
  check_hdf5(found, "cannot look up attribute", context(name));
  return found > 0;
}

void Hdf5Dataset::require_rank(int rank, const std::string& expected) const {
  if (dims_.size() == static_cast<std::size_t>(rank)) return;
  throw InputError("dataset must be " + expected + " but is " + describe_dims(dims_),
                   context(describe_dims(dims_)));
}

}  // namespace gplvm
