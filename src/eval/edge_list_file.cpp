#include "gplvm/eval/edge_list_file.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/io/hdf5_file.hpp"
#include "gplvm/io/result_writer.hpp"

namespace gplvm {

GeneratingGraph read_edge_list(const std::string& file, const std::string& dataset, Index rows,
                               const Communicator& comm) {
  {
    // The shape and type first, from the dataset itself: a float or 1-D dataset is refused by name
    // rather than read and misinterpreted.
    const Hdf5File handle = Hdf5File::open(file, comm.raw());
    const Hdf5Dataset d = handle.open_dataset(dataset);
    d.require_rank(2, "E x 2 (one edge per row)");
    require(d.dims()[1] == 2, "an edge list has 2 columns (one edge per row)",
            d.context(std::to_string(d.dims()[1]) + " columns"));
    require(d.element_type() == ElementType::integer, "an edge list holds integer row indices",
            d.context(d.type_name()));
    require(d.dims()[0] > 0, "the edge list is empty", d.context("0 edges"));
  }
  // Row indices below 2^53 (any possible row count) are exact as doubles.
  const Matrix values = Hdf5ResultReader(file, comm.raw()).read_matrix(dataset);
  std::vector<GraphEdge> edges(static_cast<std::size_t>(values.rows()));
  for (Index k = 0; k < values.rows(); ++k) {
    for (Index c = 0; c < 2; ++c) {
      const double v = values(k, c);
      require(v >= 0 && v < static_cast<double>(rows),
              "an edge names a row outside the latents' " + std::to_string(rows) + " rows",
              {file, dataset,
               "edge " + std::to_string(k) + ": row " + std::to_string(static_cast<long long>(v))});
    }
    edges[static_cast<std::size_t>(k)] = {static_cast<Index>(values(k, 0)), static_cast<Index>(values(k, 1))};
    require(edges[static_cast<std::size_t>(k)].a != edges[static_cast<std::size_t>(k)].b,
            "an edge links a row to itself",
            {file, dataset,
             "edge " + std::to_string(k) + ": row " + std::to_string(edges[static_cast<std::size_t>(k)].a)});
  }
  return edge_list_graph(rows, edges);
}

}  // namespace gplvm
