#include "gplvm/probdr/tsne_gradient.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/remote_rows.hpp"

namespace gplvm {
namespace {

// Edges ahead whose other end's row is prefetched in the attraction loop.
constexpr std::int64_t kPrefetchDistance = 16;

}  // namespace

TsneGradient::TsneGradient(const SparseGraph& p, double alpha, RepulsionMethod repulsion,
                           const InterpolationOptions& grid, const Communicator& comm)
    : p_(p), alpha_(alpha), repulsion_(repulsion), grid_(grid), comm_(comm) {
  require(alpha > 0, "the t-SNE kernel's degrees of freedom must be positive",
          {"", "probdr.tsne_dof", std::to_string(alpha)});
  const std::int64_t first = static_cast<std::int64_t>(p.first_row), end = first + p.local_rows();
  for (const std::int64_t j : p.columns)
    if (j < first || j >= end) halo_.push_back(j);
  std::sort(halo_.begin(), halo_.end());
  halo_.erase(std::unique(halo_.begin(), halo_.end()), halo_.end());
  slot_.resize(p.columns.size());
  const std::int64_t local = p.local_rows();
  require(local + static_cast<std::int64_t>(halo_.size()) < (std::int64_t{1} << 31),
          "a rank's rows and the rows its edges reach must number below 2^31 (use more ranks)",
          {"", "data.path", std::to_string(local)});
  double entropy = 0.0;
  for (std::size_t e = 0; e < p.columns.size(); ++e) {
    const std::int64_t j = p.columns[e];
    slot_[e] = static_cast<std::int32_t>(
        j >= first && j < end ? j - first
                              : local + (std::lower_bound(halo_.begin(), halo_.end(), j) - halo_.begin()));
    if (p.weights[e] > 0) entropy += p.weights[e] * std::log(p.weights[e]);
  }
  entropy_term_ = comm.allreduce_sum(entropy);
}

TsneEvaluation TsneGradient::evaluate(const RowMatrix& y, double exaggeration, bool with_kl) const {
  const Index rows = p_.local_rows(), l = y.cols();
  if (y.rows() != rows) throw Error("TsneGradient: the embedding's rows and the affinities' rows differ");
  // This rank's rows, then the halo's: every edge's other end at row slot_[edge].
  RowMatrix ends(rows + static_cast<Index>(halo_.size()), l);
  ends.topRows(rows) = y;
  ends.bottomRows(static_cast<Index>(halo_.size())) = fetch_rows(DataRef(y), p_.num_rows, halo_, comm_);
  if (repulsion_ != RepulsionMethod::exact && !interpolation_)
    interpolation_ = std::make_unique<InterpolatedRepulsion>(grid_);
  const RepulsionSums r = repulsion_ == RepulsionMethod::exact ? exact_repulsion(y, alpha_, comm_)
                                                               : interpolation_->evaluate(y, alpha_, comm_);
  TsneEvaluation e;
  e.normaliser = r.normaliser;
  e.boxes_per_dimension = r.boxes_per_dimension;
  e.gradient.resize(rows, l);
  double p_log_base = 0.0, mass = 0.0;
  const double inverse_alpha = 1.0 / alpha_, inverse_z = 1.0 / r.normaliser;
  // The attraction, with the latent dimension a compile-time constant where it is small (the loop
  // is bound by fetching the neighbours' rows; l = 2 is nearly every use).
  auto attract = [&]<int L>(Index l) {
    const Index width = L > 0 ? L : l;
    std::vector<double> attraction(static_cast<std::size_t>(width)), diff(static_cast<std::size_t>(width));
    for (Index i = 0; i < rows; ++i) {
      const double* yi = y.data() + i * width;
      for (Index d = 0; d < width; ++d) attraction[static_cast<std::size_t>(d)] = 0.0;
      for (std::int64_t edge = p_.row_begin(i); edge < p_.row_end(i); ++edge) {
        const std::size_t at = static_cast<std::size_t>(edge);
        const double* yj = ends.data() + static_cast<Index>(slot_[at]) * width;
        double d2 = 0.0;
        for (Index d = 0; d < width; ++d) {
          diff[static_cast<std::size_t>(d)] = yi[d] - yj[d];
          d2 += diff[static_cast<std::size_t>(d)] * diff[static_cast<std::size_t>(d)];
        }
        const double base = 1.0 + d2 * inverse_alpha;  // w^{-1/alpha}
        const double pij = p_.weights[at], pull = pij / base;
        for (Index d = 0; d < width; ++d)
          attraction[static_cast<std::size_t>(d)] += pull * diff[static_cast<std::size_t>(d)];
        if (with_kl) {
          p_log_base += pij * std::log(base);
          mass += pij;
        }
      }
      for (Index d = 0; d < width; ++d)
        e.gradient(i, d) =
            4.0 * (exaggeration * attraction[static_cast<std::size_t>(d)] - r.forces(i, d) * inverse_z);
    }
  };
  const std::int64_t edge_count = static_cast<std::int64_t>(slot_.size());
  auto attract_fixed = [&]<int L>() {
    for (Index i = 0; i < rows; ++i) {
      const double* yi = y.data() + i * L;
      double attraction[L] = {};
      for (std::int64_t edge = p_.row_begin(i); edge < p_.row_end(i); ++edge) {
        const std::size_t at = static_cast<std::size_t>(edge);
        // The rows are reached in no order (the loop waits on memory): ask for one a few edges ahead.
        if (edge + kPrefetchDistance < edge_count)
          __builtin_prefetch(ends.data() + static_cast<Index>(slot_[at + kPrefetchDistance]) * L);
        const double* yj = ends.data() + static_cast<Index>(slot_[at]) * L;
        double diff[L], d2 = 0.0;
        for (int d = 0; d < L; ++d) {
          diff[d] = yi[d] - yj[d];
          d2 += diff[d] * diff[d];
        }
        const double base = 1.0 + d2 * inverse_alpha;
        const double pij = p_.weights[at], pull = pij / base;
        for (int d = 0; d < L; ++d) attraction[d] += pull * diff[d];
        if (with_kl) {
          p_log_base += pij * std::log(base);
          mass += pij;
        }
      }
      for (int d = 0; d < L; ++d)
        e.gradient(i, d) = 4.0 * (exaggeration * attraction[d] - r.forces(i, d) * inverse_z);
    }
  };
  if (l == 2)
    attract_fixed.template operator()<2>();
  else if (l == 1)
    attract_fixed.template operator()<1>();
  else
    attract.template operator()<0>(l);
  if (!with_kl) {
    e.kl = std::numeric_limits<double>::quiet_NaN();
    return e;
  }
  double totals[2] = {p_log_base, mass};
  comm_.allreduce_sum(totals, 2);
  // -sum p log w = alpha sum p log(1 + d^2 / alpha).
  e.kl = entropy_term_ + alpha_ * totals[0] + totals[1] * std::log(r.normaliser);
  return e;
}

}  // namespace gplvm
