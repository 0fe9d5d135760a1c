// SparseGplvmModel in one process: the whole gradient through the flat layout (Z, kernel, noise,
// q(u), encoders, free latents with the log s chain) against central finite differences; the
// minibatch step at B = N with q(u) at its optimum against the collapsed bound evaluated by the
// objectives directly; k-means centres; the layout's blocks and the run file's inducing inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

#include "gplvm/model/encoder_layout.hpp"
#include "gplvm/models/inducing_init.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/objectives/sparse_gplvm.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::finite_difference_gradient;
using testing::max_relative_error;

constexpr Index kRows = 24, kDim = 4, kInducing = 6;

struct Variant {
  bool bayesian;
  LatentKind latents;
  SparseTraining training;
};

std::string name_of(const Variant& v) {
  return std::string(v.bayesian ? "bayesian_" : "sparse_") + to_string(v.latents) +
         (v.training == SparseTraining::minibatch ? "_minibatch" : "_full_batch");
}

SparseGplvmConfig config_for(const Variant& v) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = v.bayesian;
  c.latents = v.latents;
  c.encoder_hidden = {5};
  c.encoder_activation = Activation::tanh;  // smooth: finite differences see no kinks
  c.decoder.init.variance = 1.3;
  // Amortised latents start where the small initial encoders put them, close together: a shorter
  // lengthscale keeps K_ZZ of inducing inputs among them well enough conditioned for finite
  // differences to resolve 1e-6.
  c.decoder.init.lengthscale = v.latents == LatentKind::free ? 1.1 : 0.3;
  c.decoder.noise_variance = 0.2;
  c.free_latent_variance = 0.3;
  c.num_inducing = kInducing;
  c.training = v.training;
  c.seed = 5;
  return c;
}

// Data from a GP over 2-d latents, so the bound has structure.
RowMatrix test_data(Index rows) {
  const EqArdKernel kernel(1.0, (Vector(2) << 1.0, 0.7).finished());
  return testing::sample_gp_problem(kernel, 0.05, rows, kDim, 11).Y;
}

struct Fixture {
  Communicator comm{MPI_COMM_SELF};
  RowPartition partition{kRows, 1};
  RowMatrix Y = test_data(kRows);
  SparseGplvmModel model;
  explicit Fixture(const Variant& v) : model(config_for(v), kRows, 0, kRows) {
    model.initialise_from_data(comm, partition, DataRef(Y));
  }
  // The initial parameters moved off any special point (q(u) optimum, k-means centres).
  Vector perturbed() const {
    Vector p = model.initial_parameters();
    p += 0.05 * testing::random_normal(p.size(), 1, 3);
    return p;
  }
};

class SparseModelGradient : public ::testing::TestWithParam<Variant> {};

TEST_P(SparseModelGradient, StepGradientMatchesFiniteDifferences) {
  Fixture f(GetParam());
  const Vector p = f.perturbed();
  std::vector<std::uint64_t> batch(10);
  std::iota(batch.begin(), batch.end(), 7);  // rows 7..16: a batch of 10 of the 24
  Vector gradient;
  std::function<double(const Vector&)> value;
  std::unique_ptr<TrainingStep> step;
  std::unique_ptr<FullBatchObjective> full;
  if (GetParam().training == SparseTraining::minibatch) {
    step = f.model.make_step(f.comm, f.partition, DataRef(f.Y));
    step->evaluate(p, batch, {}, gradient, nullptr, nullptr);
    value = [&](const Vector& x) {
      Vector g;
      return step->evaluate(x, batch, {}, g, nullptr, nullptr).objective;
    };
  } else {
    full = f.model.make_full_batch_objective(f.comm, f.partition, DataRef(f.Y));
    full->evaluate(p, gradient);
    value = [&](const Vector& x) {
      Vector g;
      return full->evaluate(x, g);
    };
  }
  ASSERT_EQ(gradient.size(), f.model.num_parameters());
  Vector fd = finite_difference_gradient(value, p, 1e-5);
  // A frozen output bias (sparse_gplvm, amortised) has no gradient: the bound's change along it is
  // tested in SparseModelTranslation.
  const IndexRange frozen = f.model.frozen_translation_block();
  EXPECT_TRUE(gradient.segment(frozen.begin, frozen.end - frozen.begin).isZero(0.0));
  fd.segment(frozen.begin, frozen.end - frozen.begin).setZero();
  EXPECT_LT(max_relative_error(gradient, fd), 1e-6);
  // Block by block too, so that a small block (noise, q(u)) is not hidden by a large one.
  const Index q_size = f.model.encoder_offset() - f.model.posterior_offset();
  for (const IndexRange block :
       {IndexRange{0, f.model.kernel_offset()},
        IndexRange{f.model.kernel_offset(), f.model.noise_offset() + 1},
        IndexRange{f.model.posterior_offset(), f.model.posterior_offset() + q_size}, f.model.summed_block(),
        IndexRange{f.model.num_shared_parameters(), f.model.num_parameters()}}) {
    const Index n = block.end - block.begin;
    if (n == 0) continue;
    EXPECT_LT(max_relative_error(gradient.segment(block.begin, n), fd.segment(block.begin, n), 1e-8), 1e-6)
        << "block [" << block.begin << ", " << block.end << ")";
  }
}

