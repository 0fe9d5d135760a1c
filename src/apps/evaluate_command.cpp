// gplvm evaluate: encode the test data, predict it with the exact GP conditioned on (a subset of)
// the encoded training data, and report RMSE / MAE / NLPD per entry (docs/math/exact_gplvm.md, no abs() on
// the NLPD) and the k-NN accuracy of the test latents against the training latents.
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/trained_run.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/keyed_permutation.hpp"
#include "gplvm/eval/metrics.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/parallel/row_redistribution.hpp"

namespace gplvm {
namespace {

constexpr Index kPredictChunk = 2048;  // test points per predictive solve: bounds memory for any M

struct ConditioningSet {
  Matrix latents;     // M x Q, replicated
  RowMatrix local_y;  // this rank's block of the balanced partition of the M rows
  RowPartition partition{1, 1};
};

// The first `size` rows of the (seed, epoch 0) permutation of the training rows, in row order,
// moved to the balanced layout the ScaLAPACK path expects. size 0 or >= N: every row.
ConditioningSet conditioning_set(const DistributedDataset& train, const Matrix& latents, std::uint64_t size,
                                 std::uint64_t seed, const Communicator& comm) {
  ConditioningSet c;
  if (size == 0 || size >= train.rows) {
    c.latents = latents;
    c.local_y = train.local;
    c.partition = train.partition;
    return c;
  }
  const KeyedPermutation permutation(train.rows, seed, 0);
  std::vector<char> chosen(train.rows, 0);
  for (std::uint64_t i = 0; i < size; ++i) chosen[permutation(i)] = 1;
  c.latents.resize(static_cast<Index>(size), latents.cols());
  const std::uint64_t begin = train.partition.begin(comm.rank()),
                      end = begin + train.partition.count(comm.rank());
  std::uint64_t next = 0, offset = 0;
  std::vector<Index> mine;
  for (std::uint64_t row = 0; row < train.rows; ++row) {
    if (!chosen[row]) continue;
    if (row < begin) ++offset;
    if (row >= begin && row < end) mine.push_back(static_cast<Index>(row - begin));
    c.latents.row(static_cast<Index>(next++)) = latents.row(static_cast<Index>(row));
  }
  RowMatrix local(static_cast<Index>(mine.size()), train.local.cols());
  for (size_t i = 0; i < mine.size(); ++i) local.row(static_cast<Index>(i)) = train.local.row(mine[i]);
  c.local_y = rebalance_rows(comm, local, offset, size);
  c.partition = RowPartition(size, comm.size());
  return c;
}

struct Evaluation {
  PredictiveMetrics metrics;
  double knn = 0;
};

}  // namespace

int evaluate_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl(
      "evaluate",
      {{"run", true, "run file written by gplvm train (amortised model)"},
       {"test", true, "HDF5 test data (with /labels for the k-NN accuracy)"},
       {"test-dataset", true, "dataset inside --test (default /Y)"},
       {"condition", true, "training rows the exact predictive conditions on (default 10000; 0: all)"},
       {"seed", true, "seed choosing the conditioning rows (default 0)"},
       {"k", true, "neighbours for the k-NN accuracy (default 1)"},
       {"block", true,
        "ScaLAPACK block size (default " + std::to_string(ExactDistributedOptions{}.block_size) + ")"},
       {"output", true, "HDF5 file for the test latents, predictive means/variances and metrics"}},
      false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Predictive metrics and k-NN accuracy of a trained run.").c_str());
    return kExitOk;
  }
  const TrainedRun run = load_trained_run(cl.required("run"), comm);
  run.require_gp_decoder("gplvm evaluate");
  require(run.settings.model.latents == LatentKind::amortised,
          "evaluate encodes test data: the run needs an encoder", {run.path, "model.latents", "free"});
  const Hdf5ResultReader run_file(run.path, comm.raw());
  const Matrix train_latents = run_file.read_matrix("/latent/mean");
  const DistributedDataset train =
      load_distributed_dataset(run.settings.data_file, run.settings.data_path, "", comm);
  const DistributedDataset test =
      load_distributed_dataset(cl.required("test"), cl.value_or("test-dataset", "/Y"), "/labels", comm);
  require(test.cols == train.cols, "test data have a different dimension from the training data",
          {test.file, test.path, std::to_string(test.cols)});
  require(static_cast<std::uint64_t>(train_latents.rows()) == train.rows,
          "run latents and training data differ in N",
          {run.path, "/latent/mean", std::to_string(train_latents.rows())});

  // Test latents: encoded where the rows live, then shared (M x Q is small).
  const std::uint64_t test_begin = test.partition.begin(comm.rank());
  const std::unique_ptr<Model> model = run.model(test.rows, test_begin, test.partition.count(comm.rank()));
  const Vector params = run.parameters(*model);
  RowMatrix test_mean;
  model->encode(params, test.local, test_begin, test_mean, nullptr);
  const Matrix test_latents = comm.allgather_rows(DataRef(test_mean));

