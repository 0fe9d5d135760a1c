#include "gplvm/io/result_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <utility>

#include "gplvm/io/temporary_files.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "hdf5_detail.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

std::string directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Creating (and deleting) a file is the only test that also covers read-only mounts, ACLs and
// root, for which access(2) answers "writable" regardless.
void probe_directory(const std::string& final_path, const std::string& dir) {
  const std::string probe = (fs::path(dir) / (".gplvm-write-probe-" + unique_temporary_suffix())).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    throw InputError("output directory '" + dir + "' is not writable: " + std::strerror(errno),
                     {final_path, "directory", dir});
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void fsync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) return;  // durability is best effort; the rename itself is what must succeed
  ::fsync(fd);
  ::close(fd);
}

// The data reach the disk before the name does, so a crash right after the rename cannot leave
// a final file with missing contents.
void durable_rename(const std::string& from, const std::string& to) {
  fsync_path(from, O_RDONLY);
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    throw Error(
        "cannot rename the temporary output file to its final name: " + std::string(std::strerror(errno)),
        {to, "temporary file", from});
  }
  fsync_path(directory_of(to), O_RDONLY | O_DIRECTORY);
}

void require_absolute(const std::string& path, const std::string& file) {
  if (path.size() < 2 || path.front() != '/' || path.back() == '/') {
    throw Error("object path must be absolute, like '/group/name'", ErrorContext(file, path));
  }
}

Hdf5Handle intermediate_groups_plist(const ErrorContext& where) {
  Hdf5Handle lcpl = checked_handle(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "cannot create link list", where);
  check_hdf5(H5Pset_create_intermediate_group(lcpl.get(), 1), "cannot enable group creation", where);
  return lcpl;
}

hid_t float_file_type(StorageType storage) {
  return storage == StorageType::float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
}

// Replicated writes must agree on the shape, or ranks would create different datasets and
// corrupt the file's metadata. Values may differ harmlessly: rank 0's are written.
void require_same_shape(const Communicator& io, const std::vector<std::uint64_t>& dims,
                        const ErrorContext& where) {
  std::vector<std::uint64_t> root_dims = dims;
  std::uint64_t rank = dims.size();
  io.broadcast_bytes(&rank, sizeof rank);
  root_dims.resize(rank);
  io.broadcast_bytes(root_dims.data(), rank * sizeof(std::uint64_t));
  io.all_or_none([&] {
    if (root_dims != dims)
      throw Error("ranks passed differently shaped data for a replicated dataset", where);
  });
}

// The ranks' blocks must cover [0, total) once each: a gap would leave uninitialised values.
void require_tiling(const Communicator& io, std::uint64_t begin, std::uint64_t count, std::uint64_t total,
                    const ErrorContext& where) {
  const std::vector<std::int64_t> begins = io.allgather(static_cast<std::int64_t>(begin)),
                                  counts = io.allgather(static_cast<std::int64_t>(count));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;
  for (std::size_t r = 0; r < begins.size(); ++r) {
    if (counts[r] > 0) blocks.emplace_back(begins[r], counts[r]);
  }
  std::sort(blocks.begin(), blocks.end());
  std::uint64_t next = 0;
  for (const auto& [b, c] : blocks) {
    if (b != next) break;
    next = b + c;
  }
  if (next != total) {
    throw Error("the ranks' row blocks do not cover rows [0, " + std::to_string(total) + ") exactly once",
                where);
  }
}

}  // namespace

Hdf5ResultWriter::Hdf5ResultWriter(std::string final_path, MPI_Comm comm)
    : final_path_(std::move(final_path)),
      comm_(comm),
      exceptions_at_construction_(std::uncaught_exceptions()) {
  silence_hdf5_errors();
  const Communicator io(comm_);
  io.on_root([&] { check_writable(final_path_); });
  std::string suffix = io.is_root() ? unique_temporary_suffix() : std::string();
  suffix = io.broadcast(suffix);
  temp_path_ = temporary_path(final_path_, suffix);
  try {
    io.all_or_none([&] { file_.emplace(Hdf5File::create(temp_path_, comm_)); });
  } catch (...) {
    if (file_)
      file_->release();  // another rank failed: this rank's half-made file is left to close_hdf5_library
    // The name is unique to this writer, so whatever a failed creation left there is ours.
    std::error_code ignored;
    if (io.is_root()) fs::remove(temp_path_, ignored);
    throw;
  }
}

