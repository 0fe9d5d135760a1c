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

// The largest message a rank sends to the writer: bounds the writer's receive buffer (a 3 GB
// data set passes through 64 MiB at a time) and stays far below MPI's int element counts.
constexpr std::size_t kMaxMessageBytes = std::size_t{64} << 20;

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

// Replicated writes must agree on the shape, or the file would hold rank 0's shape while other
// ranks believe they wrote theirs. Values may differ harmlessly: rank 0's are written.
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
void require_tiling(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& blocks_by_rank,
                    std::uint64_t total, const ErrorContext& where) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;
  for (const auto& block : blocks_by_rank) {
    if (block.second > 0) blocks.push_back(block);
  }
  std::sort(blocks.begin(), blocks.end());
  std::uint64_t next = 0;
  for (const auto& [begin, count] : blocks) {
    if (begin != next) break;
    next = begin + count;
  }
  if (next != total) {
    throw Error("the ranks' row blocks do not cover rows [0, " + std::to_string(total) + ") exactly once",
                where);
  }
}

// Any exception a write raises becomes an Error naming the output, so that every rank reports
// the file users asked for (HDF5's errors name the temporary file; a std::bad_alloc while
// buffering rows would name nothing).
template <class F>
void naming_the_output(const std::string& final_path, const std::string& object_path, F&& f) {
  try {
    f();
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    if (e.context().file == final_path) throw;
    throw Error(e.reason(), {final_path, "temporary file", e.context().file});
  } catch (const std::exception& e) {
    throw Error(e.what(), ErrorContext(final_path, object_path));
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
    io.on_root(
        [&] { naming_the_output(final_path_, "", [&] { file_.emplace(Hdf5File::create(temp_path_)); }); });
  } catch (...) {
    discard();
    throw;
  }
}