std::vector<Variant> all_variants() {
  std::vector<Variant> out;
  for (bool bayesian : {false, true})
    for (LatentKind latents : {LatentKind::free, LatentKind::amortised})
      for (SparseTraining training : {SparseTraining::minibatch, SparseTraining::full_batch})
        out.push_back({bayesian, latents, training});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Variants, SparseModelGradient, ::testing::ValuesIn(all_variants()),
                         [](const auto& info) { return name_of(info.param); });

// The frozen direction: with a stationary kernel and no prior, moving the mean encoder's output
// bias and every inducing input by the same vector t leaves the bound unchanged (minibatch and
// collapsed), so freezing the bias loses nothing; with the Bayesian GPLVM's N(0, I) prior the
// same move changes the bound, and nothing is frozen.
class SparseModelTranslation : public ::testing::TestWithParam<Variant> {};

TEST_P(SparseModelTranslation, JointTranslationOfTheOutputBiasAndZLeavesTheBoundUnchanged) {
  const Variant v = GetParam();
  Fixture f(v);
  const Vector p = f.perturbed();
  const Mlp mean_encoder(mean_encoder_layout({kDim, 2, {5}, Activation::tanh}));
  const Index bias = f.model.encoder_offset() + mean_encoder.bias_offset(mean_encoder.num_layers() - 1);
  Vector moved = p;
  const Vector t = (Vector(2) << 0.7, -0.4).finished();
  moved.segment(bias, 2) += t;
  Eigen::Map<Matrix>(moved.data(), kInducing, 2).rowwise() += t.transpose();
  std::vector<std::uint64_t> batch(10);
  std::iota(batch.begin(), batch.end(), 7);
  Vector g;
  double before = 0, after = 0;
  if (v.training == SparseTraining::minibatch) {
    const std::unique_ptr<TrainingStep> step = f.model.make_step(f.comm, f.partition, DataRef(f.Y));
    before = step->evaluate(p, batch, {}, g, nullptr, nullptr).objective;
    after = step->evaluate(moved, batch, {}, g, nullptr, nullptr).objective;
  } else {
    const auto full = f.model.make_full_batch_objective(f.comm, f.partition, DataRef(f.Y));
    before = full->evaluate(p, g);
    after = full->evaluate(moved, g);
  }
  const IndexRange frozen = f.model.frozen_translation_block();
  if (v.bayesian) {
    EXPECT_GT(std::abs(after - before), 1e-3 * std::abs(before));  // the prior sees the move
    EXPECT_EQ(frozen.end - frozen.begin, 0);
  } else {
    EXPECT_NEAR(after, before, 1e-11 * std::abs(before));
    EXPECT_EQ(frozen.begin, bias);
    EXPECT_EQ(frozen.end, bias + 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Amortised, SparseModelTranslation,
                         ::testing::Values(Variant{false, LatentKind::amortised, SparseTraining::minibatch},
                                           Variant{false, LatentKind::amortised, SparseTraining::full_batch},
                                           Variant{true, LatentKind::amortised, SparseTraining::minibatch}),
                         [](const auto& info) { return name_of(info.param); });

class SparseModelBounds : public ::testing::TestWithParam<Variant> {};

// The initial q(u) is the optimum for the initial parameters' statistics over all rows, so a step
// whose batch is every row (scale N/B = 1) must equal the collapsed bound there; the reference is
// the objectives' own collapsed evaluation on the model's latents.
TEST_P(SparseModelBounds, FullBatchStepAtOptimalPosteriorEqualsCollapsedBound) {
  Fixture f(GetParam());
  const Vector p = f.model.initial_parameters();
  std::vector<std::uint64_t> all(kRows);
  std::iota(all.begin(), all.end(), 0);
  Vector gradient;
  const double step_value = f.model.make_step(f.comm, f.partition, DataRef(f.Y))
                                ->evaluate(p, all, {}, gradient, nullptr, nullptr)
                                .objective;
  const double full_value =
      f.model.make_full_batch_objective(f.comm, f.partition, DataRef(f.Y))->evaluate(p, gradient);

  RowMatrix mean, variance;
  f.model.encode(p, DataRef(f.Y), 0, mean, &variance);
  const auto kernel = f.model.kernel(p);
  const SparseGplvmGradient reference =
      GetParam().bayesian
          ? bayesian_gplvm_bound(f.comm, *kernel, f.model.noise_variance(p), f.model.inducing_inputs(p),
                                 Matrix(mean), Matrix(variance), DataRef(f.Y))
          : sparse_gplvm_bound(f.comm, *kernel, f.model.noise_variance(p), f.model.inducing_inputs(p),
                               Matrix(mean), DataRef(f.Y));
  EXPECT_NEAR(full_value, reference.value, 1e-10 * std::abs(reference.value));
  EXPECT_NEAR(step_value, reference.value, 1e-8 * std::abs(reference.value));
  // Away from the optimum the uncollapsed bound is strictly lower.
  Vector moved = p;
  moved.segment(f.model.posterior_offset(), kDim) += Vector::Constant(kDim, 0.3);
  const double lower = f.model.make_step(f.comm, f.partition, DataRef(f.Y))
                           ->evaluate(moved, all, {}, gradient, nullptr, nullptr)
                           .objective;
  EXPECT_LT(lower, reference.value);
}

INSTANTIATE_TEST_SUITE_P(Variants, SparseModelBounds,
                         ::testing::Values(Variant{false, LatentKind::free, SparseTraining::minibatch},
                                           Variant{true, LatentKind::free, SparseTraining::minibatch},
                                           Variant{false, LatentKind::amortised, SparseTraining::minibatch},
                                           Variant{true, LatentKind::amortised, SparseTraining::minibatch}),
                         [](const auto& info) { return name_of(info.param); });

TEST(SparseModelLayout, BlocksAndLocalRows) {
  Fixture f({true, LatentKind::free, SparseTraining::minibatch});
  const SparseGplvmModel& m = f.model;
  EXPECT_EQ(m.kernel_offset(), kInducing * 2);
  EXPECT_EQ(m.posterior_offset(), m.noise_offset() + 1);
  EXPECT_EQ(m.encoder_offset() - m.posterior_offset(), InducingPosterior::packed_size(kInducing, kDim));
  EXPECT_EQ(m.summed_block().begin, m.summed_block().end);  // free latents: no encoder
  EXPECT_EQ(m.num_parameters() - m.num_shared_parameters(), kRows * 4);
  const Vector p = f.perturbed();
  Vector copy = Vector::Zero(p.size());
  m.set_local_block_rows(copy, m.local_block_rows(p));
  EXPECT_EQ(copy.tail(kRows * 4), p.tail(kRows * 4));
  // The local block's second half holds log s: encode returns exp of it.
  RowMatrix mean, variance;
  m.encode(p, DataRef(f.Y), 0, mean, &variance);
  EXPECT_NEAR(variance(3, 1), std::exp(m.local_block_rows(p)(3, 3)), 1e-15);
  EXPECT_NEAR(mean(3, 1), m.local_block_rows(p)(3, 1), 0.0);
}

TEST(SparseModelInit, FreeLatentsStartAtPcaAndInducingInputsAmongThem) {
  Fixture f({false, LatentKind::free, SparseTraining::full_batch});
  const Vector p = f.model.initial_parameters();
  RowMatrix X, unused;
  f.model.encode(p, DataRef(f.Y), 0, X, &unused);
  // PCA latents: centred, unit variance per column.
  EXPECT_LT(X.colwise().mean().norm(), 1e-12);
  EXPECT_NEAR(X.col(0).squaredNorm() / kRows, 1.0, 1e-12);
  // k-means centres lie inside the latents' bounding box.
  const Matrix Z = f.model.inducing_inputs(p);
  for (Index j = 0; j < 2; ++j) {
    EXPECT_GE(Z.col(j).minCoeff(), X.col(j).minCoeff());
    EXPECT_LE(Z.col(j).maxCoeff(), X.col(j).maxCoeff());
  }
}

TEST(KMeans, FindsSeparatedClusterMeans) {
  const Matrix centres_true = (Matrix(3, 2) << 0, 0, 10, 0, 0, 10).finished();
  Matrix points(300, 2);
  const Matrix noise = testing::random_normal(300, 2, 4);
  for (Index i = 0; i < 300; ++i) points.row(i) = centres_true.row(i % 3) + 0.5 * noise.row(i);
  const Matrix found = kmeans_centres(points, 3, 1);
  for (Index c = 0; c < 3; ++c) {
    Vector mean = Vector::Zero(2);
    for (Index i = c; i < 300; i += 3) mean += points.row(i).transpose() / 100.0;
    double nearest = 1e300;
    for (Index k = 0; k < 3; ++k) nearest = std::min(nearest, (found.row(k).transpose() - mean).norm());
    EXPECT_LT(nearest, 1e-12) << "cluster " << c;
  }
}

TEST(InducingInit, RandomSubsetPicksDistinctLatentRows) {
  const Communicator self(MPI_COMM_SELF);
  const Matrix X = testing::random_normal(50, 2, 8);
  const Matrix Z = initial_inducing_inputs(self, RowPartition(50, 1), X, 10, InducingInit::random, 3);
  for (Index k = 0; k < 10; ++k) {
    Index matches = 0;
    for (Index i = 0; i < 50; ++i) matches += (X.row(i) - Z.row(k)).norm() == 0.0;
    EXPECT_EQ(matches, 1) << k;
    for (Index l = 0; l < k; ++l) EXPECT_GT((Z.row(k) - Z.row(l)).norm(), 0.0);
  }
  EXPECT_THROW(initial_inducing_inputs(self, RowPartition(50, 1), X, 51, InducingInit::kmeans, 3),
               InputError);
}

}  // namespace
}  // namespace gplvm
