#include "gplvm/geometry/spline_geodesic.hpp"

#include <string>

#include <Eigen/Cholesky>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

TaoOptions tao_options(const SplineGeodesicOptions& o) {
  TaoOptions t;
  t.gatol = 1e-12;  // a start already at the optimum (a constant metric's straight line)
  t.grtol = 0.0;
  t.gttol = o.gradient_tolerance;
  t.max_iterations = o.max_iterations;
  return t;
}

}  // namespace

SplineGeodesicSolver::SplineGeodesicSolver(const GpPosterior& posterior, const SplineGeodesicOptions& options,
                                           const LatentChart* chart)
    : posterior_(posterior),
      chart_(chart),
      dim_(chart ? chart->dim() : posterior.kernel().input_dim()),
      options_(options),
      basis_(options.segments),
      t_(uniform_parameters(options.nodes)),
      phi_(basis_.at(t_)),
      self_(MPI_COMM_SELF) {
  require(options.max_iterations >= 1, "the geodesic solver needs at least one iteration",
          {"", "geodesic.max_iterations", std::to_string(options.max_iterations)});
  require(options.gradient_tolerance > 0.0, "the geodesic solver's gradient tolerance must be positive",
          {"", "geodesic.gradient_tolerance", std::to_string(options.gradient_tolerance)});
  // Phi^T Lap Phi, Lap the Laplacian of the path through the nodes: positive definite, as no
  // combination of the basis (zero at both ends) is constant along the nodes.
  const Matrix steps = phi_.bottomRows(phi_.rows() - 1) - phi_.topRows(phi_.rows() - 1);
  const Eigen::LLT<Matrix> llt(steps.transpose() * steps);
  require(llt.info() == Eigen::Success,
          "the spline basis is degenerate at these nodes: use more nodes than segments",
          {"", "--nodes", std::to_string(options.nodes)});
  upper_ = llt.matrixU();
  if (posterior.num_conditioning() <= kReducedConditioning) reduction_ = posterior_reduction(posterior);
  tao_ = std::make_unique<TaoMinimizer>(self_, basis_.num_free() * dim_, tao_options(options));
}

SplineGeodesicSolver::~SplineGeodesicSolver() = default;

Matrix SplineGeodesicSolver::points(const ConstMatrixRef& coordinates) const {
  return chart_ ? chart_->points(coordinates) : Matrix(coordinates);
}

CurveEnergy SplineGeodesicSolver::energy(const SplineCurve& curve, Matrix* weight_gradient) const {
  const Matrix nodes = curve.evaluate(basis_, t_);
  CurveEnergy e = expected_curve_energy(posterior_, points(nodes), weight_gradient != nullptr,
                                        reduction_ ? &*reduction_ : nullptr);
  if (weight_gradient) {
    if (chart_) e.gradient = chart_->backward(nodes, e.gradient);
    *weight_gradient = phi_.transpose() * e.gradient;
  }
  return e;
}

Matrix SplineGeodesicSolver::constant_speed_line(const Vector& start, const Vector& end) const {
  // The line at 4 (N - 1) + 1 points, their cumulative expected lengths, resampled at the nodes.
  const Vector fine = uniform_parameters(4 * (t_.size() - 1) + 1);
  Matrix line(fine.size(), start.size());
  for (Index j = 0; j < fine.size(); ++j) line.row(j) = ((1.0 - fine[j]) * start + fine[j] * end).transpose();
  const Vector steps =
      expected_curve_energy(posterior_, points(line), false, reduction_ ? &*reduction_ : nullptr)
          .segments.cwiseMax(0.0)
          .cwiseSqrt();
  Vector arc = Vector::Zero(fine.size());
  for (Index j = 1; j < fine.size(); ++j) arc[j] = arc[j - 1] + steps[j - 1];
  return fitted_weights(basis_, t_, resampled_polyline(line, arc, t_), start, end);
}

GeodesicSolution SplineGeodesicSolver::solve(const Vector& start, const Vector& end, const Matrix* initial) {
  const Index q = dim_, free = basis_.num_free();
  require(start.size() == q && end.size() == q, "a geodesic's end points have the wrong dimension",
          {"", "latent_dim", std::to_string(start.size())});
  GeodesicSolution out;
  out.curve = SplineCurve{start, end, Matrix::Zero(free, q)};
  out.straight = energy(out.curve);
  out.initial_energy = out.straight.energy;
  // The straight line at constant expected speed: its energy is about its length squared, which the
  // straight line at uniform parameters can exceed by far where the metric varies along it. A start
  // below it keeps the geodesic no longer than the straight line.
  const SplineCurve even{start, end, constant_speed_line(start, end)};
  const double even_energy = energy(even).energy;
  if (even_energy < out.initial_energy) {
    out.curve = even;
    out.initial_energy = even_energy;
  }
  if (initial) {
    require(initial->rows() == free && initial->cols() == q, "initial spline weights have the wrong shape",
            {"", "weights", std::to_string(initial->rows()) + " x " + std::to_string(initial->cols())});
    const SplineCurve seeded{start, end, *initial};
    const double seeded_energy = energy(seeded).energy;
    if (seeded_energy < out.initial_energy) {
      out.curve = seeded;
      out.initial_energy = seeded_energy;
      out.started_from_graph = true;
    }
  }
  // L-BFGS runs on V = U W (U^T U = Phi^T Lap Phi, the energy's Hessian for a constant unit metric),
  // in which the discretisation's own ill-conditioning (growing as N^2) is gone.
  SplineCurve trial = out.curve;
  const auto objective = [&](const ConstVectorRef& v, VectorRef gradient) {
    trial.weights = Eigen::Map<const Matrix>(v.data(), free, q);
    upper_.triangularView<Eigen::Upper>().solveInPlace(trial.weights);
    Matrix dW;
    const double value = energy(trial, &dW).energy;
    upper_.triangularView<Eigen::Upper>().transpose().solveInPlace(dW);
    gradient = Eigen::Map<const Vector>(dW.data(), dW.size());
    return value;
  };
  const Matrix start_weights = out.curve.weights;
  const Matrix start_v = upper_.triangularView<Eigen::Upper>() * start_weights;
  const Eigen::Map<const Vector> initial_point(start_v.data(), start_v.size());
  const TaoResult r = tao_->minimize(initial_point, objective);
  out.curve.weights = Eigen::Map<const Matrix>(r.solution.data(), free, q);
  upper_.triangularView<Eigen::Upper>().solveInPlace(out.curve.weights);
  out.energy = energy(out.curve);
  out.iterations = r.iterations;
  out.converged = r.converged;
  out.stop_reason = to_string(r.reason);
  // L-BFGS's line search accepts decreases only; should a failed solve still end above its start
  // (NaN included), the start is the answer, so the energy is never above the start's.
  if (!(out.energy.energy <= out.initial_energy)) {
    out.curve.weights = start_weights;
    out.energy = energy(out.curve);
    out.converged = false;
    out.stop_reason += "; kept the starting curve";
  }
  return out;
}

}  // namespace gplvm
