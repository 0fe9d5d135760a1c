// Closed-form Psi-statistics of the EQ-ARD kernel and their adjoints (docs/math/kernels.md).
//
// With c_nq = l_q^2 + s_nq, c2_nq = l_q^2 + 2 s_nq, zbar = (z_m + z_m') / 2:
//   psi0 = N theta
//   psi1_nm = theta prod_q (1 + s_nq / l_q^2)^(-1/2) exp(-(mu_nq - z_mq)^2 / (2 c_nq))
//   psi2_mm' = theta^2 sum_n prod_q (1 + 2 s_nq / l_q^2)^(-1/2)
//                 exp(-(z_mq - z_m'q)^2 / (4 l_q^2) - (mu_nq - zbar_q)^2 / c2_nq)
// Each entry is formed as one exponent (log prefactor minus the quadratic terms) and
// exponentiated once: the product of Q small factors would underflow term by term before the
// entry does, and log1p keeps the prefactor exact for s << l^2.
#include <cmath>

#include "gplvm/model/eq_ard_kernel.hpp"
#include "psi_checks.hpp"

namespace gplvm {
namespace {

// log theta^power - 1/2 sum_q log(1 + scale s_nq / l_q^2), one per row n.
Eigen::ArrayXd log_prefactors(const ConstMatrixRef& variance, const Eigen::ArrayXd& inv_l2,
                              double log_theta_power, double scale) {
  Eigen::ArrayXd out = Eigen::ArrayXd::Constant(variance.rows(), log_theta_power);
  for (Index q = 0; q < variance.cols(); ++q)
    out -= 0.5 * (scale * inv_l2[q] * variance.col(q).array()).log1p();
  return out;
}

// The n-independent parts of psi2's exponent: -sum_q (z_mq - z_m'q)^2 / (4 l_q^2), the midpoints
// zbar_q (one M x M array per q) and the squared differences (z_mq - z_m'q)^2 per q.
struct Psi2Geometry {
  Eigen::ArrayXXd spread;
  std::vector<Eigen::ArrayXXd> midpoints, squared_differences;
};

Psi2Geometry psi2_geometry(const ConstMatrixRef& Z, const Eigen::ArrayXd& inv_l2) {
  const Index m = Z.rows();
  Psi2Geometry g{Eigen::ArrayXXd::Zero(m, m), {}, {}};
  for (Index q = 0; q < Z.cols(); ++q) {
    const Eigen::ArrayXd z = Z.col(q).array();
    const Eigen::ArrayXXd rows = z.replicate(1, m), cols = z.transpose().replicate(m, 1);
    g.midpoints.push_back(0.5 * (rows + cols));
    g.squared_differences.push_back((rows - cols).square());
    g.spread -= 0.25 * inv_l2[q] * g.squared_differences.back();
  }
  return g;
}

// The per-row term of psi2 (M x M) for row n.
void psi2_term(const Psi2Geometry& g, const ConstMatrixRef& mean, const Eigen::ArrayXd& inv_c2,
               double log_prefactor, Index n, Eigen::ArrayXXd& term) {
  term = g.spread + log_prefactor;
  for (Index q = 0; q < mean.cols(); ++q) term -= inv_c2[q] * (mean(n, q) - g.midpoints[q]).square();
  term = term.exp();
}

}  // namespace

void EqArdKernel::psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                                 const ConstMatrixRef& Z, PsiStatistics& out) const {
  psi_checks::require_psi_inputs(mean, variance, Z, input_dim());
  const Index n_rows = mean.rows(), q_dim = mean.cols();
  const Eigen::ArrayXd l2 = lengthscales_.array().square(), inv_l2 = l2.inverse();
  out.psi0 = static_cast<double>(n_rows) * variance_;

  const double log_theta = std::log(variance_);
  Eigen::ArrayXXd e1 = log_prefactors(variance, inv_l2, log_theta, 1.0).replicate(1, Z.rows());
  for (Index q = 0; q < q_dim; ++q) {
    const Eigen::ArrayXd inv_2c = 0.5 / (l2[q] + variance.col(q).array());
    for (Index m = 0; m < Z.rows(); ++m) e1.col(m) -= inv_2c * (mean.col(q).array() - Z(m, q)).square();
  }
  out.psi1 = e1.exp().matrix();

  const Psi2Geometry g = psi2_geometry(Z, inv_l2);
  const Eigen::ArrayXd log_pre2 = log_prefactors(variance, inv_l2, 2.0 * log_theta, 2.0);
  Eigen::ArrayXXd sum = Eigen::ArrayXXd::Zero(Z.rows(), Z.rows()), term;
  for (Index n = 0; n < n_rows; ++n) {
    const Eigen::ArrayXd inv_c2 = (l2 + 2.0 * variance.row(n).transpose().array()).inverse();
    psi2_term(g, mean, inv_c2, log_pre2[n], n, term);
    sum += term;
  }
  out.psi2 = sum.matrix();
}

