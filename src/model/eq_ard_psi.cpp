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
#include <algorithm>
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

// Psi2's entries are symmetric in (m, m'), so only the lower triangle m >= m' is formed. For each
// entry the batch rows run as one vector, a chunk of rows at a time so that the per-row arrays
// (means, 1/c2, log prefactors, the adjoint's accumulators) stay in L1 while every entry of the
// triangle passes over them: one fused pass per entry and chunk, no M x M temporaries per row.
constexpr Index kPsi2RowChunk = 256;

// 1 / (l_q^2 + 2 s_nq), N x Q.
Eigen::ArrayXXd psi2_inverse_widths(const ConstMatrixRef& variance, const Eigen::ArrayXd& l2) {
  Eigen::ArrayXXd out(variance.rows(), variance.cols());
  for (Index q = 0; q < variance.cols(); ++q) out.col(q) = (l2[q] + 2.0 * variance.col(q).array()).inverse();
  return out;
}

// One chunk of rows [first, first + len) for the entry (m, m'): diff_q = mu_nq - zbar_q and the
// exponent log prefactor_n - sum_q (z_mq - z_m'q)^2 / (4 l_q^2) - sum_q diff_q^2 / c2_nq.
struct Psi2Chunk {
  Eigen::ArrayXd exponent;
  Eigen::ArrayXXd diff;  // len x Q
  explicit Psi2Chunk(Index q_dim) : exponent(kPsi2RowChunk), diff(kPsi2RowChunk, q_dim) {}

  void form(const ConstMatrixRef& mean, const Eigen::ArrayXXd& inv_c2, const Eigen::ArrayXd& log_pre2,
            const ConstMatrixRef& Z, const Eigen::ArrayXd& inv_l2, Index first, Index len, Index m,
            Index mp) {
    double spread = 0.0;
    for (Index q = 0; q < Z.cols(); ++q) {
      const double dz = Z(m, q) - Z(mp, q);
      spread -= 0.25 * inv_l2[q] * dz * dz;
    }
    auto e = exponent.head(len);
    e = log_pre2.segment(first, len) + spread;
    for (Index q = 0; q < Z.cols(); ++q) {
      const double zbar = 0.5 * (Z(m, q) + Z(mp, q));
      auto d = diff.col(q).head(len);
      d = mean.col(q).segment(first, len).array() - zbar;
      e -= inv_c2.col(q).segment(first, len) * d.square();
    }
  }
};

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

  const Index m_dim = Z.rows();
  const Eigen::ArrayXd log_pre2 = log_prefactors(variance, inv_l2, 2.0 * log_theta, 2.0);
  const Eigen::ArrayXXd inv_c2 = psi2_inverse_widths(variance, l2);
  out.psi2 = Matrix::Zero(m_dim, m_dim);
  Psi2Chunk chunk(q_dim);
  for (Index first = 0; first < n_rows; first += kPsi2RowChunk) {
    const Index len = std::min(kPsi2RowChunk, n_rows - first);
    for (Index mp = 0; mp < m_dim; ++mp)
      for (Index m = mp; m < m_dim; ++m) {
        chunk.form(mean, inv_c2, log_pre2, Z, inv_l2, first, len, m, mp);
        out.psi2(m, mp) += chunk.exponent.head(len).exp().sum();
      }
  }
  out.psi2.triangularView<Eigen::StrictlyUpper>() = out.psi2.transpose();
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
  const Eigen::ArrayXXd inv_c2 = psi2_inverse_widths(variance, l2);
  // Per row, summed over every (m, m') (the strict lower triangle twice, the diagonal once):
  // p_total = sum P, pe = sum P E_q, pe2 = sum P E_q^2.
  Eigen::ArrayXd p_total = Eigen::ArrayXd::Zero(n_rows);
  Eigen::ArrayXXd pe = Eigen::ArrayXXd::Zero(n_rows, q_dim), pe2 = Eigen::ArrayXXd::Zero(n_rows, q_dim);
  Eigen::ArrayXXd P_sum = Eigen::ArrayXXd::Zero(m_dim, m_dim);  // lower triangle, mirrored below
  Matrix pe_rows = Matrix::Zero(m_dim, q_dim);                  // sum_n sum_m' P E, per m and q
  Psi2Chunk chunk(q_dim);
  Eigen::ArrayXd P(kPsi2RowChunk), PE(kPsi2RowChunk);
  for (Index first = 0; first < n_rows; first += kPsi2RowChunk) {
    const Index len = std::min(kPsi2RowChunk, n_rows - first);
    auto p = P.head(len), pe_n = PE.head(len);
    for (Index mp = 0; mp < m_dim; ++mp)
      for (Index m = mp; m < m_dim; ++m) {
        const double weight = m == mp ? 1.0 : 2.0;
        chunk.form(mean, inv_c2, log_pre2, Z, inv_l2, first, len, m, mp);
        p = D2(m, mp) * chunk.exponent.head(len).exp();
        P_sum(m, mp) += p.sum();
        p_total.segment(first, len) += weight * p;
        for (Index q = 0; q < q_dim; ++q) {
          const auto E = inv_c2.col(q).segment(first, len) * chunk.diff.col(q).head(len);
          pe_n = p * E;
          pe.col(q).segment(first, len) += weight * pe_n;
          pe2.col(q).segment(first, len) += weight * pe_n * E;
          const double row_share = pe_n.sum();
          pe_rows(m, q) += row_share;
          if (m != mp) pe_rows(mp, q) += row_share;
        }
      }
  }
  P_sum.matrix().triangularView<Eigen::StrictlyUpper>() = P_sum.matrix().transpose();
  for (Index q = 0; q < q_dim; ++q) {
    const Eigen::ArrayXd s = variance.col(q).array(), ic = inv_c2.col(q);
    if (d_mean) d_mean->col(q).array() -= 2.0 * pe.col(q);
    if (d_variance) d_variance->col(q).array() += 2.0 * pe2.col(q) - ic * p_total;
    d_hyper[1 + q] += (2.0 * s * ic * p_total + 2.0 * l2[q] * pe2.col(q)).sum();
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