Hdf5ResultWriter::~Hdf5ResultWriter() {
  if (state_ != State::open) return;
  // An exception from outside the writer may be this rank's alone: a collective close here would
  // wait forever for ranks that carried on. Without one in flight, every rank is here together.
  if (std::uncaught_exceptions() > exceptions_at_construction_)
    abandon_locally();
  else
    discard();
}

void Hdf5ResultWriter::check_writable(const std::string& final_path) {
  if (final_path.empty()) throw InputError("output path is empty", ErrorContext("", "output"));
  const std::string dir = directory_of(final_path);
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) {
    throw InputError("output directory '" + dir + "' does not exist", {final_path, "directory", dir});
  }
  if (!fs::is_directory(status)) {
    throw InputError("output directory '" + dir + "' is not a directory", {final_path, "directory", dir});
  }
  if (fs::is_directory(fs::status(final_path, ec))) {
    throw InputError("output path is a directory, not a file name", {final_path, "directory", final_path});
  }
  probe_directory(final_path, dir);
}

template <class Write>
void Hdf5ResultWriter::agreed_write(Write&& write) {
  try {
    Communicator(comm_).all_or_none(write);
  } catch (...) {
    discard();  // every rank is here: the failure was agreed
    throw;
  }
}

void Hdf5ResultWriter::discard() noexcept {
  try {
    if (file_ && file_->is_open()) file_->close();
  } catch (...) {
    // The file is being thrown away: a failed flush does not matter.
  }
  file_.reset();
  try {
    Communicator(comm_).barrier();  // every rank has closed it before it disappears
  } catch (...) {
  }
  // Every rank removes (the second removal finds nothing), so the temporary file is gone on
  // every rank by the time it leaves the destructor.
  std::error_code ignored;
  fs::remove(temp_path_, ignored);
  state_ = State::discarded;
}

void Hdf5ResultWriter::abandon_locally() noexcept {
  if (file_) file_->release();
  file_.reset();
  std::error_code ignored;
  fs::remove(temp_path_, ignored);  // the name goes now; the open file goes at close_hdf5_library
  state_ = State::discarded;
}

void Hdf5ResultWriter::require_open(const std::string& path) const {
  if (state_ != State::open)
    throw Error("result file is already committed or discarded", ErrorContext(final_path_, path));
}

void Hdf5ResultWriter::commit() {
  require_open("");
  const Communicator io(comm_);
  try {
    io.all_or_none([&] { file_->close(); });
    file_.reset();
    io.barrier();  // every rank's data are in the file before it takes the final name
    // Agreeing on rank 0's outcome doubles as the barrier after the rename.
    io.on_root([&] { durable_rename(temp_path_, final_path_); });
  } catch (...) {
    discard();
    throw;
  }
  state_ = State::committed;
}

Hdf5Handle Hdf5ResultWriter::create_dataset(const std::string& path, hid_t file_type,
                                            const std::vector<std::uint64_t>& dims) {
  require_open(path);
  require_absolute(path, final_path_);
  const ErrorContext where = ErrorContext(final_path_, path);
  if (file_->exists(path)) throw Error("dataset written twice", where);
  const std::vector<hsize_t> shape(dims.begin(), dims.end());
  const Hdf5Handle space =
      dims.empty() ? checked_handle(H5Screate(H5S_SCALAR), H5Sclose, "cannot create dataspace", where)
                   : checked_handle(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr),
                                    H5Sclose, "cannot create dataspace", where);
  const Hdf5Handle lcpl = intermediate_groups_plist(where);
  const Hdf5Handle dcpl =
      checked_handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "cannot create list", where);
  // Every element is written right after creation: filling with zeros first would double the I/O.
  check_hdf5(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "cannot set fill time", where);
  return checked_handle(
      H5Dcreate2(file_->id(), path.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
      H5Dclose, "cannot create dataset", where);
}

