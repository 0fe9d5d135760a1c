// fit_umap_curve (declared in umap_affinities.hpp): umap-learn's find_ab_params, by
// Levenberg-Marquardt on (log a, b).
#include <Eigen/Dense>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include "affinity_checks.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/probdr/umap_affinities.hpp"

namespace gplvm {
namespace {

constexpr int kPoints = 300;  // umap-learn's np.linspace(0, 3 spread, 300)
constexpr int kMaxIterations = 500;

// The fit is made in units of spread (xi = x / spread: the same 300 points whatever the spread, and
// min_dist / spread the only parameter), where w = 1 / (1 + exp(t)), t = log a~ + 2 b log xi, and
// a = a~ spread^(-2b) after it.
struct Problem {
  std::array<double, kPoints> log_xi{};  // log of xi_m (-infinity at xi_0 = 0)
  std::array<double, kPoints> target{};

  Problem(double ratio) {
    const double step = 3.0 / (kPoints - 1);
    for (int m = 0; m < kPoints; ++m) {
      const double xi = m == kPoints - 1 ? 3.0 : m * step;  // numpy's linspace sets the end exactly
      log_xi[m] = std::log(xi);
      target[m] = xi < ratio ? 1.0 : std::exp(-(xi - ratio));
    }
  }

  // 1 / (1 + a~ xi^(2b)) at point m: 1 at xi = 0 for b > 0 (0 for b < 0, 1 / (1 + a~) for b = 0).
  static double curve(double log_a, double b, double log_xi) {
    double t;
    if (std::isinf(log_xi))
      t = b > 0.0 ? -INFINITY : (b < 0.0 ? INFINITY : log_a);
    else
      t = log_a + 2.0 * b * log_xi;
    if (t > 0.0) {
      const double e = std::exp(-t);
      return e / (1.0 + e);
    }
    return 1.0 / (1.0 + std::exp(t));
  }

  double cost(const Eigen::Vector2d& theta) const {
    double sum = 0.0;
    for (int m = 0; m < kPoints; ++m) {
      const double r = curve(theta[0], theta[1], log_xi[m]) - target[m];
      sum += r * r;
    }
    return 0.5 * sum;
  }

  // J^T J and J^T r of the residuals w_m - target_m (dw/dt = -w (1 - w); xi = 0 has no gradient).
  void normal_equations(const Eigen::Vector2d& theta, Eigen::Matrix2d& jtj, Eigen::Vector2d& jtr) const {
    jtj.setZero();
    jtr.setZero();
    for (int m = 0; m < kPoints; ++m) {
      if (std::isinf(log_xi[m])) continue;
      const double w = curve(theta[0], theta[1], log_xi[m]);
      const double dw = -w * (1.0 - w);
      const Eigen::Vector2d row(dw, 2.0 * log_xi[m] * dw);
      jtj += row * row.transpose();
      jtr += row * (w - target[m]);
    }
  }
};

}  // namespace

UmapCurve fit_umap_curve(double spread, double min_dist) {
  require(std::isfinite(spread) && spread > 0.0, "probdr.spread must be positive",
          {"", "probdr.spread", exact_text(spread)});
  require(std::isfinite(min_dist) && min_dist >= 0.0, "probdr.min_dist must be >= 0",
          {"", "probdr.min_dist", exact_text(min_dist)});
  require(min_dist <= spread, "probdr.min_dist must not exceed probdr.spread (" + exact_text(spread) + ")",
          {"", "probdr.min_dist", exact_text(min_dist)});
  const Problem problem(min_dist / spread);
  Eigen::Vector2d theta(0.0, 1.0);  // a = b = 1, curve_fit's start
  double cost = problem.cost(theta), lambda = 1e-3;
  Eigen::Matrix2d jtj;
  Eigen::Vector2d jtr;
  problem.normal_equations(theta, jtj, jtr);
  bool converged = false;
  for (int iteration = 0; iteration < kMaxIterations && !converged; ++iteration) {
    Eigen::Matrix2d damped = jtj;
    damped.diagonal() += lambda * jtj.diagonal().cwiseMax(1e-300);
    const Eigen::Vector2d step = damped.ldlt().solve(-jtr);
    const Eigen::Vector2d trial = theta + step;
    const double trial_cost = problem.cost(trial);
    if (std::isfinite(trial_cost) && trial_cost < cost) {
      // Converged when the accepted step no longer moves the parameters or the misfit.
      converged = step.cwiseAbs().maxCoeff() <= 1e-13 * (1.0 + theta.cwiseAbs().maxCoeff()) ||
                  cost - trial_cost <= 1e-16 * cost;
      theta = trial;
      cost = trial_cost;
      lambda = std::max(lambda / 10.0, 1e-12);
      problem.normal_equations(theta, jtj, jtr);
    } else {
      lambda *= 10.0;
      // No step, however short, lowers the misfit: theta is its minimum to rounding.
      converged = lambda > 1e12;
    }
  }
  if (!converged)
    throw NumericalError("the UMAP curve fit did not converge for spread " + exact_text(spread) +
                             ", min_dist " + exact_text(min_dist),
                         {"", "probdr.min_dist", exact_text(min_dist)});
  // a~ xi^(2b) = a~ spread^(-2b) x^(2b).
  return {std::exp(theta[0] - 2.0 * theta[1] * std::log(spread)), theta[1]};
}

}  // namespace gplvm
