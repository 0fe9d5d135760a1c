#pragma once
// The linear terms of LL-LVM's likelihood (docs/math/lllvm.md, "Linear terms"): y^T e = x^T b =
// gamma tr(C^T H), with b linear in C and H linear in x, so their expectations under q are b and H
// at q's means. Both are sums over the graph's edges, O(|E| d_x d_y).
#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/lllvm_problem.hpp"

namespace gplvm {

// b (n d_x, dimension-major): b_i = gamma sum_j eta_ij (C_i + C_j)^T (y_i - y_j), at C = mean_c.
Vector expected_b(const LllvmProblem& problem, const Matrix& mean_c, double gamma);
// H (d_y x n d_x): H_i = sum_j eta_ij (y_j - y_i)(x_j - x_i)^T, at x = mean_x.
Matrix expected_h(const LllvmProblem& problem, const Vector& mean_x);

}  // namespace gplvm