  const ConditioningSet cond =
      conditioning_set(train, train_latents, std::stoull(cl.value_or("condition", "10000")),
                       std::stoull(cl.value_or("seed", "0")), comm);
  ExactDistributedOptions options;
  options.with_gradient = false;
  options.block_size = std::stoi(cl.value_or("block", std::to_string(ExactDistributedOptions{}.block_size)));
  ExactDistributedGp gp(*model->kernel(params), model->noise_variance(params), cond.latents, cond.local_y,
                        cond.partition, comm, options);
  if (cl.value("output")) Hdf5ResultWriter::check_writable(*cl.value("output"));
  MetricSums sums;
  RowMatrix local_mean(test.local.rows(), test.cols);
  Vector local_variance(test.local.rows());
  for (Index begin = 0; begin < test_latents.rows(); begin += kPredictChunk) {
    const Index count = std::min(kPredictChunk, test_latents.rows() - begin);
    const ExactPrediction p = gp.predict(test_latents.middleRows(begin, count));
    // This rank scores the test rows it owns that fall in the chunk.
    const Index lo = std::max<Index>(begin, test_begin),
                hi = std::min<Index>(begin + count, test_begin + test.local.rows());
    if (hi <= lo) continue;
    local_mean.middleRows(lo - test_begin, hi - lo) = p.mean.middleRows(lo - begin, hi - lo);
    local_variance.segment(lo - test_begin, hi - lo) = p.variance.segment(lo - begin, hi - lo);
    const MetricSums s = predictive_metric_sums(test.local.middleRows(lo - test_begin, hi - lo),
                                                p.mean.middleRows(lo - begin, hi - lo),
                                                p.variance.segment(lo - begin, hi - lo));
    sums.squared_error += s.squared_error;
    sums.absolute_error += s.absolute_error;
    sums.nlpd_terms += s.nlpd_terms;
    sums.entries += s.entries;
  }
  double totals[4] = {sums.squared_error, sums.absolute_error, sums.nlpd_terms,
                      static_cast<double>(sums.entries)};
  comm.allreduce_sum(totals, 4);
  sums = {totals[0], totals[1], totals[2], static_cast<std::uint64_t>(totals[3])};
  Evaluation e{sums.finish(), 0.0};

  const int k = std::stoi(cl.value_or("k", "1"));
  const bool have_labels = run_file.exists("/labels") && test.labels.has_value();
  if (have_labels) {
    const std::vector<std::int64_t> train_labels = run_file.read_int64_vector("/labels");
    const double local =
        test.local.rows() > 0
            ? knn_accuracy(train_latents, train_labels, test_mean, *test.labels, k) * test.local.rows()
            : 0.0;
    e.knn = comm.allreduce_sum(local) / static_cast<double>(test.rows);
  }
  if (cl.value("output")) {
    Hdf5ResultWriter out(*cl.value("output"), comm.raw());
    out.write_distributed_rows("/latent/mean", test_mean, test_begin, test.rows);
    out.write_distributed_rows("/predictive/mean", local_mean, test_begin, test.rows);
    out.write_distributed_rows("/predictive/variance", RowMatrix(local_variance), test_begin, test.rows);
    out.write_scalar("/metrics/rmse", e.metrics.rmse);
    out.write_scalar("/metrics/mae", e.metrics.mae);
    out.write_scalar("/metrics/nlpd", e.metrics.nlpd);
    if (have_labels) out.write_scalar("/metrics/knn_accuracy", e.knn);
    out.write_attribute("/metrics", "knn_k", static_cast<std::int64_t>(k));
    out.write_attribute("/metrics", "conditioning_points",
                        static_cast<std::int64_t>(cond.partition.num_rows()));
    out.write_attribute("/", "run", run.path);
    out.write_attribute("/", "test", test.file);
    out.commit();
  }
  if (!comm.is_root()) return kExitOk;
  if (cl.has("json")) {
    JsonWriter w(0);
    w.begin_object().key("command").value("evaluate").key("run").value(run.path).key("test").value(test.file);
    w.key("test_points").value(test.rows).key("conditioning_points").value(cond.partition.num_rows());
    w.key("rmse").value(e.metrics.rmse).key("mae").value(e.metrics.mae).key("nlpd").value(e.metrics.nlpd);
    if (have_labels) w.key("knn_k").value(k).key("knn_accuracy").value(e.knn);
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("test points %llu, conditioning on %llu encoded training points (exact GP)\n",
                static_cast<unsigned long long>(test.rows),
                static_cast<unsigned long long>(cond.partition.num_rows()));
    std::printf(
        "| metric (per entry) | value |\n|---|---|\n| RMSE | %.6g |\n| MAE | %.6g |\n| NLPD | %.6g |\n",
        e.metrics.rmse, e.metrics.mae, e.metrics.nlpd);
    if (have_labels) std::printf("| %d-NN accuracy | %.4f |\n", k, e.knn);
  }
  return kExitOk;
}

}  // namespace gplvm
