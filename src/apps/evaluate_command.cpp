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
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/core/version.hpp"
#include "gplvm/eval/latent_inference.hpp"
#include "gplvm/eval/manifold_reconstruction.hpp"
#include "gplvm/eval/predictive_evaluation.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/manifold_data.hpp"
#include "gplvm/run/trained_run.hpp"

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
                                        const std::shared_ptr<const Manifold>& projection,
                                        const RowMatrix& mean, const RowMatrix& truth,
                                        const std::optional<SphereLinearBasepoint>& basepoint,
                                        const RowMatrix& test_latents, const Communicator& comm) {
  ManifoldEvaluation m;
  const Manifold& manifold = chart ? *chart->manifold : *projection;
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

CommandLine evaluate_command_line() {
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
       "output space (" + comma_joined(output_manifold_names()) +
           ") that a Euclidean run's mean "
           "predictions are projected onto, for the intrinsic and Euclidean reconstruction RMSE"},
      {"progress-seconds", true, "seconds between progress lines on stderr (default 5)"}};
  for (OptionSpec& spec : inference_option_specs()) specs.push_back(std::move(spec));
  return CommandLine("evaluate", std::move(specs), false);
}

// The training side and the test rows, in the coordinates and units the model was trained in.
struct EvaluationData {
  Matrix train_latents;
  DistributedDataset train, test;
  std::optional<TangentChart> chart;
  std::shared_ptr<const Manifold> projection;  // --project-to
  RowMatrix test_points;                       // the test rows as given, before the chart
  DataTransform transform;
  std::optional<std::vector<std::int64_t>> train_labels;
};

EvaluationData load_evaluation_data(const CommandLine& cl, const TrainedRun& run,
                                    const std::optional<std::string>& project_to, const Communicator& comm) {
  EvaluationData d;
  const Hdf5ResultReader run_file(run.path, comm.raw());
  d.train_latents = run_file.read_matrix("/latent/mean");
  d.train = load_distributed_dataset(run.training_data_file(cl.value("data"), comm), run.settings.data_path,
                                     "", comm);
  // Manifold runs are evaluated in tangent coordinates at the run's basepoint.
  d.chart = read_run_chart(run.path, comm);
  apply_run_chart(d.chart, d.train, comm);
  run.require_data_dim(d.train.file, d.train.cols);
  d.test = load_distributed_dataset(cl.required("test"), cl.value_or("test-dataset", "/Y"), "/labels", comm);
  require(!(d.chart && project_to),
          "--project-to is for runs on Euclidean data; this run predicts on its output space",
          {run.path, "--project-to", project_to.value_or("")});
  if (project_to) {
    d.projection = make_output_manifold(*project_to, static_cast<Index>(d.test.cols), "--project-to");
    const std::uint64_t begin = d.test.partition.begin(comm.rank());
    comm.all_or_none([&] { require_rows_on_manifold(*d.projection, d.test.local, begin, d.test.file); });
  }
  d.test_points = d.test.local;
  apply_run_chart(d.chart, d.test, comm);
  require(d.test.cols == d.train.cols, "test data have a different dimension from the training data",
          {d.test.file, d.test.path, std::to_string(d.test.cols)});
  // The model sees data as training saw them; metrics and predictions are in the data's units.
  d.transform = read_data_transform(run_file, static_cast<Index>(d.train.cols));
  apply_data_transform(d.transform, d.train);
  apply_data_transform(d.transform, d.test);
  require(static_cast<std::uint64_t>(d.train_latents.rows()) == d.train.rows,
          "run latents and training data differ in N",
          {run.path, "/latent/mean", std::to_string(d.train_latents.rows())});
  if (run_file.exists("/labels") && d.test.labels.has_value())
    d.train_labels = run_file.read_int64_vector("/labels");
  return d;
}

