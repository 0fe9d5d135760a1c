// A small end-to-end fit: data drawn from a GP at known 2-D latents; Adam on the SAS objective
// must (a) raise the exact log marginal likelihood of the learnt model (encoded latents and learnt
// hyperparameters) and (b) recover the neighbourhood structure of the true latents.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/objectives/gp_marginal.hpp"
#include "gplvm/optim/adam.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

// Indices of the k nearest rows of X to row i (Euclidean), excluding i.
std::vector<Index> nearest(const Matrix& X, Index i, Index k) {
  std::vector<Index> idx(X.rows());
  std::iota(idx.begin(), idx.end(), 0);
  idx.erase(idx.begin() + i);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](Index a, Index b) {
    return (X.row(a) - X.row(i)).squaredNorm() < (X.row(b) - X.row(i)).squaredNorm();
  });
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

// Mean fraction of each point's k nearest neighbours shared between two embeddings. Invariant to
// rotation, reflection and scale, which a GPLVM cannot identify. Chance level is k / (N - 1).
double neighbourhood_overlap(const Matrix& A, const Matrix& B, Index k) {
  double total = 0;
  for (Index i = 0; i < A.rows(); ++i) {
    const auto a = nearest(A, i, k), b = nearest(B, i, k);
    std::vector<Index> common;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
    total += static_cast<double>(common.size()) / k;
  }
  return total / A.rows();
}

struct FitResult {
  double exact_before, exact_after, overlap, overlap_before;
};

FitResult fit(bool bayesian, Precision precision = Precision::float64) {
  const Index n = 300, d = 20, k = 10;
  const Matrix X_true = testing::random_normal(n, 2, 1);
  const EqArdKernel truth(1.0, 1.0, 2);
  const RowMatrix Y = sample_gp_outputs(truth, 0.01, X_true, d, CounterRng(2), 0);

  SasModelConfig c;
  c.data_dim = d;
  c.encoder_hidden = {64, 32};
  c.bayesian = bayesian;
  c.precision = precision;
  c.decoder.init.lengthscale = 1.0;
  c.seed = 4;
  const SasModel model(c, n, 0, n);
  std::vector<std::uint64_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  auto exact = [&](const Vector& p) {
    return exact_log_marginal_likelihood(*model.kernel(p), model.noise_variance(p),
                                         model.latent_mean(p, all, Y), Y, false)
        .value;
  };

  Vector p = model.initial_parameters();
  FitResult r{exact(p), 0, 0, neighbourhood_overlap(X_true, model.latent_mean(p, all, Y), k)};
  Adam adam(p.size(), {.learning_rate = 1e-2});
  const BatchSchedule schedule(n, 100, c.seed);
  Vector grad;
  std::uint64_t step = 0;
  for (std::uint64_t epoch = 0; step < 400; ++epoch)
    for (std::uint64_t b = 0; b < schedule.batches_per_epoch(); ++b, ++step) {
      const auto rows = schedule.batch_rows(epoch, b);
      RowMatrix Yb(rows.size(), d);
      for (size_t i = 0; i < rows.size(); ++i) Yb.row(i) = Y.row(rows[i]);
      model.evaluate(p, {rows, Yb, 30}, {epoch, b}, grad);
      adam.ascend(p, grad);
    }
  r.exact_after = exact(p);
  r.overlap = neighbourhood_overlap(X_true, model.latent_mean(p, all, Y), k);
  return r;
}

// Thresholds. Chance overlap is 10/299 = 0.03, but even the untrained random encoder keeps about
// 0.3 (Y is a smooth function of the true latents, and a random projection of it keeps some local
// structure), so the bar must sit well above that: 0.6 means six of each point's ten true
// neighbours are among its ten learnt ones. Trained models reach about 0.8 here, so 0.6 leaves
// room for other seeds without admitting a fit that only kept the initial structure. The exact LML
// must rise by more than 1000 nats (about 0.17 per entry), far beyond any change a few noisy
// steps could make by chance.
void expect_good_fit(const FitResult& r) {
  EXPECT_GT(r.exact_after, r.exact_before + 1000.0);
  EXPECT_GT(r.overlap, 0.6);
  EXPECT_GT(r.overlap, r.overlap_before + 0.2);
}

TEST(EndToEndFit, SasRaisesExactLmlAndRecoversNeighbourhoods) {
  const FitResult r = fit(false);
  std::cout << "exact LML " << r.exact_before << " -> " << r.exact_after << ", 10-NN overlap "
            << r.overlap_before << " -> " << r.overlap << "\n";
  expect_good_fit(r);
}

TEST(EndToEndFit, BayesianSasRaisesExactLmlAndRecoversNeighbourhoods) {
  const FitResult r = fit(true);
  std::cout << "exact LML " << r.exact_before << " -> " << r.exact_after << ", 10-NN overlap "
            << r.overlap_before << " -> " << r.overlap << "\n";
  expect_good_fit(r);
}

// fp32 training (encoder and data products in fp32) against fp64 on the same seed, data and
// batches. The runs cannot end bit-identical; the contract is that fp32 reaches the same fit: the
// exact LML of the learnt model (evaluated in fp64) within a stated fraction of the fp64 run's LML
// gain (about 9,500 nats here), and the same neighbourhood recovery to within 0.03.
// The bounds are 1% of the gain and 0.03 overlap for Bayesian SAS, 4% and 0.05 for SAS.
// Non-Bayesian SAS has flat directions (translations of the latents, see train/sas_model.cpp)
// along which Adam amplifies any rounding: fp64 training itself, restarted from initial
// parameters perturbed by 1e-7 relative, ended 0.4-227 nats away (5 seeds, up to 2.4% of the
// gain; Bayesian: <= 1.4 nats), and the same fp32 SAS run ended 3097 or 3106 nats (overlap 0.845
// or 0.838) depending only on the memory layout the test process happened to get. fp32 measured
// against fp64: SAS +191 to +200 nats (2.1%), overlap +0.023 to +0.030; Bayesian SAS +33 nats
// (0.35%), overlap +0.002.
void expect_same_fit(const FitResult& f64, const FitResult& f32, double fraction_of_gain, double overlap) {
  std::cout << "exact LML after fp64 " << f64.exact_after << ", fp32 " << f32.exact_after << "; overlap "
            << f64.overlap << " vs " << f32.overlap << "\n";
  EXPECT_EQ(f32.exact_before, f64.exact_before);  // same initial model (encoded in fp64 at init)
  EXPECT_LT(std::abs(f32.exact_after - f64.exact_after),
            fraction_of_gain * (f64.exact_after - f64.exact_before));
  EXPECT_LT(std::abs(f32.overlap - f64.overlap), overlap);
  expect_good_fit(f32);
}

TEST(EndToEndFit, Float32SasReachesTheFloat64Objective) {
  expect_same_fit(fit(false), fit(false, Precision::float32), 0.04, 0.05);
}

TEST(EndToEndFit, Float32BayesianSasReachesTheFloat64Objective) {
  expect_same_fit(fit(true), fit(true, Precision::float32), 0.01, 0.03);
}

}  // namespace
}  // namespace gplvm
