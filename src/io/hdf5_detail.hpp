#pragma once
// Internal to src/io: row-block transfers shared by the dataset reader and the result writer.
//
// A "row block" is rows [begin, begin + count) of a dataset along its first dimension, with all
// of its other dimensions (a scalar dataset is one row). Every rank of the file's communicator
// calls a read together; a rank with count 0 selects nothing but still takes part, because a
// collective MPI-IO transfer needs every rank. Writes are made by one process alone.
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/io/hdf5_file.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm::io_detail {

struct RowBlock {
  std::uint64_t begin = 0;
  std::uint64_t count = 0;
};

// Elements per row of a dataset with these dimensions (1 for scalars and 1-D datasets).
std::uint64_t row_width(const std::vector<std::uint64_t>& dims);

// Collective: InputError on every rank when any rank's block does not lie inside [0, total),
// naming that rank's block, the file and the dataset.
void require_block_in_range(const Communicator& io, RowBlock block, std::uint64_t total,
                            const ErrorContext& where);

// Collective read of a row block, converted by HDF5 to mem_type, into buffer (count x row_width).
// The caller checks the block with require_block_in_range first (before allocating the buffer).
// InputError naming the file and dataset on every rank when the read fails on any.
void read_row_block(const Hdf5Dataset& dataset, const Communicator& io, hid_t mem_type, RowBlock block,
                    void* buffer);

// Write of a row block from buffer (count x row_width elements of mem_type) by the one process
// that writes the file (not collective).
void write_row_block(hid_t dataset, const std::vector<std::uint64_t>& dims, hid_t mem_type, RowBlock block,
                     const void* buffer, const ErrorContext& where);

// A fixed-length string type of the given size (at least 1), null-padded, UTF-8.
Hdf5Handle fixed_string_type(std::size_t size, const ErrorContext& where);

}  // namespace gplvm::io_detail
