#include "gplvm/eval/edge_list_file.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/io/hdf5_file.hpp"

namespace gplvm {

GeneratingGraph read_edge_list(const std::string& file, const std::string& dataset, Index rows,
                               const Communicator& comm) {
  const Hdf5File handle = Hdf5File::open(file, comm.raw());
  const Hdf5Dataset d = handle.open_dataset(dataset);
  // The shape and type first: a float or 1-D dataset is refused by name, not misread.
  d.require_rank(2, "E x 2 (one edge per row)");
  require(d.dims()[1] == 2, "an edge list has 2 columns (one edge per row)",
          d.context(std::to_string(d.dims()[1]) + " columns"));
  require(d.element_type() == ElementType::integer, "an edge list holds integer row indices",
          d.context(d.type_name()));
  require(d.dims()[0] > 0, "the edge list is empty", d.context("0 edges"));
  // Every rank opened the file with the serial driver and reads the (small) list itself; a read
  // that fails anywhere fails everywhere.
  std::vector<std::int64_t> values(2 * d.dims()[0]);
  comm.all_or_none([&] {
    check_hdf5(H5Dread(d.id(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
               "cannot read the edge list", d.context());
  });
  std::vector<GraphEdge> edges(d.dims()[0]);
  for (std::size_t k = 0; k < edges.size(); ++k) {
    for (const std::int64_t v : {values[2 * k], values[2 * k + 1]})
      require(v >= 0 && v < rows,
              "an edge names a row outside the latents' " + std::to_string(rows) + " rows",
              {file, dataset, "edge " + std::to_string(k) + ": row " + std::to_string(v)});
    edges[k] = {static_cast<Index>(values[2 * k]), static_cast<Index>(values[2 * k + 1])};
    require(edges[k].a != edges[k].b, "an edge links a row to itself",
            {file, dataset, "edge " + std::to_string(k) + ": row " + std::to_string(edges[k].a)});
  }
  return edge_list_graph(rows, edges);
}

}  // namespace gplvm
