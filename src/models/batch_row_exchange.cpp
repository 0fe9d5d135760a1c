#include "gplvm/models/batch_row_exchange.hpp"

#include <algorithm>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// Element counts and displacements of rows[r] rows of `width` values per rank, packed in rank order.
void element_layout(const std::vector<int>& rows, Index width, std::vector<int>& counts,
                    std::vector<int>& displs) {
  counts.assign(rows.size(), 0);
  displs.assign(rows.size(), 0);
  for (std::size_t r = 0, at = 0; r < rows.size(); at += counts[r], ++r) {
    counts[r] = rows[r] * static_cast<int>(width);
    displs[r] = static_cast<int>(at);
  }
}

}  // namespace

RowMatrix exchange_batch_rows(const Communicator& comm, const std::vector<int>& from,
                              const std::vector<int>& to, const RowMatrix& held) {
  const int me = comm.rank(), ranks = comm.size();
  const Index width = held.cols();
  std::vector<int> send_rows(ranks, 0), receive_rows(ranks, 0);
  bool any_moved = false;
  for (std::size_t p = 0; p < from.size(); ++p) {
    any_moved = any_moved || from[p] != to[p];
    if (from[p] == me) ++send_rows[to[p]];
    if (to[p] == me) ++receive_rows[from[p]];
  }
  Index num_held = 0, num_needed = 0;
  for (int r = 0; r < ranks; ++r) num_held += send_rows[r], num_needed += receive_rows[r];
  if (num_held != held.rows())
    throw Error("exchange_batch_rows: " + std::to_string(held.rows()) + " rows given for " +
                std::to_string(num_held) + " positions");
  if (!any_moved) return held;

  // Rows grouped by destination, in position order within a group: the order the receiver expects.
  std::vector<int> send_counts, send_displs, receive_counts, receive_displs;
  element_layout(send_rows, width, send_counts, send_displs);
  element_layout(receive_rows, width, receive_counts, receive_displs);
  RowMatrix sent(num_held, width), received(num_needed, width);
  std::vector<Index> next_out(ranks), next_in(ranks);
  for (int r = 0; r < ranks; ++r) next_out[r] = send_displs[r] / std::max<Index>(width, 1);
  for (int r = 0; r < ranks; ++r) next_in[r] = receive_displs[r] / std::max<Index>(width, 1);
  if (width > 0) {
    for (std::size_t p = 0, i = 0; p < from.size(); ++p)
      if (from[p] == me) sent.row(next_out[to[p]]++) = held.row(static_cast<Index>(i++));
    comm.alltoallv(sent.data(), send_counts, send_displs, received.data(), receive_counts, receive_displs);
  }
  RowMatrix needed(num_needed, width);
  if (width > 0)
    for (std::size_t p = 0, i = 0; p < from.size(); ++p)
      if (to[p] == me) needed.row(static_cast<Index>(i++)) = received.row(next_in[from[p]]++);
  return needed;
}

}  // namespace gplvm
