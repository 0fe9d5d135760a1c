#include "gplvm/manifold/tangent_chart.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

TangentChart TangentChart::at(std::shared_ptr<const Manifold> manifold, const ConstVectorRef& basepoint) {
  require(basepoint.size() == manifold->ambient_dim(), "the basepoint has the wrong number of coordinates",
          {"", "basepoint", std::to_string(basepoint.size())});
  TangentChart chart;
  chart.basepoint = manifold->canonical(basepoint);
  chart.basis = manifold->tangent_basis(chart.basepoint);
  chart.manifold = std::move(manifold);
  return chart;
}

TangentChart TangentChart::at_frechet_mean(std::shared_ptr<const Manifold> manifold, const DataRef& rows,
                                           const FrechetMeanOptions& options) {
  const Vector mean = manifold->frechet_mean(rows, options).point;
  return at(std::move(manifold), mean);
}

RowMatrix TangentChart::coordinates(const DataRef& rows) const {
  require(
      rows.cols() == manifold->ambient_dim(), "data rows have the wrong width for the output space",
      {"", manifold->name(), std::to_string(rows.cols()) + " != " + std::to_string(manifold->ambient_dim())});
  RowMatrix out(rows.rows(), manifold->intrinsic_dim());
  for (Index i = 0; i < rows.rows(); ++i) {
    const Vector v = manifold->log(basepoint, rows.row(i).transpose());
    out.row(i) = manifold->to_coordinates(basepoint, basis, v).transpose();
  }
  return out;
}

RowMatrix TangentChart::points(const DataRef& coordinates) const {
  require(coordinates.cols() == manifold->intrinsic_dim(), "tangent coordinates have the wrong width",
          {"", manifold->name(),
           std::to_string(coordinates.cols()) + " != " + std::to_string(manifold->intrinsic_dim())});
  RowMatrix out(coordinates.rows(), manifold->ambient_dim());
  for (Index i = 0; i < coordinates.rows(); ++i) {
    const Vector v = manifold->from_coordinates(basis, coordinates.row(i).transpose());
    out.row(i) = manifold->exp(basepoint, v).transpose();
  }
  return out;
}

}  // namespace gplvm
