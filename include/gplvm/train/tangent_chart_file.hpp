#pragma once
// The constant-basepoint chart of a run on an output manifold, in its run file:
//   /output_space/basepoint      (data_dim: the training data's Fréchet mean, canonical)
//   /output_space/tangent_basis  (data_dim x intrinsic_dim: the orthonormal basis at the basepoint)
// with attributes name (the model.output_space value) and basis (how the basis is built), and the
// root attribute output_space. Runs on Euclidean data have no such group.
#include <optional>

#include "gplvm/io/result_writer.hpp"
#include "gplvm/manifold/tangent_chart.hpp"

namespace gplvm {

void write_tangent_chart(Hdf5ResultWriter& out, const TangentChart& chart);
// The chart stored in a run file; none when the run was trained on Euclidean data. InputError
// naming the file when the group is malformed (unknown space, shapes that do not fit).
std::optional<TangentChart> read_tangent_chart(const Hdf5ResultReader& run);

}  // namespace gplvm
