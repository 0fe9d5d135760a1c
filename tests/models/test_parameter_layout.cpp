// The declared parameter layout (models/parameter_layout.hpp) of every model kind: its blocks tile
// the flat vector exactly, the per-row blocks are the values the model itself reads (its free
// latents as encode returns them), fixed hyperparameters and the summed range are where the
// kernel and encoders put them, and a malformed declaration is refused.
#include <gtest/gtest.h>

#include <numeric>

#include "gplvm/core/error.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"
#include "gplvm/models/exact_gplvm_model.hpp"
#include "gplvm/models/gp_decoder.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/models/sparse_gplvm_model.hpp"
#include "gplvm/models/vae_model.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kRows = 9;
constexpr Index kDim = 5;

// Blocks in declaration order, each starting where the previous ends, replicated ones first,
// together covering [0, num_parameters()).
void expect_tiles(const Model& model) {
  const ParameterLayout& layout = model.parameter_layout();
  Index next = 0, per_row_columns = 0;
  bool seen_per_row = false;
  for (const ParameterBlock& b : layout.blocks()) {
    EXPECT_EQ(b.offset, next) << model.kind() << ": " << b.name;
    if (b.placement == Placement::per_row) {
      seen_per_row = true;
      per_row_columns += b.cols;
      EXPECT_EQ(b.size, static_cast<Index>(model.local_rows()) * b.cols) << b.name;
    } else {
      EXPECT_FALSE(seen_per_row) << b.name << " is replicated after a per-row block";
      EXPECT_EQ(b.size, b.rows * b.cols) << b.name;
    }
    next += b.size;
  }
  EXPECT_EQ(next, model.num_parameters()) << model.kind();
  EXPECT_EQ(model.local_values_per_row(), per_row_columns) << model.kind();
  EXPECT_EQ(model.initial_parameters().size(), model.num_parameters()) << model.kind();
}

SparseGplvmConfig sparse_config(bool bayesian, LatentKind latents, SparseTraining training) {
  SparseGplvmConfig c;
  c.data_dim = kDim;
  c.latent_dim = 2;
  c.bayesian = bayesian;
  c.latents = latents;
  c.encoder_hidden = {4};
  c.num_inducing = 3;
  c.training = training;
  c.init = LatentInit::random;
  return c;
}

TEST(ParameterLayout, EveryModelKindsBlocksTileItsFlatVector) {
  for (const testing::ModelVariant& v : testing::all_model_variants()) {
    const SasModel model(testing::training_test_config(kDim, v.bayesian, v.latents, v.precision, {6}, 3),
                         kRows, 2, 4);
    expect_tiles(model);
    // The summed range is exactly the encoders' blocks (empty for free latents).
    const IndexRange summed = model.summed_block();
    EXPECT_EQ(summed.end - summed.begin, model.encoder_block().end - model.encoder_block().begin);
    EXPECT_EQ(model.uses_float32_shadow(),
              v.precision == Precision::float32 && v.latents == LatentKind::amortised);
  }
  for (const bool bayesian : {false, true})
    for (const LatentKind latents : {LatentKind::free, LatentKind::amortised})
      for (const SparseTraining training : {SparseTraining::minibatch, SparseTraining::full_batch})
        expect_tiles(SparseGplvmModel(sparse_config(bayesian, latents, training), kRows, 3, 5));
  VaeConfig vae;
  vae.data_dim = kDim;
  vae.latent_dim = 2;
  vae.encoder_hidden = {4};
  vae.decoder_hidden = {3};
  const VaeModel vae_model(vae, 1, kRows, 0, kRows);
  expect_tiles(vae_model);
  EXPECT_EQ(vae_model.summed_block().begin, 0);
  EXPECT_EQ(vae_model.summed_block().end, vae_model.num_parameters());
  EXPECT_EQ(vae_model.gp_decoder(), nullptr);
}

// Free latents: the per-row blocks are the values encode returns for the rank's own rows, and
// writing rows changes only those blocks.
TEST(ParameterLayout, PerRowBlocksAreTheFreeLatentsTheModelReads) {
  SasModelConfig c = testing::training_test_config(kDim, true, LatentKind::free, Precision::float64, {6}, 3);
  c.init = LatentInit::random;
  const SasModel model(c, kRows, 2, 4);
  const Vector p = model.initial_parameters();
  const RowMatrix Y = testing::random_normal(4, kDim, 8);
  RowMatrix mean, variance;
  model.encode(p, DataRef(Y), 2, mean, &variance);
  const RowMatrix rows = model.local_block_rows(p);
  ASSERT_EQ(rows.cols(), 2 + 2);
  EXPECT_TRUE(rows.leftCols(2) == mean);
  EXPECT_LT((rows.rightCols(2).array().exp().matrix() - variance).norm(), 1e-15);

  RowMatrix changed = rows;
  changed.array() += 1.0;
  Vector q = p;
  model.set_local_block_rows(q, changed);
  EXPECT_TRUE(model.local_block_rows(q) == changed);
  const Index shared = model.num_shared_parameters();
  EXPECT_TRUE(q.head(shared) == p.head(shared)) << "writing the rows touched the replicated blocks";
  EXPECT_THROW(model.set_local_block_rows(q, RowMatrix(4, 3)), InputError);
}

