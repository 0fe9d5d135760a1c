#include "gplvm/graph/hnsw_neighbours.hpp"

#include <hnswlib/hnswlib.h>

#include <cmath>
#include <memory>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/input_checks.hpp"
#include "gplvm/graph/squared_distances.hpp"
#include "neighbour_lists.hpp"
#include "ring_pass.hpp"
#include "search_progress.hpp"

namespace gplvm {
namespace {

double square_root(double x) {
  return std::sqrt(x);
}

// One rank's shard: its rows, their squared norms and an hnswlib index over them (none when the
// rank holds no row).
class Shard {
 public:
  Shard(const DataRef& rows, std::uint64_t first_row, const HnswOptions& options)
      : rows_(rows),
        norms_(row_squared_norms(rows)),
        first_row_(first_row),
        space_(static_cast<std::size_t>(rows.cols())) {
    if (rows.rows() == 0) return;
    index_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(
        &space_, static_cast<std::size_t>(rows.rows()), static_cast<std::size_t>(options.M),
        static_cast<std::size_t>(options.ef_construction),
        static_cast<std::size_t>(options.seed + first_row));
    for (Index i = 0; i < rows.rows(); ++i) {
      const Eigen::VectorXf point = rows.row(i).transpose().cast<float>();
      index_->addPoint(point.data(), static_cast<hnswlib::labeltype>(i));
    }
  }

  // Offers this shard's approximate neighbours of `query` (global index `self`, left out) to row
  // `row` of `lists`, at their exact squared distances.
  void answer(const double* query, std::int64_t self, Index row, std::size_t ef, NeighbourLists& lists) {
    if (!index_) return;
    const Index d = rows_.cols();
    const Eigen::VectorXf point = Eigen::Map<const Vector>(query, d).cast<float>();
    // Summed by row_squared_norms, as every other norm: squared_distances.cpp is compiled so that
    // a duplicate row gives exactly 0.
    const double query_norm = row_squared_norms(Eigen::Map<const RowMatrix>(query, 1, d))[0];
    index_->setEf(ef);
    auto found = index_->searchKnn(point.data(), std::min<std::size_t>(lists.k() + 1, rows_.rows()));
    for (; !found.empty(); found.pop()) {
      const auto local = static_cast<Index>(found.top().second);
      const std::int64_t global = static_cast<std::int64_t>(first_row_) + local;
      if (global == self) continue;
      lists.offer(row, squared_distance(query, query_norm, rows_.row(local).data(), norms_[local], d),
                  global);
    }
  }

