#include "gplvm/train/tangent_chart_file.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/output_space_registry.hpp"

namespace gplvm {
namespace {

constexpr const char* kGroup = "/output_space";

}  // namespace

void write_tangent_chart(Hdf5ResultWriter& out, const TangentChart& chart) {
  const std::string space = chart.manifold->name();
  out.write_vector(std::string(kGroup) + "/basepoint", chart.basepoint);
  out.write_matrix(std::string(kGroup) + "/tangent_basis", chart.basis);
  out.write_attribute(kGroup, "name", space);
  out.write_attribute(kGroup, "basis", chart.manifold->tangent_basis_description());
  out.write_attribute("/", "output_space", space);
}

std::optional<TangentChart> read_tangent_chart(const Hdf5ResultReader& run) {
  if (!run.exists(kGroup)) return std::nullopt;
  const std::string space = run.read_attribute_string(kGroup, "name");
  const Vector basepoint = run.read_vector(std::string(kGroup) + "/basepoint");
  std::shared_ptr<const Manifold> manifold;
  try {
    manifold = make_output_manifold(space, basepoint.size(), std::string(kGroup) + "@name");
  } catch (const InputError& e) {
    throw InputError(e.reason(), {run.path(), e.context().key, e.context().value});
  }
  TangentChart chart;
  chart.manifold = manifold;
  chart.basepoint = basepoint;
  chart.basis = run.read_matrix(std::string(kGroup) + "/tangent_basis");
  require(chart.basis.rows() == manifold->ambient_dim() && chart.basis.cols() == manifold->intrinsic_dim(),
          "the stored tangent basis does not fit the output space",
          {run.path(), std::string(kGroup) + "/tangent_basis",
           std::to_string(chart.basis.rows()) + "x" + std::to_string(chart.basis.cols())});
  return chart;
}

}  // namespace gplvm
