#pragma once
// Geodesics of the expected metric as a boundary-value problem (docs/math/geometry.md): the cubic
// spline (geometry/cubic_spline.hpp) from p0 to p1 whose expected discrete energy
// (geometry/curve_energy.hpp) at `nodes` equally spaced parameters is least, found by L-BFGS (PETSc
// TAO, one process) with the energy's analytic gradient, d energy / d W = Phi^T d energy / d nodes.
// It starts from the lowest in energy of the straight line, the straight line run at constant expected
// speed, and given weights (a graph geodesic's fit), so its energy is never above any of them, and
// its length (at constant speed about the square root of its energy) not above the straight line's.
#include <memory>
#include <optional>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/geometry/cubic_spline.hpp"
#include "gplvm/geometry/curve_energy.hpp"
#include "gplvm/geometry/latent_chart.hpp"
#include "gplvm/models/gp_posterior.hpp"
#include "gplvm/optim/tao_minimizer.hpp"

namespace gplvm {

struct SplineGeodesicOptions {
  Index segments = 10;  // L: L + 1 free parameters per latent coordinate
  Index nodes = 20;     // where the energy is evaluated
  int max_iterations = 500;
  double gradient_tolerance = 1e-7;  // relative to the first gradient's norm
};

struct GeodesicSolution {
  SplineCurve curve;
  CurveEnergy energy;           // of the solution, at the nodes (no gradient)
  CurveEnergy straight;         // of the straight line from p0 to p1
  double initial_energy = 0.0;  // where the solver started
  bool started_from_graph = false;
  int iterations = 0;
  bool converged = false;  // stopped on a gradient tolerance
  std::string stop_reason;
};

class SplineGeodesicSolver {
 public:
  // Keeps references to the posterior and the chart (null: the latents are R^Q, the kernel's inputs).
  // Curves are written in the chart's coordinates. Needs a live PetscSession.
  SplineGeodesicSolver(const GpPosterior& posterior, const SplineGeodesicOptions& options,
                       const LatentChart* chart = nullptr);
  ~SplineGeodesicSolver();

  const CubicSplineBasis& basis() const noexcept { return basis_; }
  const Vector& parameters() const noexcept { return t_; }  // the nodes' t

  Index dim() const noexcept { return dim_; }  // Q of the chart
  // The kernel inputs (points of the latent space) at chart coordinates.
  Matrix points(const ConstMatrixRef& coordinates) const;

  // The geodesic from p0 to p1 (Q chart coordinates each); `initial` weights ((L + 1) x Q) may seed it.
  GeodesicSolution solve(const Vector& start, const Vector& end, const Matrix* initial = nullptr);
  // The expected energy of a spline curve at the nodes (with its gradient in the weights when asked).
  CurveEnergy energy(const SplineCurve& curve, Matrix* weight_gradient = nullptr) const;

 private:
  // Weights of the straight line from start to end run at constant expected speed.
  Matrix constant_speed_line(const Vector& start, const Vector& end) const;

  const GpPosterior& posterior_;
  const LatentChart* chart_;
  Index dim_;
  SplineGeodesicOptions options_;
  CubicSplineBasis basis_;
  Vector t_;
  Matrix phi_;    // basis.at(t_): nodes x (L + 1)
  Matrix upper_;  // U, U^T U = Phi^T Lap Phi: the solver's variables are U W
  // posterior_reduction() for up to kReducedConditioning points (8 M^2 bytes), else none.
  static constexpr Index kReducedConditioning = 4000;
  std::optional<Matrix> reduction_;
  Communicator self_;
  std::unique_ptr<TaoMinimizer> tao_;
};

}  // namespace gplvm