void Hdf5ResultWriter::write_replicated(const std::string& path, hid_t file_type, hid_t mem_type,
                                        const std::vector<std::uint64_t>& dims, const void* data) {
  const Communicator io(comm_);
  require_open(path);
  require_same_shape(io, dims, ErrorContext(final_path_, path));
  agreed_write([&] {
    const Hdf5Handle dataset = create_dataset(path, file_type, dims);
    const std::uint64_t rows = dims.empty() ? 1 : dims[0];
    // Rank 0 writes the whole dataset; the others join the collective transfer with nothing.
    const io_detail::RowBlock block{0, io.is_root() ? rows : 0};
    io_detail::write_row_block(dataset.get(), dims, io, mem_type, block, data,
                               ErrorContext(final_path_, path));
  });
}

void Hdf5ResultWriter::write_matrix(const std::string& path, const ConstMatrixRef& m, StorageType storage) {
  const RowMatrix row_major = m;  // HDF5 stores C order: rows must be contiguous
  write_replicated(path, float_file_type(storage), H5T_NATIVE_DOUBLE,
                   {static_cast<std::uint64_t>(m.rows()), static_cast<std::uint64_t>(m.cols())},
                   row_major.data());
}

void Hdf5ResultWriter::write_vector(const std::string& path, const ConstVectorRef& v, StorageType storage) {
  write_replicated(path, float_file_type(storage), H5T_NATIVE_DOUBLE, {static_cast<std::uint64_t>(v.size())},
                   v.data());
}

void Hdf5ResultWriter::write_scalar(const std::string& path, double value) {
  write_replicated(path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &value);
}

void Hdf5ResultWriter::write_int64_vector(const std::string& path, const std::vector<std::int64_t>& values) {
  write_replicated(path, H5T_STD_I64LE, H5T_NATIVE_INT64, {values.size()}, values.data());
}

void Hdf5ResultWriter::write_string(const std::string& path, const std::string& text) {
  // Fixed length rather than variable: parallel HDF5 cannot write variable-length data.
  const Hdf5Handle type = io_detail::fixed_string_type(text.size(), ErrorContext(final_path_, path));
  const std::string padded = text.empty() ? std::string(1, '\0') : text;
  write_replicated(path, type.get(), type.get(), {}, padded.data());
}

void Hdf5ResultWriter::write_attribute_value(const std::string& object_path, const std::string& name,
                                             hid_t file_type, hid_t mem_type, const void* data) {
  require_open(object_path);
  agreed_write([&] { write_attribute_here(object_path, name, file_type, mem_type, data); });
}