// model.fixed_hyperparameters: the indices are the kernel's own positions inside its block.
TEST(ParameterLayout, FixedHyperparametersAreTheKernelsOwnPositions) {
  SasModelConfig c = testing::training_test_config(kDim, false, LatentKind::free, Precision::float64, {6}, 3);
  c.decoder.fixed_hyperparameters = {"variance"};
  const SasModel model(c, kRows, 0, kRows);
  const Kernel& k = model.kernel_prototype();
  Index position = -1;
  for (Index i = 0; i < k.num_hyperparameters(); ++i)
    if (k.hyperparameter_name(i) == "log_variance") position = i;
  ASSERT_GE(position, 0);
  const ParameterBlock& kernel = model.parameter_layout().block("kernel");
  EXPECT_EQ(model.fixed_parameter_indices(), std::vector<Index>{kernel.offset + position});
  EXPECT_EQ(kernel.transform, ParameterTransform::log);
}

// The exact model with the linear basepoint: A sits after the decoder's kernel and noise, and
// basepoint_map reads it there.
TEST(ParameterLayout, ExactModelsBasepointMapFollowsTheDecoderBlocks) {
  ExactGplvmConfig e;
  e.base = testing::training_test_config(kDim, false, LatentKind::free, Precision::float64, {6}, 3);
  e.linear_basepoint = true;
  const ExactGplvmModel model(e, kRows, 0, kRows);
  expect_tiles(model);
  const ParameterBlock& map = model.parameter_layout().block("basepoint_map");
  EXPECT_EQ(map.offset, model.gp_decoder()->num_parameters());
  EXPECT_EQ(map.rows, kDim);
  EXPECT_EQ(map.cols, 2);
  Vector p = model.initial_parameters();
  for (Index i = 0; i < map.size; ++i) p[map.offset + i] = static_cast<double>(i + 1);
  const Matrix A = model.basepoint_map(p);
  EXPECT_EQ(A(0, 0), 1.0);
  EXPECT_EQ(A(kDim - 1, 1), static_cast<double>(map.size));
}

// The hGP-LVM's active set: Z is a copied block of hyperboloid points, redrawn every K.
TEST(ParameterLayout, AnActiveSetIsACopiedBlockOfPoints) {
  SparseGplvmConfig c = sparse_config(false, LatentKind::free, SparseTraining::full_batch);
  c.latent_space = "lorentz";
  c.decoder.kernel = "hyperboloid_exp";
  c.active_set_refresh = 4;
  c.inducing_init = InducingInit::random;
  const SparseGplvmModel model(c, kRows, 0, kRows);
  expect_tiles(model);
  EXPECT_EQ(model.active_set().points.offset, 0);
  EXPECT_EQ(model.active_set().points.rows, 3);
  EXPECT_EQ(model.active_set().every, 4);
  EXPECT_EQ(model.curved_shared_points().rows, 0) << "the active set is no parameter";
  ASSERT_NE(model.curved_point_space(), nullptr);
  EXPECT_EQ(model.curved_local_points_offset(), model.parameter_layout().block("latent/mean").offset);
}

TEST(ParameterLayout, MalformedDeclarationsAreRefused) {
  ParameterLayout layout(3);
  layout.add({.name = "a", .rows = 2, .cols = 1, .role = BlockRole::summed});
  layout.add({.name = "b", .rows = 1, .cols = 1});
  EXPECT_THROW(layout.add({.name = "a", .rows = 1, .cols = 1}), Error) << "a name declared twice";
  EXPECT_THROW(layout.add({.name = "c", .rows = 1, .cols = 1, .role = BlockRole::summed}), Error)
      << "summed blocks apart";
  EXPECT_THROW(layout.add({.name = "d", .rows = 2, .cols = 1, .fixed = {2}}), Error) << "fixed outside";
  layout.add({.name = "x", .placement = Placement::per_row, .cols = 2});
  EXPECT_THROW(layout.add({.name = "e", .rows = 1, .cols = 1}), Error) << "replicated after per row";
  EXPECT_EQ(layout.num_shared(), 3);
  EXPECT_EQ(layout.num_parameters(), 3 + 3 * 2);
  EXPECT_EQ(layout.summed_range().begin, 0);
  EXPECT_EQ(layout.summed_range().end, 2);
}

}  // namespace
}  // namespace gplvm
