#include "gplvm/models/neighbour_embedding_model.hpp"

#include <cmath>
#include <cstdio>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/models/pca_latents.hpp"
#include "gplvm/probdr/laplacian_eigenmaps.hpp"
#include "gplvm/probdr/probdr_method.hpp"

namespace gplvm {
namespace {

// umap-learn scales its start into [0, 10] in every coordinate.
constexpr double kUmapStartExtent = 10.0;
constexpr double kSpectralStartTolerance = 1e-8;

// The standard deviation of column 0 over every rank's rows, the same bits at any rank count: each
// value is rounded onto a fixed-point grid 2^-38 of the column's largest |value| (an exact max), so
// the integer sums are exact in any order. 2^-38 relative is far below what a start's scale needs.
double column_std(const RowMatrix& x, const Communicator& comm) {
  double largest = 0.0;
  for (Index i = 0; i < x.rows(); ++i) largest = std::max(largest, std::abs(x(i, 0)));
  largest = comm.allreduce_max(largest);
  if (largest == 0.0) return 0.0;
  const double unit = std::ldexp(1.0, std::ilogb(largest) + 1 - 38);
  // The squares need 76 bits: summed as two exact int64 parts (above and below 2^38 units).
  std::int64_t sum = 0, high = 0, low = 0;
  for (Index i = 0; i < x.rows(); ++i) {
    const auto q = static_cast<std::int64_t>(std::llround(x(i, 0) / unit));
    sum += q;
    const auto square = static_cast<unsigned __int128>(static_cast<__int128>(q) * q);
    high += static_cast<std::int64_t>(square >> 38);
    low += static_cast<std::int64_t>(square & ((static_cast<unsigned __int128>(1) << 38) - 1));
  }
  sum = comm.allreduce_sum(sum);
  high = comm.allreduce_sum(high);
  low = comm.allreduce_sum(low);
  const auto n = static_cast<double>(comm.allreduce_sum(static_cast<std::int64_t>(x.rows())));
  const double mean = static_cast<double>(sum) * unit / n;
  const double mean_square =
      (std::ldexp(static_cast<double>(high), 38) + static_cast<double>(low)) * unit * unit / n;
  return std::sqrt(std::max(0.0, mean_square - mean * mean));
}

// Each column affinely onto [0, extent] (exact: min and max reduce without rounding).
void scale_into_box(RowMatrix& x, double extent, const Communicator& comm) {
  for (Index d = 0; d < x.cols(); ++d) {
    const double lo =
        -comm.allreduce_max(x.rows() ? -x.col(d).minCoeff() : -std::numeric_limits<double>::infinity());
    const double hi =
        comm.allreduce_max(x.rows() ? x.col(d).maxCoeff() : -std::numeric_limits<double>::infinity());
    const double width = hi > lo ? hi - lo : 1.0;
    x.col(d) = (x.col(d).array() - lo) * (extent / width);
  }
}

}  // namespace

NeighbourEmbeddingModel::NeighbourEmbeddingModel(ProbdrSettings settings, Index data_dim,
                                                 std::uint64_t num_data, std::uint64_t local_begin,
                                                 std::uint64_t local_rows)
    : Model(ModelFacts{num_data, local_begin, local_rows, data_dim, Precision::float64, settings.seed,
                       LatentDescription{LatentKind::free, false, settings.latent_dim, kEuclideanSpace}}),
      settings_(resolve_neighbour_settings(std::move(settings), num_data)),
      space_(make_latent_space(kEuclideanSpace, settings_.latent_dim)),
      layout_(static_cast<Index>(local_rows)),
      latents_(*space_, false, layout_) {}

const NeighbourAffinities& NeighbourEmbeddingModel::affinities() const {
  if (!affinities_) throw Error("the affinities are computed by initialise_from_data, which has not run");
  return *affinities_;
}

RowMatrix NeighbourEmbeddingModel::latents(const Vector& params) const {
  return Eigen::Map<const RowMatrix>(params.data() + latents_.mean_offset(), static_cast<Index>(local_rows()),
                                     latent_dim());
}

void NeighbourEmbeddingModel::set_latents(Vector& params, const RowMatrix& x) const {
  Eigen::Map<RowMatrix>(params.data() + latents_.mean_offset(), static_cast<Index>(local_rows()),
                        latent_dim()) = x;
}

void NeighbourEmbeddingModel::initialise_from_data(const Communicator& comm, const RowPartition& partition,
                                                   LocalRows local_rows) {
  const DataRef& local = std::get<DataRef>(local_rows);
  require_partitioned_data(local, partition, comm);
  affinities_ = std::make_shared<NeighbourAffinities>(neighbour_affinities(local, settings_, comm));
  const NeighbourEmbeddingSettings& ne = settings_.neighbour;
  const Index l = latent_dim();
  const bool umap = ne.objective == NeighbourObjective::umap;
  EmbeddingStart start = ne.start;
  if (start == EmbeddingStart::spectral) {
    LaplacianEigenmapsOptions options;
    options.latent_dim = l;
    // A start, not a result: umap-learn's eigensolve stops at 1e-4; 1e-8 keeps the start's bits
    // meaningful while sparing the eigensolver the 1e-12 of a spectral fit.
    options.tolerance = kSpectralStartTolerance;
    try {
      start_ = RowMatrix(laplacian_eigenmaps_fit(affinities_->graph, options, comm).embedding);
    } catch (const InputError& e) {
      // Thrown alike on every rank (a graph of several components has no single spectral start).
      if (comm.is_root())
        std::fprintf(stderr, "warning: no spectral start (%s); starting from the principal components\n",
                     e.what());
      start = EmbeddingStart::pca;
    }
  }
  if (start == EmbeddingStart::pca) start_ = RowMatrix(pca_latents(local, partition, comm, l, true));
  if (start == EmbeddingStart::random) {
    const CounterRng rng(seed());
    start_ = RowMatrix(local.rows(), l);
    for (Index i = 0; i < local.rows(); ++i)
      for (Index d = 0; d < l; ++d)
        (*start_)(i, d) = rng.normal(RngPurpose::latent_init, 0, 0,
                                     (local_begin() + static_cast<std::uint64_t>(i)) * l + d);
  }
  if (umap) {
    scale_into_box(*start_, kUmapStartExtent, comm);
  } else {
    const double deviation = column_std(*start_, comm);
    if (deviation > 0) *start_ *= ne.start_scale / deviation;
  }
}

Vector NeighbourEmbeddingModel::initial_parameters() const {
  Vector p = Vector::Zero(layout_.num_parameters());
  if (start_) set_latents(p, *start_);
  return p;
}

void NeighbourEmbeddingModel::record_optimisation(std::string approximation, double final_kl,
                                                  bool kl_estimated) const {
  approximation_ = std::move(approximation);
  final_kl_ = final_kl;
  kl_estimated_ = kl_estimated;
}

std::string NeighbourEmbeddingModel::out_of_sample_extension() const {
  return probdr_method(settings_.method).extension;
}

RowMatrix NeighbourEmbeddingModel::extend_out_of_sample(const Vector&, const DataRef& training,
                                                        const ConstMatrixRef& training_latents,
                                                        const DataRef& new_rows,
                                                        const Communicator& comm) const {
  return place_new_rows(training, training_latents, new_rows, settings_, comm);
}

void NeighbourEmbeddingModel::write_parameters(Hdf5ResultWriter& out, const Vector&) const {
  const ProbdrSettings& s = settings_;
  out.write_string("/probdr/method", s.method);
  out.write_attribute("/probdr/method", "fit", s.fit);
  out.write_attribute("/probdr/method", "moment", "affinities");
  if (affinities_) out.write_attribute("/probdr/method", "description", affinities_->description);
  if (!approximation_.empty()) out.write_attribute("/probdr/method", "approximation", approximation_);
  if (final_kl_) {
    out.write_scalar("/probdr/kl", *final_kl_);
    out.write_attribute("/probdr/kl", "meaning",
                        std::string("KL(q(A' | Y) || p(A' | X)), the ProbDR objective (minus the ELBO's "
                                    "constant-free part)") +
                            (kl_estimated_ ? "; estimated from the last epoch's samples" : ""));
  }
  if (!affinities_) return;
  const NeighbourAffinities& a = *affinities_;
  const bool umap = a.kernel.objective == NeighbourObjective::umap;
  if (umap) {
    out.write_attribute("/probdr/method", "umap_a", a.kernel.curve.a);
    out.write_attribute("/probdr/method", "umap_b", a.kernel.curve.b);
  } else if (a.kernel.objective == NeighbourObjective::tsne) {
    out.write_attribute("/probdr/method", "degrees_of_freedom", a.kernel.alpha);
  }
  RowMatrix bandwidths(static_cast<Index>(a.bandwidths.size()), umap ? 2 : 1);
  for (Index i = 0; i < bandwidths.rows(); ++i) {
    bandwidths(i, 0) = a.bandwidths[static_cast<std::size_t>(i)];
    if (umap) bandwidths(i, 1) = a.nearest[static_cast<std::size_t>(i)];
  }
  out.write_distributed_rows("/probdr/bandwidths", bandwidths, local_begin(), num_data());
  out.write_attribute("/probdr/bandwidths", "columns",
                      umap ? "sigma_i, rho_i of v_j|i = exp(-(d_ij - rho_i) / sigma_i)"
                           : "beta_i of p_j|i proportional to exp(-beta_i d_ij^2)");
}

void NeighbourEmbeddingModel::encode(const Vector& params, const DataRef& data, std::uint64_t first_row,
                                     RowMatrix& mean, RowMatrix* variance) const {
  require_own_free_latent_rows(*this, first_row, data.rows());
  mean = latents(params).middleRows(static_cast<Index>(first_row - local_begin()), data.rows());
  if (variance) variance->resize(0, 0);
}

void NeighbourEmbeddingModel::encode(const Vector& params, const DataRefF& data, std::uint64_t first_row,
                                     RowMatrix& mean, RowMatrix* variance) const {
  const RowMatrix rows = data.cast<double>();
  encode(params, rows, first_row, mean, variance);
}

std::unique_ptr<TrainingStep> NeighbourEmbeddingModel::make_step(const Communicator&, const RowPartition&,
                                                                 LocalRows) const {
  throw InputError(
      "probdr.method = \"" + settings_.method + "\" is fitted by its own optimiser, not in minibatch steps",
      {"", "probdr.method", settings_.method});
}

}  // namespace gplvm
