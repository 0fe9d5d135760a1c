#pragma once
// Geodesics as an initial-value problem (docs/math/geometry.md, "Shooting"): from x(0) with
// velocity v(0), integrate x'' ^i = -Gamma^i_jk x'^j x'^k with the expected metric's Christoffel
// symbols (geometry/expected_metric.hpp) by the classical Runge-Kutta method over t in [0, 1]. Shot
// with the initial velocity of a boundary-value solution it must arrive at that solution's end point:
// the check that the two solvers, and the Christoffel symbols, agree.
#include "gplvm/core/types.hpp"
#include "gplvm/geometry/expected_metric.hpp"

namespace gplvm {

// The path's points at t = 0, 1 / steps, ..., 1 ((steps + 1) x Q). InputError for steps < 1.
Matrix shoot_geodesic(const ExpectedMetric& metric, const Vector& start, const Vector& velocity, Index steps);

// The geodesic equation's acceleration -Gamma(v, v) at x.
Vector geodesic_acceleration(const ExpectedMetric& metric, const Vector& x, const Vector& velocity);

}  // namespace gplvm