void EqArdKernel::psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                               const ConstMatrixRef& Z, const PsiStatistics& value, double d_psi0,
                               const ConstMatrixRef& d_psi1, const ConstMatrixRef& d_psi2, Matrix* d_mean,
                               Matrix* d_variance, Matrix* dZ, VectorRef d_hyper) const {
  psi_checks::require_psi_inputs(mean, variance, Z, input_dim());
  psi_checks::require_psi_adjoints(mean, Z, d_psi1, d_psi2);
  const Index n_rows = mean.rows(), q_dim = mean.cols(), m_dim = Z.rows();
  const Eigen::ArrayXd l2 = lengthscales_.array().square(), inv_l2 = l2.inverse();

  // psi0 = N theta.
  d_hyper[0] += d_psi0 * static_cast<double>(n_rows) * variance_;

  // psi1, with P = d_psi1 o psi1, d = mu_nq - z_mq, c = l_q^2 + s_nq, per (n, m) and q:
  //   dlog(psi1)/dmu = -d/c = -dlog(psi1)/dz,  dlog(psi1)/ds = (d^2/c - 1) / (2c),
  //   dlog(psi1)/dlog(l) = s/c + l^2 d^2/c^2,  dlog(psi1)/dlog(theta) = 1.
  const Eigen::ArrayXXd P1 = d_psi1.array() * value.psi1.array();
  const Eigen::ArrayXd p1_rows = P1.rowwise().sum();
  d_hyper[0] += p1_rows.sum();
  for (Index q = 0; q < q_dim; ++q) {
    const Eigen::ArrayXd s = variance.col(q).array(), inv_c = (l2[q] + s).inverse();
    const Eigen::ArrayXXd D =
        mean.col(q).array().replicate(1, m_dim) - Z.col(q).transpose().array().replicate(n_rows, 1);
    const Eigen::ArrayXXd F = (P1 * D).colwise() * inv_c;    // P d / c
    const Eigen::ArrayXd fd_rows = (F * D).rowwise().sum();  // sum_m P d^2 / c
    if (d_mean) d_mean->col(q).array() -= F.rowwise().sum();
    if (dZ) dZ->col(q).array() += F.colwise().sum().transpose();
    if (d_variance) d_variance->col(q).array() += 0.5 * inv_c * (fd_rows - p1_rows);
    d_hyper[1 + q] += (inv_c * (s * p1_rows + l2[q] * fd_rows)).sum();
  }

  // psi2, with P_n = D2 o T_n (T_n the row-n term, D2 the symmetric part of d_psi2),
  // e = mu_nq - zbar_q, c2 = l_q^2 + 2 s_nq, E = e / c2, per (n, m, m') and q:
  //   dlog(T)/dmu = -2E,  dlog(T)/ds = 2E^2 - 1/c2,  dlog(T)/dlog(theta) = 2,
  //   dlog(T)/dlog(l) = 2s/c2 + 2 l^2 E^2 + (z_m - z_m')^2 / (2 l^2),
  //   dlog(T)/dz_m = E - (z_m - z_m') / (2 l^2), and the same again through z_m as second index.
  const Matrix D2 = 0.5 * (d_psi2 + d_psi2.transpose());
  const Psi2Geometry g = psi2_geometry(Z, inv_l2);
  const Eigen::ArrayXd log_pre2 = log_prefactors(variance, inv_l2, 2.0 * std::log(variance_), 2.0);
  Eigen::ArrayXXd P_sum = Eigen::ArrayXXd::Zero(m_dim, m_dim), P, E, PE;
  Matrix pe_rows = Matrix::Zero(m_dim, q_dim);  // sum_n sum_m' P E, per m and q
  for (Index n = 0; n < n_rows; ++n) {
    const Eigen::ArrayXd inv_c2 = (l2 + 2.0 * variance.row(n).transpose().array()).inverse();
    psi2_term(g, mean, inv_c2, log_pre2[n], n, P);
    P *= D2.array();
    P_sum += P;
    const double p_total = P.sum();
    for (Index q = 0; q < q_dim; ++q) {
      E = inv_c2[q] * (mean(n, q) - g.midpoints[q]);
      PE = P * E;
      const double pe2 = (PE * E).sum();
      if (d_mean) (*d_mean)(n, q) -= 2.0 * PE.sum();
      if (d_variance) (*d_variance)(n, q) += 2.0 * pe2 - inv_c2[q] * p_total;
      d_hyper[1 + q] += 2.0 * variance(n, q) * inv_c2[q] * p_total + 2.0 * l2[q] * pe2;
      if (dZ) pe_rows.col(q) += PE.rowwise().sum().matrix();
    }
  }
  d_hyper[0] += 2.0 * P_sum.sum();
  const Eigen::ArrayXd p_sum_rows = P_sum.rowwise().sum();
  for (Index q = 0; q < q_dim; ++q) {
    d_hyper[1 + q] += 0.5 * inv_l2[q] * (P_sum * g.squared_differences[q]).sum();
    if (dZ)  // 2 sum_m' P (E - (z_m - z_m') / (2 l^2)), the factor 2 for the two index positions
      dZ->col(q) += (2.0 * pe_rows.col(q).array() -
                     inv_l2[q] * (Z.col(q).array() * p_sum_rows - (P_sum.matrix() * Z.col(q)).array()))
                        .matrix();
  }
}

}  // namespace gplvm
