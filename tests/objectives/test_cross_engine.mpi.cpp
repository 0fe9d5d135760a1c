// Cross-engine check at 1-4 ranks: the SAS objective with the whole data set active (A = N, no
// remainder) is the exact log marginal likelihood, so the serial SAS engine and the distributed
// ScaLAPACK engine must agree; and with one remainder point (A = N - 1) too, for any split.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/objectives/sas.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

TEST(CrossEngine, SasWithEveryPointActiveEqualsDistributedExactLml) {
  const Communicator comm;
  const Index n = 97, d = 5;
  const Matrix X = testing::random_normal(n, 2, 4);
  const EqArdKernel kernel(1.3, (Vector(2) << 0.8, 1.4).finished());
  const double noise = 0.05;
  const RowMatrix Y = sample_gp_outputs(kernel, noise, X, d, CounterRng(5), 0);
  const RowPartition partition(n, comm.size());
  const RowMatrix local = Y.middleRows(partition.begin(comm.rank()), partition.count(comm.rank()));
  ExactDistributedOptions options;
  options.block_size = 16;  // does not divide 97
  options.with_gradient = false;
  const double exact =
      ExactDistributedGp(kernel, noise, X, local, partition, comm, options).log_marginal_likelihood();

  const double sas_all = sas_objective(kernel, noise, X, Y, X.topRows(0), Y.topRows(0), 1.0).value;
  EXPECT_NEAR(sas_all, exact, 1e-10 * std::abs(exact));
  const double sas_one_out =
      sas_objective(kernel, noise, X.topRows(n - 1), Y.topRows(n - 1), X.bottomRows(1), Y.bottomRows(1), 1.0)
          .value;
  EXPECT_NEAR(sas_one_out, exact, 1e-10 * std::abs(exact));
}

}  // namespace
}  // namespace gplvm