 private:
  DataRef rows_;  // the caller's rows, not a copy: at 10^7 rows a copy is gigabytes per rank
  Vector norms_;
  std::uint64_t first_row_;
  hnswlib::L2Space space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index_;
};

// A travelling block: [rows | k neighbour indices | k squared distances] per query row (indices as
// doubles, exact below 2^53), so that one sendrecv moves the queries and their lists together.
RowMatrix pack(const DataRef& rows, Index k) {
  RowMatrix block(rows.rows(), rows.cols() + 2 * k);
  block.leftCols(rows.cols()) = rows;
  block.middleCols(rows.cols(), k).setConstant(-1.0);
  block.rightCols(k).setConstant(std::numeric_limits<double>::infinity());
  return block;
}

NeighbourLists unpack_lists(const RowMatrix& block, Index d, Index k) {
  NeighbourLists lists(block.rows(), k);
  std::vector<std::int64_t> indices(static_cast<std::size_t>(k));
  for (Index i = 0; i < block.rows(); ++i) {
    Index count = 0;
    while (count < k && block(i, d + count) >= 0) {
      indices[static_cast<std::size_t>(count)] = static_cast<std::int64_t>(block(i, d + count));
      ++count;
    }
    lists.load(i, &block(i, d + k), indices.data(), count);
  }
  return lists;
}

void pack_lists(const NeighbourLists& lists, Index d, RowMatrix& block) {
  for (Index i = 0; i < lists.rows(); ++i)
    for (Index t = 0; t < lists.count(i); ++t) {
      block(i, d + t) = static_cast<double>(lists.index(i, t));
      block(i, d + lists.k() + t) = lists.key(i, t);
    }
}

// Rank r's rows [c S, (c + 1) S) for chunk c of size S (fewer, or none, at the end of its block).
struct ChunkLayout {
  Index size;
  Index chunks;  // the most any rank needs, so that every rank takes part in every shift
  std::uint64_t rows(const RowPartition& partition, int rank, Index chunk) const {
    const std::uint64_t start = static_cast<std::uint64_t>(chunk * size), count = partition.count(rank);
    return start >= count ? 0 : std::min<std::uint64_t>(static_cast<std::uint64_t>(size), count - start);
  }
};

// Chunks of about 64 MB of travelling rows, so that the ring holds two chunks rather than two whole
// blocks of rows and lists (at 10^7 x 50 on 2 ranks a block is 3.2 GB).
ChunkLayout chunk_layout(const RowPartition& partition, Index width, Index chunk_rows) {
  const Index size = chunk_rows > 0 ? chunk_rows : std::max<Index>(1024, (Index{64} << 20) / (8 * width));
  const auto largest = static_cast<Index>(partition.count(0));  // rank 0 holds the most rows
  return {size, std::max<Index>(1, (largest + size - 1) / size)};
}

// Passes chunk `chunk` of every rank's rows around the ring, each shard answering it, and returns
// this rank's chunk with its lists complete.
NeighbourLists search_chunk(const DataRef& local, Index k, Shard& shard, std::size_t ef,
                            const RowPartition& partition, const ChunkLayout& layout, Index chunk,
                            const Communicator& comm) {
  std::vector<std::uint64_t> counts, starts;
  for (int r = 0; r < comm.size(); ++r) {
    counts.push_back(layout.rows(partition, r, chunk));
    starts.push_back(partition.begin(r) + static_cast<std::uint64_t>(chunk * layout.size));
  }
  const Index d = local.cols();
  const auto own = static_cast<Index>(counts[static_cast<std::size_t>(comm.rank())]);
  RingPass ring(pack(local.middleRows(std::min(chunk * layout.size, local.rows()), own), k),
                std::move(counts), std::move(starts), comm);
  for (int step = 0; step < comm.size(); ++step) {
    RowMatrix& block = ring.block();
    NeighbourLists lists = unpack_lists(block, d, k);
    for (Index i = 0; i < block.rows(); ++i)
      shard.answer(&block(i, 0), static_cast<std::int64_t>(ring.first_row()) + i, i, ef, lists);
    pack_lists(lists, d, block);
    ring.shift();  // P shifts: the chunk ends where it started, answered by every shard
  }
  return unpack_lists(ring.block(), d, k);
}

}  // namespace

KnnGraph hnsw_neighbours(const DataRef& local, Index k, const HnswOptions& options, const Communicator& comm,
                         const std::string& key) {
  require(options.M >= 2 && options.ef_construction >= 1 && options.ef >= 1 && options.chunk_rows >= 0,
          "hnsw parameters must be M >= 2, ef_construction >= 1, ef >= 1 and chunk rows >= 0",
          {"", "graph.hnsw", ""});
  const RowPartition partition = partition_of_rows(local, comm);
  require_neighbour_count(k, partition.num_rows(), key);
  const std::uint64_t first = partition.begin(comm.rank());
  require_finite_rows(local, first, comm);
  const SearchProgress progress("hnsw", comm);
  Shard shard(local, first, options);
  progress.report("rank 0's index of " + std::to_string(local.rows()) + " rows built");
  const auto ef = static_cast<std::size_t>(std::max<Index>(options.ef, k + 1));
  const ChunkLayout layout = chunk_layout(partition, local.cols() + 2 * k, options.chunk_rows);
  NeighbourLists lists(local.rows(), k);
  std::vector<double> keys(static_cast<std::size_t>(k));
  std::vector<std::int64_t> indices(static_cast<std::size_t>(k));
  for (Index c = 0; c < layout.chunks; ++c) {
    const NeighbourLists done = search_chunk(local, k, shard, ef, partition, layout, c, comm);
    for (Index i = 0; i < done.rows(); ++i) {
      for (Index t = 0; t < done.count(i); ++t) {
        keys[static_cast<std::size_t>(t)] = done.key(i, t);
        indices[static_cast<std::size_t>(t)] = done.index(i, t);
      }
      lists.load(c * layout.size + i, keys.data(), indices.data(), done.count(i));
    }
    progress.report("chunk " + std::to_string(c + 1) + " of " + std::to_string(layout.chunks) +
                    " answered by every shard");
  }
  return lists.to_graph(partition.num_rows(), first, square_root);
}

}  // namespace gplvm
