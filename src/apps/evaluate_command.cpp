// gplvm evaluate: options, files and reports around the predictive evaluation of a trained run
// (gplvm/eval/predictive_evaluation.hpp: RMSE / MAE / NLPD per entry of the exact GP predictive,
// docs/math/exact_gplvm.md, and the k-NN accuracy of the test latents: encoded, or inferred for
// free-latent runs, eval/latent_inference.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/inference_options.hpp"
#include "gplvm/apps/json_summary.hpp"
#include "gplvm/apps/manifold_data.hpp"
#include "gplvm/apps/trained_run.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/version.hpp"
#include "gplvm/eval/latent_inference.hpp"
#include "gplvm/eval/manifold_reconstruction.hpp"
#include "gplvm/eval/predictive_evaluation.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/temporary_files.hpp"

namespace gplvm {
namespace {

// Progress lines on stderr from rank 0, as training writes them: each phase as it starts, and the
// prediction at most every `seconds` (and when it ends) with its rate and the time left.
class ProgressLines {
 public:
  ProgressLines(const Communicator& comm, double seconds) : comm_(comm), seconds_(seconds) {}

  void operator()(const EvaluationProgress& p) {
    if (!comm_.is_root()) return;
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (p.done == 0) {
      phase_start_ = now;
      std::fprintf(stderr, "evaluate: %s (elapsed %s)\n", p.phase, format_duration(elapsed).c_str());
    } else if (std::chrono::duration<double>(now - last_).count() >= seconds_ || p.done == p.total) {
      const double phase = std::chrono::duration<double>(now - phase_start_).count();
      const double rate = static_cast<double>(p.done) / std::max(phase, 1e-9);
      std::fprintf(stderr, "evaluate: %s %llu/%llu test points, points/s %.0f elapsed %s ETA %s\n", p.phase,
                   static_cast<unsigned long long>(p.done), static_cast<unsigned long long>(p.total), rate,
                   format_duration(elapsed).c_str(),
                   format_duration(static_cast<double>(p.total - p.done) / std::max(rate, 1e-9)).c_str());
    } else {
      return;
    }
    last_ = now;
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  const Communicator& comm_;
  double seconds_;
  Clock::time_point start_ = Clock::now(), phase_start_ = start_, last_ = start_;
};

// Reconstruction on an output manifold: the test rows as given (points) against the predicted
// points, Exp_mu of the tangent mean for a manifold run, or the Euclidean prediction projected onto
// the manifold named by --project-to.
struct ManifoldEvaluation {
  std::string output_space;
  std::string prediction;  // "exp_map" or "projected"
  RowMatrix points;        // this rank's predicted points, in the data's layout
  std::vector<std::uint64_t> point_shape;
  ManifoldReconstruction errors;
  std::optional<double> unprojected_rmse;  // --project-to: Euclidean RMSE before the projection
};

// basepoint: a linear basepoint's m(x) at the test latents (Exp_{m(x)} instead of Exp_mu).
ManifoldEvaluation evaluate_on_manifold(const std::optional<TangentChart>& chart,
                                        const std::shared_ptr<const OutputManifold>& projection,
                                        const RowMatrix& mean, const RowMatrix& truth,
                                        const std::optional<SphereLinearBasepoint>& basepoint,
                                        const RowMatrix& test_latents, const Communicator& comm) {
  ManifoldEvaluation m;
  const OutputManifold& manifold = chart ? *chart->manifold : *projection;
  m.output_space = manifold.name();
  m.point_shape = manifold.point_shape();
  m.prediction = chart ? "exp_map" : "projected";
  comm.all_or_none([&] {
    if (chart && basepoint) {
      m.points = linear_basepoint_points(*chart, *basepoint, test_latents, mean);
    } else if (chart) {
      m.points = chart->points(mean);
    } else {
      m.points.resize(mean.rows(), mean.cols());
      for (Index i = 0; i < mean.rows(); ++i)
        m.points.row(i) = manifold.project(mean.row(i).transpose()).transpose();
    }
  });
  if (!chart) m.unprojected_rmse = row_distance_rmse(mean, truth, comm);
  m.errors = manifold_reconstruction(manifold, m.points, truth, comm);
  return m;
}

PredictiveEvaluationOptions evaluation_options(const CommandLine& cl) {
  PredictiveEvaluationOptions o;
  constexpr std::int64_t max_int = std::numeric_limits<int>::max();
  o.conditioning_size = cl.unsigned_or("condition", o.conditioning_size);
  o.seed = cl.unsigned_or("seed", o.seed);
  o.knn_k = static_cast<int>(cl.integer_or("k", o.knn_k, 1, max_int));
  o.block_size = static_cast<int>(cl.integer_or("block", o.block_size, 1, max_int));
  return o;
}

// Predictions in the data's original units: the means through the inverse transform; variances,
// one per test row in the model's units, per entry (rows x D) when the run standardised.
void write_evaluation(const std::string& path, const TrainedRun& run, const DistributedDataset& test,
                      const PredictiveEvaluation& e, const DataTransform& transform, int k,
                      const std::optional<ManifoldEvaluation>& manifold, const Communicator& comm) {
  const std::uint64_t test_begin = test.partition.begin(comm.rank());
  Hdf5ResultWriter out(path, comm.raw());
  out.write_distributed_rows("/latent/mean", e.test_latents, test_begin, test.rows);
  RowMatrix mean = e.predictive_mean;
  transform.invert_mean(mean);
  out.write_distributed_rows("/predictive/mean", mean, test_begin, test.rows);
  out.write_distributed_rows("/predictive/variance",
                             transform.standardize ? transform.invert_variance(e.predictive_variance)
                                                   : RowMatrix(e.predictive_variance),
                             test_begin, test.rows);
  out.write_scalar("/metrics/rmse", e.metrics.rmse);
  out.write_scalar("/metrics/mae", e.metrics.mae);
  out.write_scalar("/metrics/nlpd", e.metrics.nlpd);
  if (e.knn_accuracy) out.write_scalar("/metrics/knn_accuracy", *e.knn_accuracy);
  if (manifold) {
    out.write_distributed_rows("/predictive/manifold_mean", manifold->points, test_begin, test.rows,
                               StorageType::float64, manifold->point_shape);
    out.write_attribute("/predictive/manifold_mean", kOutputSpaceAttribute, manifold->output_space);
    out.write_scalar("/metrics/intrinsic_rmse", manifold->errors.intrinsic_rmse);
    out.write_scalar("/metrics/euclidean_rmse", manifold->errors.euclidean_rmse);
    if (manifold->unprojected_rmse)
      out.write_scalar("/metrics/unprojected_euclidean_rmse", *manifold->unprojected_rmse);
    out.write_attribute("/metrics", "output_space", manifold->output_space);
    out.write_attribute("/metrics", "manifold_prediction", manifold->prediction);
  }
  out.write_attribute("/metrics", "knn_k", static_cast<std::int64_t>(k));
  out.write_attribute("/metrics", "conditioning_points", static_cast<std::int64_t>(e.conditioning_points));
  out.write_attribute("/", "run", std::filesystem::absolute(run.path).string());
  out.write_attribute("/", "test", std::filesystem::absolute(test.file).string());
  out.write_attribute("/", "version", version());
  out.write_attribute("/", "git_commit", git_commit());
  out.commit();
}

void print_json(const TrainedRun& run, const DistributedDataset& test, const PredictiveEvaluation& e, int k,
                const std::optional<ManifoldEvaluation>& manifold) {
  JsonWriter w = json_summary("evaluate");
  w.key("run").value(run.path).key("test").value(test.file);
  w.key("test_points").value(test.rows).key("conditioning_points").value(e.conditioning_points);
  w.key("rmse").value(e.metrics.rmse).key("mae").value(e.metrics.mae).key("nlpd").value(e.metrics.nlpd);
  if (e.knn_accuracy) w.key("knn_k").value(k).key("knn_accuracy").value(*e.knn_accuracy);
  if (manifold) {
    w.key("output_space")
        .value(manifold->output_space)
        .key("manifold_prediction")
        .value(manifold->prediction);
    w.key("intrinsic_rmse").value(manifold->errors.intrinsic_rmse);
    w.key("euclidean_rmse").value(manifold->errors.euclidean_rmse);
    if (manifold->unprojected_rmse) w.key("unprojected_euclidean_rmse").value(*manifold->unprojected_rmse);
  }
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

void print_table(const DistributedDataset& test, const PredictiveEvaluation& e, int k,
                 const std::optional<ManifoldEvaluation>& manifold) {
  std::printf("test points %llu, conditioning on %llu training points (exact GP)\n",
              static_cast<unsigned long long>(test.rows),
              static_cast<unsigned long long>(e.conditioning_points));
  std::printf("| metric (per entry) | value |\n|---|---|\n| RMSE | %.6g |\n| MAE | %.6g |\n| NLPD | %.6g |\n",
              e.metrics.rmse, e.metrics.mae, e.metrics.nlpd);
  if (e.knn_accuracy) std::printf("| %d-NN accuracy | %.4f |\n", k, *e.knn_accuracy);
  if (!manifold) return;
  std::printf("reconstruction on %s (%s predictions), per point:\n", manifold->output_space.c_str(),
              manifold->prediction == "exp_map" ? "Exp_mu of the tangent mean" : "projected");
  std::printf("| RMSE, intrinsic distance | %.6g |\n| RMSE, Euclidean distance | %.6g |\n",
              manifold->errors.intrinsic_rmse, manifold->errors.euclidean_rmse);
  if (manifold->unprojected_rmse)
    std::printf("| RMSE, Euclidean, before projection | %.6g |\n", *manifold->unprojected_rmse);
}

}  // namespace

int evaluate_command(const Arguments& args, const Communicator& comm) {
  std::vector<OptionSpec> specs = {
      {"run", true, "run file written by gplvm train (a GP decoder: amortised, or free latents inferred)"},
      {"test", true, "HDF5 test data (with /labels for the k-NN accuracy)"},
      {"data", true, "training data file (default: the run's data.path; must have the same D)"},
      {"test-dataset", true, "dataset inside --test (default /Y)"},
      {"condition", true, "training rows the exact predictive conditions on (default 10000; 0: all)"},
      {"seed", true, "seed choosing the conditioning rows (default 0)"},
      {"k", true, "neighbours for the k-NN accuracy (default 1)"},
      {"block", true,
       "ScaLAPACK block size (default " + std::to_string(ExactDistributedOptions{}.block_size) + ")"},
      {"output", true, "HDF5 file for the test latents, predictive means/variances and metrics"},
      {"project-to", true,
       "output space (sphere, kendall, spd_log_euclidean, spd_affine) that a Euclidean run's mean "
       "predictions are projected onto, for the intrinsic and Euclidean reconstruction RMSE"},
      {"progress-seconds", true, "seconds between progress lines on stderr (default 5)"}};
  for (OptionSpec& spec : inference_option_specs()) specs.push_back(std::move(spec));
  CommandLine cl("evaluate", std::move(specs), false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Predictive metrics and k-NN accuracy of a trained run.").c_str());
    return kExitOk;
  }
  PredictiveEvaluationOptions options = evaluation_options(cl);  // before any file is read
  const std::optional<std::string> project_to = cl.value("project-to");
  if (project_to)
    require(std::find(output_manifold_names().begin(), output_manifold_names().end(), *project_to) !=
                output_manifold_names().end(),
            "unknown output space", {"", "--project-to", *project_to});
  const TrainedRun run = load_trained_run(cl.required("run"), comm);
  if (const auto output = cl.value("output")) {
    require_output_not_input({*output, "--output"}, {{run.path, "--run"},
                                                     {cl.required("test"), "--test"},
                                                     {run.settings.data_file, "the run's data.path"}});
    Hdf5ResultWriter::check_writable(*output);
    clean_stale_temporaries_beside(*output, comm);
  }
  run.require_gp_decoder("gplvm evaluate");
  const Hdf5ResultReader run_file(run.path, comm.raw());
  const Matrix train_latents = run_file.read_matrix("/latent/mean");
  DistributedDataset train = load_distributed_dataset(run.training_data_file(cl.value("data"), comm),
                                                      run.settings.data_path, "", comm);
  // Manifold runs are evaluated in tangent coordinates at the run's basepoint.
  const std::optional<TangentChart> chart = read_run_chart(run.path, comm);
  apply_run_chart(chart, train, comm);
  run.require_data_dim(train.file, train.cols);
  DistributedDataset test =
      load_distributed_dataset(cl.required("test"), cl.value_or("test-dataset", "/Y"), "/labels", comm);
  require(!(chart && project_to),
          "--project-to is for runs on Euclidean data; this run predicts on its output space",
          {run.path, "--project-to", project_to.value_or("")});
  std::shared_ptr<const OutputManifold> projection;
  if (project_to) {
    projection = make_output_manifold(*project_to, static_cast<Index>(test.cols), "--project-to");
    const std::uint64_t begin = test.partition.begin(comm.rank());
    comm.all_or_none([&] { require_rows_on_manifold(*projection, test.local, begin, test.file); });
  }
  const RowMatrix test_points = test.local;  // the rows as given, before the chart maps them
  apply_run_chart(chart, test, comm);
  require(test.cols == train.cols, "test data have a different dimension from the training data",
          {test.file, test.path, std::to_string(test.cols)});
  // The model sees data as training saw them; metrics and predictions are in the data's units.
  const DataTransform transform = read_data_transform(run_file, static_cast<Index>(train.cols));
  apply_data_transform(transform, train);
  apply_data_transform(transform, test);
  require(static_cast<std::uint64_t>(train_latents.rows()) == train.rows,
          "run latents and training data differ in N",
          {run.path, "/latent/mean", std::to_string(train_latents.rows())});

  if (!transform.is_identity()) options.column_scale = transform.scale;
  ProgressLines progress(comm, cl.real_or("progress-seconds", 5.0, 0.0, 1e9));
  options.progress = std::ref(progress);
  std::optional<std::vector<std::int64_t>> train_labels;
  if (run_file.exists("/labels") && test.labels.has_value())
    train_labels = run_file.read_int64_vector("/labels");

  const std::uint64_t test_begin = test.partition.begin(comm.rank());
  const std::unique_ptr<Model> model = run.model(test.rows, test_begin, test.partition.count(comm.rank()));
  const Vector params = run.parameters(*model);
  // Free latents have no encoder: each test row's latent is inferred with the decoder fixed. The
  // model says whether its latents are free (`exact` always is, whatever model.latents says).
  RowMatrix inferred;
  // A linear basepoint: training rows in the frames at m(x) of their latents; each test row's
  // coordinates move with its latent while it is inferred, then are taken at the latent found.
  const std::optional<SphereLinearBasepoint> basepoint = model->linear_basepoint(params);
  if (basepoint) {
    const auto begin = static_cast<Index>(train.partition.begin(comm.rank()));
    apply_linear_basepoint(*basepoint, train_latents.middleRows(begin, train.local.rows()), train);
    inferred = infer_latents_linear_basepoint(*model->kernel(params), model->noise_variance(params),
                                              {train, train_latents}, *basepoint,
                                              chart_frame_points(test.local), inference_options(cl), comm);
    apply_linear_basepoint(*basepoint, inferred, test);
    options.test_latents = &inferred;
  } else if (model->latents() == LatentKind::free) {
    const std::unique_ptr<LatentSpace> space =
        make_latent_space(model->latent_space(), run.settings.model.latent_dim);
    inferred = infer_latents(*model->kernel(params), model->noise_variance(params), *space,
                             {train, train_latents}, test.local, inference_options(cl), comm);
    options.test_latents = &inferred;
  }
  const PredictiveEvaluation e = evaluate_predictive(
      *model, params, {train, train_latents, train_labels ? &*train_labels : nullptr}, test, options, comm);
  std::optional<ManifoldEvaluation> manifold;
  if (chart || projection) {
    RowMatrix mean = e.predictive_mean;
    transform.invert_mean(mean);
    manifold = evaluate_on_manifold(chart, projection, mean, test_points, basepoint, inferred, comm);
  }
  if (cl.value("output"))
    write_evaluation(*cl.value("output"), run, test, e, transform, options.knn_k, manifold, comm);
  if (!comm.is_root()) return kExitOk;
  if (cl.has("json"))
    print_json(run, test, e, options.knn_k, manifold);
  else
    print_table(test, e, options.knn_k, manifold);
  return kExitOk;
}

}  // namespace gplvm
