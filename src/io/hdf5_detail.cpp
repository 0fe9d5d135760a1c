#include "hdf5_detail.hpp"

#include <algorithm>

namespace gplvm::io_detail {
namespace {

std::vector<hsize_t> to_hsize(const std::vector<std::uint64_t>& dims) {
  return {dims.begin(), dims.end()};
}

// The file space of the dataset with the block selected (nothing when the block is empty).
void select_block(hid_t file_space, const std::vector<std::uint64_t>& dims, RowBlock block,
                  const ErrorContext& where) {
  if (block.count == 0 || row_width(dims) == 0) {
    check_hdf5(H5Sselect_none(file_space), "cannot select an empty block", where);
    return;
  }
  if (dims.empty()) return;  // a scalar: the one element is selected already
  std::vector<hsize_t> start(dims.size(), 0), count = to_hsize(dims);
  start[0] = block.begin;
  count[0] = block.count;
  check_hdf5(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
             "cannot select rows in dataset", where);
}

// The memory space: the block's shape, or a 1-element space with nothing selected when empty
// (HDF5 needs a valid space, and zero-sized extents are awkward across versions).
Hdf5Handle memory_space(const std::vector<std::uint64_t>& dims, RowBlock block, const ErrorContext& where) {
  const bool empty = block.count == 0 || row_width(dims) == 0;
  if (dims.empty() || empty) {
    Hdf5Handle space = checked_handle(H5Screate(H5S_SCALAR), H5Sclose, "cannot create dataspace", where);
    if (empty) check_hdf5(H5Sselect_none(space.get()), "cannot select an empty block", where);
    return space;
  }
  std::vector<hsize_t> shape = to_hsize(dims);
  shape[0] = block.count;
  return checked_handle(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr), H5Sclose,
                        "cannot create dataspace", where);
}

// A valid pointer for HDF5 even when an empty Eigen matrix has none (nothing is read through it).
void* nonnull(void* buffer) {
  static double dummy = 0;
  return buffer ? buffer : &dummy;
}

}  // namespace

std::uint64_t row_width(const std::vector<std::uint64_t>& dims) {
  std::uint64_t width = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) width *= dims[i];
  return width;
}

void require_block_in_range(const Communicator& io, RowBlock block, std::uint64_t total,
                            const ErrorContext& where) {
  io.all_or_none([&] {
    if (block.begin <= total && block.count <= total - block.begin) return;
    const std::string range =
        "[" + std::to_string(block.begin) + ", " + std::to_string(block.begin + block.count) + ")";
    throw InputError("rows " + range + " requested on rank " + std::to_string(io.rank()) +
                         " lie outside the dataset, which has " + std::to_string(total) + " rows",
                     {where.file, where.key, range});
  });
}

void read_row_block(const Hdf5Dataset& dataset, const Communicator& io, hid_t mem_type, RowBlock block,
                    void* buffer) {
  const ErrorContext where = dataset.context();
  const Hdf5Handle file_space =
      checked_handle(H5Dget_space(dataset.id()), H5Sclose, "cannot read dataset shape", where);
  select_block(file_space.get(), dataset.dims(), block, where);
  const Hdf5Handle mem_space = memory_space(dataset.dims(), block, where);
  // A read fails where a file is truncated or corrupt, possibly on some ranks only (each reads its
  // own rows): agreed, so that every rank reports the input file rather than one waiting.
  io.all_or_none([&] {
    if (H5Dread(dataset.id(), mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, nonnull(buffer)) < 0)
      throw InputError("cannot read dataset (truncated or corrupt file?): " + take_hdf5_error_message(),
                       where);
  });
}

void write_row_block(hid_t dataset, const std::vector<std::uint64_t>& dims, hid_t mem_type, RowBlock block,
                     const void* buffer, const ErrorContext& where) {
  const Hdf5Handle file_space =
      checked_handle(H5Dget_space(dataset), H5Sclose, "cannot read dataset shape", where);
  select_block(file_space.get(), dims, block, where);
  const Hdf5Handle mem_space = memory_space(dims, block, where);
  check_hdf5(H5Dwrite(dataset, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT,
                      nonnull(const_cast<void*>(buffer))),
             "cannot write dataset", where);
}

Hdf5Handle fixed_string_type(std::size_t size, const ErrorContext& where) {
  Hdf5Handle type = checked_handle(H5Tcopy(H5T_C_S1), H5Tclose, "cannot create string type", where);
  check_hdf5(H5Tset_size(type.get(), std::max<std::size_t>(size, 1)), "cannot size string type", where);
  check_hdf5(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "cannot set string padding", where);
  check_hdf5(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot set string encoding", where);
  return type;
}

}  // namespace gplvm::io_detail
