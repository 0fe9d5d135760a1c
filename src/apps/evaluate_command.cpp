// gplvm evaluate: options, files and reports around the predictive evaluation of a trained run
// (gplvm/eval/predictive_evaluation.hpp: RMSE / MAE / NLPD per entry of the exact GP predictive,
// docs/math/exact_gplvm.md, and the k-NN accuracy of the encoded test data).
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/trained_run.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/eval/predictive_evaluation.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/temporary_files.hpp"

namespace gplvm {
namespace {

PredictiveEvaluationOptions evaluation_options(const CommandLine& cl) {
  PredictiveEvaluationOptions o;
  o.conditioning_size = std::stoull(cl.value_or("condition", "10000"));
  o.seed = std::stoull(cl.value_or("seed", "0"));
  o.knn_k = std::stoi(cl.value_or("k", "1"));
  o.block_size = std::stoi(cl.value_or("block", std::to_string(ExactDistributedOptions{}.block_size)));
  return o;
}

void write_evaluation(const std::string& path, const TrainedRun& run, const DistributedDataset& test,
                      const PredictiveEvaluation& e, int k, const Communicator& comm) {
  const std::uint64_t test_begin = test.partition.begin(comm.rank());
  Hdf5ResultWriter out(path, comm.raw());
  out.write_distributed_rows("/latent/mean", e.test_latents, test_begin, test.rows);
  out.write_distributed_rows("/predictive/mean", e.predictive_mean, test_begin, test.rows);
  out.write_distributed_rows("/predictive/variance", RowMatrix(e.predictive_variance), test_begin, test.rows);
  out.write_scalar("/metrics/rmse", e.metrics.rmse);
  out.write_scalar("/metrics/mae", e.metrics.mae);
  out.write_scalar("/metrics/nlpd", e.metrics.nlpd);
  if (e.knn_accuracy) out.write_scalar("/metrics/knn_accuracy", *e.knn_accuracy);
  out.write_attribute("/metrics", "knn_k", static_cast<std::int64_t>(k));
  out.write_attribute("/metrics", "conditioning_points", static_cast<std::int64_t>(e.conditioning_points));
  out.write_attribute("/", "run", run.path);
  out.write_attribute("/", "test", test.file);
  out.commit();
}

void print_json(const TrainedRun& run, const DistributedDataset& test, const PredictiveEvaluation& e, int k) {
  JsonWriter w(0);
  w.begin_object().key("command").value("evaluate").key("run").value(run.path).key("test").value(test.file);
  w.key("test_points").value(test.rows).key("conditioning_points").value(e.conditioning_points);
  w.key("rmse").value(e.metrics.rmse).key("mae").value(e.metrics.mae).key("nlpd").value(e.metrics.nlpd);
  if (e.knn_accuracy) w.key("knn_k").value(k).key("knn_accuracy").value(*e.knn_accuracy);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

void print_table(const DistributedDataset& test, const PredictiveEvaluation& e, int k) {
  std::printf("test points %llu, conditioning on %llu encoded training points (exact GP)\n",
              static_cast<unsigned long long>(test.rows),
              static_cast<unsigned long long>(e.conditioning_points));
  std::printf("| metric (per entry) | value |\n|---|---|\n| RMSE | %.6g |\n| MAE | %.6g |\n| NLPD | %.6g |\n",
              e.metrics.rmse, e.metrics.mae, e.metrics.nlpd);
  if (e.knn_accuracy) std::printf("| %d-NN accuracy | %.4f |\n", k, *e.knn_accuracy);
}

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
  if (const auto output = cl.value("output")) {
    require_output_not_input({*output, "--output"}, {{run.path, "--run"},
                                                     {cl.required("test"), "--test"},
                                                     {run.settings.data_file, "the run's data.path"}});
    Hdf5ResultWriter::check_writable(*output);
    clean_stale_temporaries_beside(*output, comm);
  }
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

  const PredictiveEvaluationOptions options = evaluation_options(cl);
  std::optional<std::vector<std::int64_t>> train_labels;
  if (run_file.exists("/labels") && test.labels.has_value())
    train_labels = run_file.read_int64_vector("/labels");

  const std::uint64_t test_begin = test.partition.begin(comm.rank());
  const std::unique_ptr<Model> model = run.model(test.rows, test_begin, test.partition.count(comm.rank()));
  const PredictiveEvaluation e = evaluate_predictive(
      *model, run.parameters(*model), {train, train_latents, train_labels ? &*train_labels : nullptr}, test,
      options, comm);
  if (cl.value("output")) write_evaluation(*cl.value("output"), run, test, e, options.knn_k, comm);
  if (!comm.is_root()) return kExitOk;
  if (cl.has("json"))
    print_json(run, test, e, options.knn_k);
  else
    print_table(test, e, options.knn_k);
  return kExitOk;
}

}  // namespace gplvm
