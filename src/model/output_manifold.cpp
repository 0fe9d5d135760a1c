#include "gplvm/model/output_manifold.hpp"

#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/model/kendall_shape_space.hpp"
#include "gplvm/model/spd_affine.hpp"
#include "gplvm/model/spd_log_euclidean.hpp"
#include "gplvm/model/spd_matrix_functions.hpp"
#include "gplvm/model/sphere_manifold.hpp"

namespace gplvm {

double OutputManifold::inner(const ConstVectorRef& p, const ConstVectorRef& u,
                             const ConstVectorRef& v) const {
  return u.dot(lower_index(p, v));
}

double OutputManifold::ambient_distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return (canonical(p) - canonical(q)).norm();
}

double OutputManifold::norm(const ConstVectorRef& p, const ConstVectorRef& v) const {
  return std::sqrt(std::max(0.0, inner(p, v, v)));
}

Vector OutputManifold::to_coordinates(const ConstVectorRef& p, const ConstMatrixRef& basis,
                                      const ConstVectorRef& v) const {
  return basis.transpose() * lower_index(p, v);
}

Vector OutputManifold::from_coordinates(const ConstMatrixRef& basis,
                                        const ConstVectorRef& coordinates) const {
  return basis * coordinates;
}

FrechetMean OutputManifold::frechet_mean(const DataRef& points, const FrechetMeanOptions& options) const {
  require(points.rows() > 0, "the Fréchet mean needs at least one point", {"", "points", "0"});
  FrechetMean mean{initial_mean(points), 0, 0.0};
  for (;; ++mean.iterations) {
    Vector step = Vector::Zero(data_dim());
    for (Index i = 0; i < points.rows(); ++i) step += log(mean.point, points.row(i).transpose());
    step /= static_cast<double>(points.rows());
    mean.gradient_norm = norm(mean.point, step);
    if (mean.gradient_norm <= options.tolerance) return mean;
    if (mean.iterations >= options.max_iterations) break;
    mean.point = canonical(exp(mean.point, step));
  }
  char text[160];
  std::snprintf(text, sizeof text, "|mean Log| = %.3g > tolerance %.3g after %d iterations",
                mean.gradient_norm, options.tolerance, options.max_iterations);
  throw NumericalError("the Fréchet mean on " + name() + " did not converge (data too spread out?)",
                       {"", "frechet_mean", text});
}

const std::vector<std::string>& output_manifold_names() {
  static const std::vector<std::string> names{"sphere", "kendall", "spd_log_euclidean", "spd_affine"};
  return names;
}

std::unique_ptr<OutputManifold> make_output_manifold(const std::string& name, Index data_dim,
                                                     const std::string& key) {
  const std::string width = std::to_string(data_dim) + " numbers per point";
  if (name == "sphere") {
    require(data_dim >= 2, "a sphere needs points of at least 2 coordinates", {"", key, width});
    return std::make_unique<SphereManifold>(data_dim);
  }
  if (name == "kendall") {
    require(data_dim >= 6 && data_dim % 2 == 0, "Kendall shapes need k >= 3 landmarks of 2 coordinates",
            {"", key, width});
    return std::make_unique<KendallShapeSpace>(data_dim / 2);
  }
  if (name == "spd_log_euclidean") return std::make_unique<SpdLogEuclidean>(spd::matrix_order(data_dim, key));
  if (name == "spd_affine") return std::make_unique<SpdAffine>(spd::matrix_order(data_dim, key));
  throw InputError("unknown output space (known: euclidean, sphere, kendall, spd_log_euclidean, spd_affine)",
                   {"", key, name});
}

OffManifoldRow first_off_manifold_row(const OutputManifold& manifold, const DataRef& rows, double tolerance) {
  for (Index i = 0; i < rows.rows(); ++i) {
    std::string reason = manifold.off_manifold_reason(rows.row(i).transpose(), tolerance);
    if (!reason.empty()) return {i, std::move(reason)};
  }
  return {};
}

}  // namespace gplvm
