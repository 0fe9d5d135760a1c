#include "gplvm/train/tangent_chart_file.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

constexpr const char* kGroup = "/output_space";

std::string basis_description(const std::string& space) {
  if (space == "sphere") return "Householder complement of the basepoint";
  if (space == "kendall")
    return "Householder complement of translations, scaling and rotation at the pre-shape";
  if (space == "spd_log_euclidean") return "Frobenius basis of Sym(n): E_ii, (E_ij + E_ji)/sqrt(2)";
  return "basepoint^1/2 E basepoint^1/2 over the Frobenius basis E of Sym(n)";
}

}  // namespace

void write_tangent_chart(Hdf5ResultWriter& out, const TangentChart& chart) {
  const std::string space = chart.manifold->name();
  out.write_vector(std::string(kGroup) + "/basepoint", chart.basepoint);
  out.write_matrix(std::string(kGroup) + "/tangent_basis", chart.basis);
  out.write_attribute(kGroup, "name", space);
  out.write_attribute(kGroup, "basis", basis_description(space));
  out.write_attribute("/", "output_space", space);
}

std::optional<TangentChart> read_tangent_chart(const Hdf5ResultReader& run) {
  if (!run.exists(kGroup)) return std::nullopt;
  const std::string space = run.read_attribute_string(kGroup, "name");
  const Vector basepoint = run.read_vector(std::string(kGroup) + "/basepoint");
  std::shared_ptr<const OutputManifold> manifold;
  try {
    manifold = make_output_manifold(space, basepoint.size(), std::string(kGroup) + "@name");
  } catch (const InputError& e) {
    throw InputError(e.reason(), {run.path(), e.context().key, e.context().value});
  }
  TangentChart chart;
  chart.manifold = manifold;
  chart.basepoint = basepoint;
  chart.basis = run.read_matrix(std::string(kGroup) + "/tangent_basis");
  require(chart.basis.rows() == manifold->data_dim() && chart.basis.cols() == manifold->intrinsic_dim(),
          "the stored tangent basis does not fit the output space",
          {run.path(), std::string(kGroup) + "/tangent_basis",
           std::to_string(chart.basis.rows()) + "x" + std::to_string(chart.basis.cols())});
  return chart;
}

}  // namespace gplvm
