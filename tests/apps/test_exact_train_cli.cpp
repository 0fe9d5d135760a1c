// gplvm train with model.kind = "exact": TAO L-BFGS on the distributed exact LML. The curve must
// never decrease, the run file must reproduce its own LML through gplvm exact, and the result
// must not depend on the rank count beyond the model's symmetries (so the LML is compared); the
// summary breaks the run into phases.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::run_gplvm;

double json_value(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\":(-?[0-9.eE+-]+)")))
    ADD_FAILURE() << key << " in " << json;
  return m.size() > 1 ? std::stod(m[1]) : NAN;
}

TEST(ExactTrainCli, LmlRisesMonotonicallyAndAgreesAcrossRankCountsAndWithGplvmExact) {
  testing::ScratchDir dir;
  const Matrix X = testing::random_normal(70, 2, 3);
  testing::write_fixture_matrix(dir / "d.h5", "/Y",
                                sample_gp_outputs(EqArdKernel(1.0, 1.0, 2), 0.05, X, 5, CounterRng(4), 0));
  testing::write_text(
      dir / "c.toml",
      "[data]\npath = \"d.h5\"\n[model]\nkind = \"exact\"\nlengthscale = 1.0\nkernel_variance = 1.0\n"
      "noise_variance = 0.1\n[exact]\nmax_iterations = 3000\nfrtol = 0.0\n[output]\npath = \"exact1.h5\"\n");
  const auto one = run_gplvm("train --config c.toml --json", 1, dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto two = run_gplvm("train --config c.toml --json --output.path=exact2.h5", 2, dir);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  // Both must converge on a gradient tolerance (frtol off) for their optima to be comparable.
  EXPECT_NE(one.out.find("\"converged\":true"), std::string::npos) << one.out;
  EXPECT_NE(two.out.find("\"converged\":true"), std::string::npos) << two.out;
  const double lml1 = json_value(one.out, "log_marginal_likelihood"),
               lml2 = json_value(two.out, "log_marginal_likelihood");
  EXPECT_NEAR(lml2, lml1, 1e-6 * std::abs(lml1));
  // Full batch reports the breakdown's coarse phases: the objective's evaluations are `model`.
  EXPECT_GT(json_value(two.out, R"(model":\{"min)"), 0.0);
  EXPECT_GT(json_value(two.out, R"(phase_wall_seconds":\{"min)"), 0.0);

  const RowMatrix curve = testing::read_fixture_matrix(dir / "exact2.h5", "/train/curve");
  ASSERT_GT(curve.rows(), 10);
  for (Index i = 1; i < curve.rows(); ++i)
    EXPECT_GE(curve(i, 2), curve(i - 1, 2) - 1e-9 * std::abs(curve(i - 1, 2))) << i;
  EXPECT_GT(curve(curve.rows() - 1, 2), curve(0, 2) + 10.0);

  const auto check = run_gplvm("exact --run exact2.h5 --json", 2, dir);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NEAR(json_value(check.out, "log_marginal_likelihood"), lml2, 1e-9 * std::abs(lml2));
}

}  // namespace
}  // namespace gplvm