Hdf5ResultWriter::~Hdf5ResultWriter() {
  if (state_ != State::open) return;
  discard();
  // Without an exception in flight every rank is here together, and waits until the temporary
  // file is gone; an exception may be this rank's alone, so then no rank waits for the others.
  if (std::uncaught_exceptions() == exceptions_at_construction_) {
    try {
      Communicator(comm_).barrier();
    } catch (...) {
    }
  }
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
void Hdf5ResultWriter::on_writer(const std::string& object_path, Write&& write) {
  try {
    Communicator(comm_).on_root([&] {
      try {
        naming_the_output(final_path_, object_path, write);
      } catch (...) {
        discard();  // before the agreement: no rank learns of the failure while the file remains
        throw;
      }
    });
  } catch (...) {
    state_ = State::discarded;
    throw;
  }
}

void Hdf5ResultWriter::discard() noexcept {
  if (file_) file_->close_discarding();
  file_.reset();
  // Only the writing rank ever held the file; the name is unique to this writer, so whatever a
  // failed creation left there is ours.
  if (Communicator(comm_).is_root()) {
    std::error_code ignored;
    fs::remove(temp_path_, ignored);
  }
  state_ = State::discarded;
}

void Hdf5ResultWriter::require_open(const std::string& path) const {
  if (state_ != State::open)
    throw Error("result file is already committed or discarded", ErrorContext(final_path_, path));
}

void Hdf5ResultWriter::commit() {
  require_open("");
  on_writer("", [&] {
    file_->close();
    file_.reset();
    durable_rename(temp_path_, final_path_);
  });
  state_ = State::committed;
}

Hdf5Handle Hdf5ResultWriter::create_dataset(const std::string& path, hid_t file_type,
                                            const std::vector<std::uint64_t>& dims) {
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
  require_open(path);
  require_same_shape(Communicator(comm_), dims, ErrorContext(final_path_, path));
  on_writer(path, [&] {
    const Hdf5Handle dataset = create_dataset(path, file_type, dims);
    const std::uint64_t rows = dims.empty() ? 1 : dims[0];
    io_detail::write_row_block(dataset.get(), dims, mem_type, {0, rows}, data,
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
  // Fixed length rather than variable, as readers of parallel HDF5 files expect.
  const Hdf5Handle type = io_detail::fixed_string_type(text.size(), ErrorContext(final_path_, path));
  const std::string padded = text.empty() ? std::string(1, '\0') : text;
  write_replicated(path, type.get(), type.get(), {}, padded.data());
}

void Hdf5ResultWriter::write_attribute_value(const std::string& object_path, const std::string& name,
                                             hid_t file_type, hid_t mem_type, const void* data) {
  require_open(object_path);
  on_writer(object_path, [&] { write_attribute_here(object_path, name, file_type, mem_type, data); });
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

// Validates the ranks' blocks together and returns every rank's block (rank order) and the
// dataset width. Ranks without rows may pass a 0 x 0 block, so the width comes from those with rows.
Hdf5ResultWriter::Distribution Hdf5ResultWriter::check_distribution(const std::string& path,
                                                                    std::uint64_t rows, std::uint64_t cols,
                                                                    std::uint64_t row_begin,
                                                                    std::uint64_t total_rows) const {
  require_open(path);
  const Communicator io(comm_);
  const ErrorContext where = ErrorContext(final_path_, path);
  auto max_over_ranks = [&](std::uint64_t v) {
    return static_cast<std::uint64_t>(io.allreduce_max(static_cast<std::int64_t>(v)));
  };
  Distribution d;
  d.width = total_rows > 0 ? max_over_ranks(rows > 0 ? cols : 0) : max_over_ranks(cols);
  const auto total = static_cast<std::int64_t>(total_rows);
  const bool same_total = io.allreduce_min(total) == io.allreduce_max(total);
  io.all_or_none([&] {
    if (!same_total) throw Error("ranks disagree on the total row count", where);
    if (rows > 0 && cols != d.width) {
      throw Error("rank " + std::to_string(io.rank()) + " has " + std::to_string(cols) + " columns, others " +
                      std::to_string(d.width),
                  where);
    }
  });
  io_detail::require_block_in_range(io, {row_begin, rows}, total_rows, where);
  const std::vector<std::int64_t> begins = io.allgather(static_cast<std::int64_t>(row_begin)),
                                  counts = io.allgather(static_cast<std::int64_t>(rows));
  for (std::size_t r = 0; r < begins.size(); ++r)
    d.blocks.emplace_back(static_cast<std::uint64_t>(begins[r]), static_cast<std::uint64_t>(counts[r]));
  io.all_or_none([&] { require_tiling(d.blocks, total_rows, where); });
  return d;
}

// Every rank's rows reach the writer rank by rank, in messages of at most kMaxMessageBytes; the
// writer writes each as a hyperslab, its own rows straight from their memory. A failure on the
// writer stops its writing but not its receiving, so every send finds its receive and the
// outcome is agreed once every message has been passed.
void Hdf5ResultWriter::write_rows_through_writer(const std::string& path, hid_t file_type, hid_t mem_type,
                                                 std::size_t element_bytes, const Distribution& d,
                                                 std::uint64_t total_rows, const void* local) {
  const Communicator io(comm_);
  const ErrorContext where(final_path_, path);
  std::vector<std::uint64_t> dims = file_type == H5T_STD_I64LE
                                        ? std::vector<std::uint64_t>{total_rows}
                                        : std::vector<std::uint64_t>{total_rows, d.width};
  if (!d.row_shape.empty()) {
    dims.resize(1);
    dims.insert(dims.end(), d.row_shape.begin(), d.row_shape.end());
  }
  const std::size_t row_bytes = d.width * element_bytes;
  const std::uint64_t chunk_rows =
      std::max<std::size_t>(1, kMaxMessageBytes / std::max<std::size_t>(1, row_bytes));
  std::exception_ptr failure;
  Hdf5Handle dataset;
  // Steps on the writer after a failure are skipped: the file is discarded once it is agreed.
  auto writer_step = [&](auto&& step) {
    if (failure) return;
    try {
      naming_the_output(final_path_, path, step);
    } catch (...) {
      failure = std::current_exception();
      dataset.reset();
      discard();  // before the agreement, as in on_writer; the messages are still drained
    }
  };
  if (io.is_root()) {
    writer_step([&] {
      dataset = create_dataset(path, file_type, dims);
      io_detail::write_row_block(dataset.get(), dims, mem_type, {d.blocks[0].first, d.blocks[0].second},
                                 local, where);
    });
  }
  std::vector<char> buffer;
  for (int sender = 1; sender < io.size() && row_bytes > 0; ++sender) {
    const auto [begin, count] = d.blocks[static_cast<std::size_t>(sender)];
    if (io.rank() != sender && !io.is_root()) continue;
    for (std::uint64_t done = 0; done < count; done += chunk_rows) {
      const std::uint64_t rows = std::min(chunk_rows, count - done);
      const std::size_t bytes = rows * row_bytes;
      if (io.rank() == sender) {
        io.send_bytes(static_cast<const char*>(local) + done * row_bytes, bytes, 0);
        continue;
      }
      buffer.resize(std::max(buffer.size(), bytes));
      io.receive_bytes(buffer.data(), bytes, sender);
      writer_step([&] {
        io_detail::write_row_block(dataset.get(), dims, mem_type, {begin + done, rows}, buffer.data(), where);
      });
    }
  }
  try {
    io.agree(failure);
  } catch (...) {
    state_ = State::discarded;
    throw;
  }
}

void Hdf5ResultWriter::write_distributed_rows(const std::string& path, const DataRef& local_rows,
                                              std::uint64_t row_begin, std::uint64_t total_rows,
                                              StorageType storage,
                                              const std::vector<std::uint64_t>& row_shape) {
  const auto rows = static_cast<std::uint64_t>(local_rows.rows());
  Distribution d =
      check_distribution(path, rows, static_cast<std::uint64_t>(local_rows.cols()), row_begin, total_rows);
  std::uint64_t shape_size = 1;
  for (const std::uint64_t n : row_shape) shape_size *= n;
  if (!row_shape.empty() && shape_size != d.width)
    throw Error("the row shape does not hold the row's " + std::to_string(d.width) + " values",
                {final_path_, path, std::to_string(shape_size)});
  d.row_shape = row_shape;
  // A Ref may skip memory between rows (a column block of a wider matrix); messages need them packed.
  const bool packed = rows <= 1 || local_rows.outerStride() == local_rows.cols();
  const RowMatrix copy = packed ? RowMatrix() : RowMatrix(local_rows);
  write_rows_through_writer(path, float_file_type(storage), H5T_NATIVE_DOUBLE, sizeof(double), d, total_rows,
                            packed ? local_rows.data() : copy.data());
}

void Hdf5ResultWriter::write_distributed_int64(const std::string& path,
                                               const std::vector<std::int64_t>& local,
                                               std::uint64_t row_begin, std::uint64_t total_rows) {
  Distribution d = check_distribution(path, local.size(), 1, row_begin, total_rows);
  d.width = 1;
  write_rows_through_writer(path, H5T_STD_I64LE, H5T_NATIVE_INT64, sizeof(std::int64_t), d, total_rows,
                            local.data());
}

}  // namespace gplvm