void Hdf5ResultWriter::write_attribute_here(const std::string& object_path, const std::string& name,
                                            hid_t file_type, hid_t mem_type, const void* data) {
  const ErrorContext where{final_path_, object_path, name};
  if (!file_->exists(object_path)) {
    require_absolute(object_path, final_path_);
    const Hdf5Handle lcpl = intermediate_groups_plist(where);
    checked_handle(H5Gcreate2(file_->id(), object_path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                   H5Gclose, "cannot create group", where);
  }
  const htri_t found = H5Aexists_by_name(file_->id(), object_path.c_str(), name.c_str(), H5P_DEFAULT);
  check_hdf5(found, "cannot look up attribute", where);
  if (found > 0) {
    check_hdf5(H5Adelete_by_name(file_->id(), object_path.c_str(), name.c_str(), H5P_DEFAULT),
               "cannot replace attribute", where);
  }
  const Hdf5Handle space = checked_handle(H5Screate(H5S_SCALAR), H5Sclose, "cannot create dataspace", where);
  const Hdf5Handle attribute =
      checked_handle(H5Acreate_by_name(file_->id(), object_path.c_str(), name.c_str(), file_type, space.get(),
                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     H5Aclose, "cannot create attribute", where);
  check_hdf5(H5Awrite(attribute.get(), mem_type, data), "cannot write attribute", where);
}

void Hdf5ResultWriter::write_attribute(const std::string& object_path, const std::string& name,
                                       const std::string& value) {
  const Hdf5Handle type = io_detail::fixed_string_type(value.size(), {final_path_, object_path, name});
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  write_attribute_value(object_path, name, type.get(), type.get(), padded.data());
}

void Hdf5ResultWriter::write_attribute(const std::string& object_path, const std::string& name,
                                       double value) {
  write_attribute_value(object_path, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void Hdf5ResultWriter::write_attribute(const std::string& object_path, const std::string& name,
                                       std::int64_t value) {
  write_attribute_value(object_path, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

// Validates the ranks' blocks together and returns the dataset width. Ranks without rows may
// pass a 0 x 0 block, so the width comes from the ranks that have rows.
std::uint64_t Hdf5ResultWriter::check_distribution(const std::string& path, std::uint64_t rows,
                                                   std::uint64_t cols, std::uint64_t row_begin,
                                                   std::uint64_t total_rows) const {
  require_open(path);
  const Communicator io(comm_);
  const ErrorContext where = ErrorContext(final_path_, path);
  auto max_over_ranks = [&](std::uint64_t v) {
    return static_cast<std::uint64_t>(io.allreduce_max(static_cast<std::int64_t>(v)));
  };
  const std::uint64_t width = total_rows > 0 ? max_over_ranks(rows > 0 ? cols : 0) : max_over_ranks(cols);
  const auto total = static_cast<std::int64_t>(total_rows);
  const bool same_total = io.allreduce_min(total) == io.allreduce_max(total);
  io.all_or_none([&] {
    if (!same_total) throw Error("ranks disagree on the total row count", where);
    if (rows > 0 && cols != width) {
      throw Error("rank " + std::to_string(io.rank()) + " has " + std::to_string(cols) + " columns, others " +
                      std::to_string(width),
                  where);
    }
  });
  io_detail::require_block_in_range(io, {row_begin, rows}, total_rows, where);
  require_tiling(io, row_begin, rows, total_rows, where);
  return width;
}

void Hdf5ResultWriter::write_distributed_rows(const std::string& path, const DataRef& local_rows,
                                              std::uint64_t row_begin, std::uint64_t total_rows,
                                              StorageType storage) {
  const auto rows = static_cast<std::uint64_t>(local_rows.rows());
  const std::uint64_t width =
      check_distribution(path, rows, static_cast<std::uint64_t>(local_rows.cols()), row_begin, total_rows);
  // A Ref may skip memory between rows (a column block of a wider matrix); HDF5 needs them packed.
  const bool packed = rows <= 1 || local_rows.outerStride() == local_rows.cols();
  const RowMatrix copy = packed ? RowMatrix() : RowMatrix(local_rows);
  agreed_write([&] {
    const Hdf5Handle dataset = create_dataset(path, float_file_type(storage), {total_rows, width});
    io_detail::write_row_block(dataset.get(), {total_rows, width}, Communicator(comm_), H5T_NATIVE_DOUBLE,
                               {row_begin, rows}, packed ? local_rows.data() : copy.data(),
                               ErrorContext(final_path_, path));
  });
}

void Hdf5ResultWriter::write_distributed_int64(const std::string& path,
                                               const std::vector<std::int64_t>& local,
                                               std::uint64_t row_begin, std::uint64_t total_rows) {
  check_distribution(path, local.size(), 1, row_begin, total_rows);
  agreed_write([&] {
    const Hdf5Handle dataset = create_dataset(path, H5T_STD_I64LE, {total_rows});
    io_detail::write_row_block(dataset.get(), {total_rows}, Communicator(comm_), H5T_NATIVE_INT64,
                               {row_begin, local.size()}, local.data(), ErrorContext(final_path_, path));
  });
}

}  // namespace gplvm
