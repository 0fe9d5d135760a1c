#include "gplvm/synthetic/synthetic.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <sstream>
#include <utility>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"

namespace gplvm {
namespace {

// RNG epochs (with RngPurpose::generator), one per use. Part of the reproducibility contract:
// never renumber. The GP generators share kLatent so that both give the same X for one seed.
enum Stream : std::uint64_t {
  kLatent = 1,
  kGpOutputs = 2,
  kRffFrequency = 10,
  kRffWeight = 11,
  kRffNoise = 12,
  kSwissT = 20,
  kSwissHeight = 21,
  kSwissEmbedding = 22,
  kSwissNoise = 23,
  kPatternBlob = 30,
  kPatternNoise = 31,
  kTreeOffset = 40,
  kTreePoint = 41,
};

constexpr double kPi = std::numbers::pi;

double normal(const CounterRng& rng, Stream stream, Index index) {
  return rng.normal(RngPurpose::generator, stream, 0, static_cast<std::uint64_t>(index));
}

double uniform(const CounterRng& rng, Stream stream, Index index) {
  return rng.uniform(RngPurpose::generator, stream, 0, static_cast<std::uint64_t>(index));
}

template <typename T>
std::string str(const T& value) {
  std::ostringstream s;
  s << value;
  return s.str();
}

void require_at_least(Index value, Index minimum, const char* key) {
  require(value >= minimum,
          std::string("synthetic data: ") + key + " must be at least " + std::to_string(minimum),
          {"", key, std::to_string(value)});
}

void require_positive(double value, const char* key) {
  require(std::isfinite(value) && value > 0.0,
          std::string("synthetic data: ") + key + " must be positive and finite", {"", key, str(value)});
}

void require_non_negative(double value, const char* key) {
  require(std::isfinite(value) && value >= 0.0,
          std::string("synthetic data: ") + key + " must be non-negative and finite", {"", key, str(value)});
}

// Orthant over the first min(Q, 3) latent dimensions: few enough classes to colour a plot.
std::int64_t orthant_label(const double* x, Index Q) {
  std::int64_t label = 0;
  for (Index q = 0; q < std::min<Index>(Q, 3); ++q)
    if (x[q] > 0.0) label |= std::int64_t{1} << q;
  return label;
}

double latent_draw(const CounterRng& rng, Index n, Index q, Index Q) {
  return normal(rng, kLatent, n * Q + q);
}

void validate_gp(Index N, Index D, Index Q, double variance, double lengthscale, double noise_variance) {
  require_at_least(N, 1, "num_rows");
  require_at_least(D, 1, "output_dim");
  require_at_least(Q, 1, "latent_dim");
  require_positive(variance, "kernel_variance");
  require_positive(lengthscale, "lengthscale");
  require_non_negative(noise_variance, "noise_variance");
}

std::string gp_description(const char* name, Index N, Index D, Index Q, std::uint64_t seed, double variance,
                           double lengthscale, double noise_variance) {
  std::ostringstream s;
  s << name << ": N=" << N << " D=" << D << " Q=" << Q << " seed=" << seed << " kernel_variance=" << variance
    << " lengthscale=" << lengthscale << " noise_variance=" << noise_variance;
  return s.str();
}

// Label of x in [lo, hi) split into `bins` equal bins, clamped so hi itself lands in the last bin.
std::int64_t bin_of(double x, double lo, double hi, std::int64_t bins) {
  const auto b = static_cast<std::int64_t>(std::floor((x - lo) / (hi - lo) * static_cast<double>(bins)));
  return std::clamp<std::int64_t>(b, 0, bins - 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Exact GP samples.

SyntheticData gp_samples(Index N, Index D, Index Q, std::uint64_t seed, double kernel_variance,
                         double lengthscale, double noise_variance) {
  validate_gp(N, D, Q, kernel_variance, lengthscale, noise_variance);
  require(N <= kMaxExactGpRows,
          "synthetic data: gp_samples factorises an N x N covariance (O(N^3)); for N above " +
              std::to_string(kMaxExactGpRows) + " use gp_random_features (scalable approximate GP sample), " +
              "swiss_roll, rotating_pattern_cycle or binary_tree",
          {"", "num_rows", std::to_string(N)});
  // A noise-free sample still needs a factorisable K; the Cholesky helper adds bounded jitter.
  const CounterRng rng(seed);
  SyntheticData data;
  data.latent_true.resize(N, Q);
  for (Index n = 0; n < N; ++n)
    for (Index q = 0; q < Q; ++q) data.latent_true(n, q) = latent_draw(rng, n, q, Q);
  const EqArdKernel kernel(kernel_variance, lengthscale, Q);
  data.Y = sample_gp_outputs(kernel, noise_variance, data.latent_true, D, rng, kGpOutputs);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index n = 0; n < N; ++n) {
    const Eigen::RowVectorXd x = data.latent_true.row(n);
    data.labels[static_cast<std::size_t>(n)] = orthant_label(x.data(), Q);
  }
  data.description =
      gp_description("gp_samples", N, D, Q, seed, kernel_variance, lengthscale, noise_variance);
  return data;
}

// ---------------------------------------------------------------------------------------------------------------
// Random Fourier features.

GpRandomFeatures::GpRandomFeatures(Index N, Index D, Index Q, std::uint64_t seed, double kernel_variance,
                                   double lengthscale, double noise_variance, Index num_features)
    : N_(N), seed_(seed) {
  validate_gp(N, D, Q, kernel_variance, lengthscale, noise_variance);
  require(num_features >= 2 && num_features % 2 == 0,
          "synthetic data: num_features must be even and at least 2 (cos/sin pairs)",
          {"", "num_features", std::to_string(num_features)});
  const Index H = num_features / 2;
  const CounterRng rng(seed);
  omega_.resize(H, Q);
  for (Index h = 0; h < H; ++h)
    for (Index q = 0; q < Q; ++q) omega_(h, q) = normal(rng, kRffFrequency, h * Q + q) / lengthscale;
  W_.resize(num_features, D);
  for (Index m = 0; m < num_features; ++m)
    for (Index d = 0; d < D; ++d) W_(m, d) = normal(rng, kRffWeight, m * D + d);
  noise_std_ = std::sqrt(noise_variance);
  feature_scale_ = std::sqrt(kernel_variance / static_cast<double>(H));
  description_ =
      gp_description("gp_random_features", N, D, Q, seed, kernel_variance, lengthscale, noise_variance) +
      " num_features=" + std::to_string(num_features);
}

// One row from its global index. Explicit loops with std::fma in a fixed order: the result must not
// depend on where the row sits in a block (BLAS kernels may sum differently at block edges).
void GpRandomFeatures::fill_row(Index n, double* latent, double* features, double* y) const {
  const Index Q = latent_dim(), D = output_dim(), H = omega_.rows();
  const CounterRng rng(seed_);
  for (Index q = 0; q < Q; ++q) latent[q] = latent_draw(rng, n, q, Q);
  for (Index h = 0; h < H; ++h) {
    double phase = 0.0;
    for (Index q = 0; q < Q; ++q) phase = std::fma(omega_(h, q), latent[q], phase);
    features[h] = feature_scale_ * std::cos(phase);
    features[H + h] = feature_scale_ * std::sin(phase);
  }
  for (Index d = 0; d < D; ++d) y[d] = 0.0;
  for (Index m = 0; m < 2 * H; ++m) {
    const double f = features[m];
    const double* w = W_.row(m).data();
    for (Index d = 0; d < D; ++d) y[d] = std::fma(f, w[d], y[d]);
  }
  if (noise_std_ > 0.0)
    for (Index d = 0; d < D; ++d) y[d] = std::fma(noise_std_, normal(rng, kRffNoise, n * D + d), y[d]);
}

SyntheticData GpRandomFeatures::generate_rows(Index row_begin, Index row_count) const {
  require(row_begin >= 0 && row_begin <= N_, "synthetic data: row_begin outside the data set",
          {"", "row_begin", std::to_string(row_begin) + " (N = " + std::to_string(N_) + ")"});
  require(row_count >= 0 && row_count <= N_ - row_begin,
          "synthetic data: row block runs past the end of the data set",
          {"", "row_count",
           std::to_string(row_count) + " from row " + std::to_string(row_begin) +
               " (N = " + std::to_string(N_) + ")"});
  const Index Q = latent_dim(), D = output_dim();
  SyntheticData data;
  data.Y.resize(row_count, D);
  data.latent_true.resize(row_count, Q);
  data.labels.resize(static_cast<std::size_t>(row_count));
  Eigen::VectorXd latent(Q), features(2 * omega_.rows()), y(D);
  for (Index r = 0; r < row_count; ++r) {
    fill_row(row_begin + r, latent.data(), features.data(), y.data());
    data.latent_true.row(r) = latent.transpose();
    data.Y.row(r) = y.transpose();
    data.labels[static_cast<std::size_t>(r)] = orthant_label(latent.data(), Q);
  }
  data.description = description_;
  if (row_begin != 0 || row_count != N_)
    data.description +=
        " rows=[" + std::to_string(row_begin) + ", " + std::to_string(row_begin + row_count) + ")";
  return data;
}

SyntheticData gp_random_features(Index N, Index D, Index Q, std::uint64_t seed, double kernel_variance,
                                 double lengthscale, double noise_variance, Index num_features) {
  return GpRandomFeatures(N, D, Q, seed, kernel_variance, lengthscale, noise_variance, num_features)
      .generate_all();
}

// ---------------------------------------------------------------------------------------------------------------
// Swiss roll.

namespace {

// D x 3 with orthonormal columns: Gram-Schmidt (twice, for orthogonality to rounding) of Gaussian columns.
Matrix random_orthonormal_columns(const CounterRng& rng, Stream stream, Index D, Index k) {
  Matrix U(D, k);
  for (Index d = 0; d < D; ++d)
    for (Index j = 0; j < k; ++j) U(d, j) = normal(rng, stream, d * k + j);
  for (Index j = 0; j < k; ++j) {
    for (int pass = 0; pass < 2; ++pass)
      for (Index i = 0; i < j; ++i) U.col(j) -= U.col(i).dot(U.col(j)) * U.col(i);
    U.col(j).normalize();
  }
  return U;
}

void add_noise(RowMatrix& Y, const CounterRng& rng, Stream stream, double noise) {
  if (noise == 0.0) return;
  const Index D = Y.cols();
  for (Index n = 0; n < Y.rows(); ++n)
    for (Index d = 0; d < D; ++d) Y(n, d) += noise * normal(rng, stream, n * D + d);
}

}  // namespace

SyntheticData swiss_roll(Index N, Index D, std::uint64_t seed, double noise) {
  require_at_least(N, 1, "num_rows");
  require_at_least(D, 3, "output_dim");
  require_non_negative(noise, "noise");
  const CounterRng rng(seed);
  const double t_lo = 1.5 * kPi, t_hi = 4.5 * kPi, height = 21.0;
  SyntheticData data;
  data.latent_true.resize(N, 2);
  Matrix roll(N, 3);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index n = 0; n < N; ++n) {
    const double t = t_lo + (t_hi - t_lo) * uniform(rng, kSwissT, n);
    const double h = height * uniform(rng, kSwissHeight, n);
    data.latent_true.row(n) << t, h;
    roll.row(n) << t * std::cos(t), h, t * std::sin(t);
    data.labels[static_cast<std::size_t>(n)] = bin_of(t, t_lo, t_hi, 6);
  }
  data.Y = roll * random_orthonormal_columns(rng, kSwissEmbedding, D, 3).transpose();
  add_noise(data.Y, rng, kSwissNoise, noise);
  data.description = "swiss_roll: N=" + std::to_string(N) + " D=" + std::to_string(D) +
                     " seed=" + std::to_string(seed) + " noise=" + str(noise);
  return data;
}

// ---------------------------------------------------------------------------------------------------------------
// Rotating pattern.

namespace {

struct Blob {
  double x, y, width, amplitude;
};

// A fixed bright blob off centre breaks every rotational symmetry; the seeded blobs vary the data set.
std::vector<Blob> pattern_blobs(const CounterRng& rng) {
  std::vector<Blob> blobs = {{0.5, 0.0, 0.18, 1.0}};
  for (Index b = 0; b < 3; ++b) {
    const double radius = 0.6 * std::sqrt(uniform(rng, kPatternBlob, 4 * b));
    const double angle = 2.0 * kPi * uniform(rng, kPatternBlob, 4 * b + 1);
    const double width = 0.08 + 0.12 * uniform(rng, kPatternBlob, 4 * b + 2);
    const double amplitude = 0.3 + 0.5 * uniform(rng, kPatternBlob, 4 * b + 3);
    blobs.push_back({radius * std::cos(angle), radius * std::sin(angle), width, amplitude});
  }
  return blobs;
}

double pattern_value(const std::vector<Blob>& blobs, double u, double v) {
  double value = 0.0;
  for (const Blob& b : blobs) {
    const double r2 = (u - b.x) * (u - b.x) + (v - b.y) * (v - b.y);
    value += b.amplitude * std::exp(-0.5 * r2 / (b.width * b.width));
  }
  return value;
}

// Image of the pattern rotated by `angle`: pixel p shows the pattern at R(-angle) p.
void render_rotated(const std::vector<Blob>& blobs, Index side, double angle, double* pixels) {
  const double c = std::cos(angle), s = std::sin(angle);
  for (Index i = 0; i < side; ++i)
    for (Index j = 0; j < side; ++j) {
      const double u = -1.0 + (2.0 * static_cast<double>(j) + 1.0) / static_cast<double>(side);
      const double v = 1.0 - (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(side);
      pixels[i * side + j] = pattern_value(blobs, c * u + s * v, -s * u + c * v);
    }
}

Index square_side(Index D) {
  Index side = static_cast<Index>(std::llround(std::sqrt(static_cast<double>(std::max<Index>(D, 0)))));
  require(
      D >= 4 && side * side == D,
      "synthetic data: rotating_pattern_cycle needs a square dimension D = side^2 with side >= 2 (e.g. 256 = "
      "16 x 16)",
      {"", "output_dim", std::to_string(D)});
  return side;
}

}  // namespace

SyntheticData rotating_pattern_cycle(Index N, Index D, std::uint64_t seed, double noise) {
  require_at_least(N, 1, "num_rows");
  const Index side = square_side(D);
  require_non_negative(noise, "noise");
  const CounterRng rng(seed);
  const std::vector<Blob> blobs = pattern_blobs(rng);
  SyntheticData data;
  data.Y.resize(N, D);
  data.latent_true.resize(N, 2);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index k = 0; k < N; ++k) {
    const double angle = 2.0 * kPi * static_cast<double>(k) / static_cast<double>(N);
    render_rotated(blobs, side, angle, data.Y.row(k).data());
    data.latent_true.row(k) << std::cos(angle), std::sin(angle);
    data.labels[static_cast<std::size_t>(k)] = (8 * k) / N;
  }
  add_noise(data.Y, rng, kPatternNoise, noise);
  data.description = "rotating_pattern_cycle: N=" + std::to_string(N) + " D=" + std::to_string(D) + " (" +
                     std::to_string(side) + "x" + std::to_string(side) + ") seed=" + std::to_string(seed) +
                     " noise=" + str(noise);
  return data;
}

// ---------------------------------------------------------------------------------------------------------------
// Binary tree.

namespace {

// Node centres in heap order (root 1, children of i are 2i and 2i + 1); row 0 unused.
// Offsets are keyed by node id, so a node's centre does not depend on the tree's depth.
Matrix tree_centres(const CounterRng& rng, Index depth, Index D, double branch_scale) {
  const Index nodes = Index{1} << (depth + 1);
  Matrix centres = Matrix::Zero(nodes, D);
  for (Index node = 2; node < nodes; ++node) {
    const Index level = static_cast<Index>(std::bit_width(static_cast<std::uint64_t>(node))) - 1;
    const double scale = branch_scale * std::pow(2.0, -0.5 * static_cast<double>(level - 1));
    for (Index d = 0; d < D; ++d)
      centres(node, d) = centres(node / 2, d) + scale * normal(rng, kTreeOffset, node * D + d);
  }
  return centres;
}

// Turn l (1-based, from the root) moves +-2^-l along x (odd l) or y (even l): each coordinate is a binary
// expansion of every other turn, and a turn outweighs all later turns on its axis (sum 1/3 of it), so
// subtrees occupy disjoint rectangles and a leaf's nearest leaf is its sibling.
std::pair<double, double> h_tree_position(Index leaf, Index depth) {
  double x = 0.0, y = 0.0;
  for (Index l = 1; l <= depth; ++l) {
    const bool right = (leaf >> (depth - l)) & 1;
    const double step = std::ldexp(right ? 1.0 : -1.0, -static_cast<int>(l));
    (l % 2 == 1 ? x : y) += step;
  }
  return {x, y};
}

}  // namespace

SyntheticData binary_tree(Index depth, Index points_per_leaf, Index D, std::uint64_t seed, double point_noise,
                          double branch_scale) {
  require_at_least(depth, 1, "depth");
  require(depth <= 20, "synthetic data: binary_tree depth must be at most 20 (2^depth leaves)",
          {"", "depth", std::to_string(depth)});
  require_at_least(points_per_leaf, 1, "points_per_leaf");
  SyntheticData data =
      binary_tree_rows(depth, (Index{1} << depth) * points_per_leaf, D, seed, point_noise, branch_scale);
  data.description = "binary_tree: depth=" + std::to_string(depth) +
                     " points_per_leaf=" + std::to_string(points_per_leaf) +
                     data.description.substr(data.description.find(" N="));
  return data;
}

SyntheticData binary_tree_rows(Index depth, Index N, Index D, std::uint64_t seed, double point_noise,
                               double branch_scale) {
  require_at_least(depth, 1, "depth");
  require(depth <= 20, "synthetic data: binary_tree depth must be at most 20 (2^depth leaves)",
          {"", "depth", std::to_string(depth)});
  const Index leaves = Index{1} << depth;
  require(N >= leaves, "synthetic data: binary_tree needs at least one point per leaf (N >= 2^depth)",
          {"", "num_rows", std::to_string(N)});
  require_at_least(D, 1, "output_dim");
  require_non_negative(point_noise, "point_noise");
  require_positive(branch_scale, "branch_scale");
  const CounterRng rng(seed);
  const Matrix centres = tree_centres(rng, depth, D, branch_scale);
  SyntheticData data;
  data.Y.resize(N, D);
  data.latent_true.resize(N, 2);
  data.labels.resize(static_cast<std::size_t>(N));
  for (Index n = 0; n < N; ++n) {
    // Contiguous, balanced leaf blocks: n * leaves / N is n / points_per_leaf when N divides evenly.
    const Index leaf = static_cast<Index>(static_cast<unsigned __int128>(n) * leaves / N);
    const auto [x, y] = h_tree_position(leaf, depth);
    data.Y.row(n) = centres.row(leaves + leaf);
    data.latent_true.row(n) << x, y;
    data.labels[static_cast<std::size_t>(n)] = leaf;
  }
  add_noise(data.Y, rng, kTreePoint, point_noise);
  data.description = "binary_tree: depth=" + std::to_string(depth) + " N=" + std::to_string(N) +
                     " D=" + std::to_string(D) + " seed=" + std::to_string(seed) +
                     " point_noise=" + str(point_noise) + " branch_scale=" + str(branch_scale);
  return data;
}

}  // namespace gplvm