// The test rows' latents where the model has no encoder, inferred with the decoder fixed (empty
// for amortised runs). A linear basepoint: training rows in the frames at m(x) of their latents;
// each test row's coordinates move with its latent while it is inferred, then are taken at the
// latent found.
RowMatrix infer_test_latents(const CommandLine& cl, const TrainedRun& run, const Model& model,
                             const Vector& params, const std::optional<SphereLinearBasepoint>& basepoint,
                             EvaluationData& d, const Communicator& comm) {
  RowMatrix inferred;
  if (basepoint) {
    const auto begin = static_cast<Index>(d.train.partition.begin(comm.rank()));
    apply_linear_basepoint(*basepoint, d.train_latents.middleRows(begin, d.train.local.rows()), d.train);
    inferred = infer_latents_linear_basepoint(*model.kernel(params), model.noise_variance(params),
                                              {d.train, d.train_latents}, *basepoint,
                                              chart_frame_points(d.test.local), inference_options(cl), comm);
    apply_linear_basepoint(*basepoint, inferred, d.test);
  } else if (model.latents() == LatentKind::free) {  // `exact` always is, whatever model.latents says
    const std::unique_ptr<LatentSpace> space =
        make_latent_space(model.latent_space(), run.settings.model.latent_dim);
    inferred = infer_latents(*model.kernel(params), model.noise_variance(params), *space,
                             {d.train, d.train_latents}, d.test.local, inference_options(cl), comm);
  }
  return inferred;
}

}  // namespace

int evaluate_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = evaluate_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Predictive metrics and k-NN accuracy of a trained run.").c_str());
    return kExitOk;
  }
  PredictiveEvaluationOptions options = evaluation_options(cl);  // before any file is read
  const std::optional<std::string> project_to = cl.value("project-to");
  if (project_to) require_output_manifold(*project_to, "--project-to");
  const TrainedRun run = load_trained_run(cl.required("run"), comm);
  if (const auto output = cl.value("output")) {
    require_output_not_input({*output, "--output"}, {{run.path, "--run"},
                                                     {cl.required("test"), "--test"},
                                                     {run.settings.data_file, "the run's data.path"}});
    Hdf5ResultWriter::check_writable(*output);
    clean_stale_temporaries_beside(*output, comm);
  }
  run.require_gp_decoder("gplvm evaluate");
  EvaluationData d = load_evaluation_data(cl, run, project_to, comm);
  if (!d.transform.is_identity()) options.column_scale = d.transform.scale;
  ProgressLines progress(comm, cl.real_or("progress-seconds", 5.0, 0.0, 1e9));
  options.progress = std::ref(progress);

  const std::uint64_t test_begin = d.test.partition.begin(comm.rank());
  const std::unique_ptr<Model> model =
      run.model(d.test.rows, test_begin, d.test.partition.count(comm.rank()));
  const Vector params = run.parameters(*model);
  const std::optional<SphereLinearBasepoint> basepoint = model->linear_basepoint(params);
  const RowMatrix inferred = infer_test_latents(cl, run, *model, params, basepoint, d, comm);
  if (basepoint || model->latents() == LatentKind::free) options.test_latents = &inferred;
  const PredictiveEvaluation e = evaluate_predictive(
      *model, params, {d.train, d.train_latents, d.train_labels ? &*d.train_labels : nullptr}, d.test,
      options, comm);
  std::optional<ManifoldEvaluation> manifold;
  if (d.chart || d.projection) {
    RowMatrix mean = e.predictive_mean;
    d.transform.invert_mean(mean);
    manifold = evaluate_on_manifold(d.chart, d.projection, mean, d.test_points, basepoint, inferred, comm);
  }
  if (cl.value("output"))
    write_evaluation(*cl.value("output"), run, d.test, e, d.transform, options.knn_k, manifold, comm);
  if (!comm.is_root()) return kExitOk;
  if (cl.has("json"))
    print_json(run, d.test, e, options.knn_k, manifold);
  else
    print_table(d.test, e, options.knn_k, manifold);
  return kExitOk;
}

}  // namespace gplvm
