// gplvm predict on runs with model.output_space: the mean prediction is the tangent mean pushed to
// the manifold by Exp_mu, written in the data's layout (N x point shape, attribute output_space).
// Per manifold: every predicted point lies on it to 1e-12, Exp_mu of /predictive/tangent_mean
// reproduces it, and at the training latents the predictions are nearer the data than the
// basepoint is (the model explains the data). exact and encode on such runs see the same tangent
// coordinates as training (the exact log-likelihood equals the run's).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <vector>

#include "gplvm/manifold/manifold.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/manifold/tangent_chart.hpp"
#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::read_fixture_matrix;
using testing::read_fixture_vector;
using testing::run_gplvm;
using testing::ScratchDir;

// A float dataset of any rank as rows of its flattened trailing dimensions, with its dims.
RowMatrix read_rows_any_rank(const std::string& file, const std::string& path, std::vector<hsize_t>& dims) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  hsize_t width = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) width *= dims[i];
  RowMatrix rows(static_cast<Index>(dims[0]), static_cast<Index>(width));
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return rows;
}

double json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  return at == std::string::npos ? 0.0 : std::stod(json.substr(at + key.size() + 3));
}

TEST(WrappedPredictCli, MeanPredictionsLieOnTheManifoldInTheDataLayout) {
  const ScratchDir dir;
  struct Case {
    std::string kind, space;
  };
  for (const Case& c : {Case{"sphere_curve", "sphere"}, Case{"shapes", "kendall"},
                        Case{"spd_tensors", "spd_log_euclidean"}, Case{"spd_tensors", "spd_affine"}}) {
    const std::string data = c.space + ".h5", run = "run_" + c.space + ".h5",
                      pred = "pred_" + c.space + ".h5";
    ASSERT_EQ(run_gplvm("generate --kind " + c.kind + " --n 30 --output " + data +
                            (c.kind == "shapes" ? " --landmarks 6" : ""),
                        0, dir)
                  .exit_code,
              0);
    CliResult r =
        run_gplvm("train --data.path=" + data + " --output.path=" + run + " --output.checkpoint_dir=ck_" +
                      c.space + " --model.kind=exact --model.output_space=" + c.space + " --json",
                  0, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const double trained = json_number(r.out, "final_objective");
    r = run_gplvm("predict --run " + run + " --latents " + run + " --output " + pred,
                  c.space == "sphere" ? 2 : 0, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::vector<hsize_t> dims, data_dims;
    const RowMatrix mean = read_rows_any_rank(dir / pred, "/predictive/mean", dims);
    const RowMatrix points = read_rows_any_rank(dir / data, "/Y", data_dims);
    EXPECT_EQ(dims, data_dims) << c.space;
    const std::vector<double> mu = read_fixture_vector(dir / run, "/output_space/basepoint");
    const std::shared_ptr<const Manifold> m = make_output_manifold(c.space, points.cols());
    const TangentChart chart = TangentChart::at(m, Eigen::Map<const Vector>(mu.data(), mu.size()));
    const RowMatrix pushed = chart.points(read_fixture_matrix(dir / pred, "/predictive/tangent_mean"));
    double to_data = 0, to_mean = 0;
    for (Index i = 0; i < mean.rows(); ++i) {
      const Vector p = mean.row(i).transpose();
      EXPECT_EQ(m->off_manifold_reason(p, 1e-12), "") << c.space << " row " << i;
      if (c.space == "sphere" || c.space == "kendall") {  // Exp returns the unit-norm representative
        EXPECT_NEAR(p.norm(), 1.0, 1e-12);
      }
      EXPECT_LT((pushed.row(i) - mean.row(i)).norm(), 1e-12 * (1 + p.norm()));
      to_data += m->distance(p, points.row(i).transpose());
      to_mean += m->distance(chart.basepoint, points.row(i).transpose());
    }
    EXPECT_LT(to_data, 0.5 * to_mean) << c.space;

    // exact recomputes the run's objective from the data through the stored chart.
    r = run_gplvm("exact --run " + run + " --json", 0, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(json_number(r.out, "log_marginal_likelihood"), trained, 1e-6 * std::abs(trained)) << c.space;
  }
}

}  // namespace
}  // namespace gplvm
