// gplvm predict: the predictive mean and variance of a trained run at given latents (a grid,
// encoded points, a path) or on a regular grid over its latent space (--grid), distributed by rows
// of the latents. The run's model picks the
// predictive (eval/model_predictor.hpp): the exact GP conditioned on the training data, the
// sparse GPLVMs' inducing points, or the VAE's decoder.
#include <cstdio>

#include <limits>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/latent_grid_options.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/eval/model_predictor.hpp"
#include "gplvm/eval/predictive_samples.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/manifold_data.hpp"
#include "gplvm/run/trained_run.hpp"
#include "gplvm/run/training_side.hpp"

namespace gplvm {
namespace {

ExactPredictorOptions predictor_options(const CommandLine& cl) {
  ExactPredictorOptions o;
  o.conditioning_size = cl.unsigned_or("condition", o.conditioning_size);
  o.seed = cl.unsigned_or("seed", 0);
  o.block_size = static_cast<int>(cl.integer_or("block", o.block_size, 1, std::numeric_limits<int>::max()));
  return o;
}

// Given latents must be points of the run's latent space (on the hyperboloid, docs/math/lorentz.md:
// the kernel reads the ambient coordinates, and off the sheet its distance means nothing). The
// tolerance is relative where the space's test is; the first bad row over all ranks is named.
constexpr double kLatentTolerance = 1e-8;

void require_latents_in_space(const LatentSpace& space, const DistributedDataset& latents,
                              const Communicator& comm) {
  const Index local_bad = space.manifold().first_row_outside(Matrix(latents.local), kLatentTolerance);
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  const std::int64_t first_bad = comm.allreduce_min(
      local_bad < 0 ? none : static_cast<std::int64_t>(latents.partition.begin(comm.rank()) + local_bad));
  const std::string where = space.coordinates_note().empty() ? "" : " (" + space.coordinates_note() + ")";
  require(first_bad == none,
          "latents are not points of the run's " + space.name() + " latent space" + where +
              ": the run predicts at its points only",
          {latents.file, latents.path, "row " + std::to_string(first_bad)});
}

// Where predictions are pushed to points: a manifold run's chart (Exp_mu of tangent coordinates),
// or, for a Euclidean run, the manifold named by --project-to (its nearest-point projection).
// With a linear basepoint, Exp_{m(x)} of the coordinates in the frame at m(x), x the row's latent.
struct PointMap {
  std::optional<TangentChart> chart;
  std::shared_ptr<const Manifold> projection;
  std::optional<SphereLinearBasepoint> basepoint;
  Matrix latents;  // this rank's latents, one per output row (the linear basepoint's x)

  const Manifold* manifold() const { return chart ? chart->manifold.get() : projection.get(); }
  // rows of model outputs (tangent coordinates or ambient vectors) -> rows of points.
  RowMatrix points(const RowMatrix& outputs) const {
    if (chart && basepoint) return linear_basepoint_points(*chart, *basepoint, latents, outputs);
    if (chart) return chart->points(outputs);
    RowMatrix p(outputs.rows(), projection->ambient_dim());
    for (Index i = 0; i < outputs.rows(); ++i)
      p.row(i) = projection->project(outputs.row(i).transpose()).transpose();
    return p;
  }
};

// samples: rows x (S * d) model outputs -> rows x (S * D) points, sample by sample.
RowMatrix sample_points(const PointMap& map, const RowMatrix& samples, int count) {
  const Index d = samples.cols() / std::max(count, 1), D = map.manifold()->ambient_dim();
  RowMatrix out(samples.rows(), static_cast<Index>(count) * D);
  for (int s = 0; s < count; ++s) out.middleCols(s * D, D) = map.points(samples.middleCols(s * d, d));
  return out;
}

std::vector<std::uint64_t> sample_shape(int count, const std::vector<std::uint64_t>& point_shape) {
  std::vector<std::uint64_t> shape{static_cast<std::uint64_t>(count)};
  shape.insert(shape.end(), point_shape.begin(), point_shape.end());
  return shape;
}

// Runs on an output manifold predict tangent coordinates at the basepoint; the mean prediction is
// their image under Exp_mu, written in the data's layout (N x point shape, attribute output_space),
// with the tangent mean beside it. The variance stays the tangent one. --project-to adds the
// projected mean of a Euclidean run. Samples are N x S x point shape (rows first, so each rank
// writes its own rows).
// `grid`: the points per coordinate of a --grid (0: latents from a file).
void write_prediction(const std::string& path, const TrainedRun& run, const DistributedDataset& latents,
                      Index grid, const RowMatrix& mean, const RowMatrix& variance, const RowMatrix& samples,
                      int count, const std::string& kind, const std::string& latent_space,
                      const PointMap& map, const Communicator& comm) {
  const std::uint64_t begin = latents.partition.begin(comm.rank());
  Hdf5ResultWriter out(path, comm.raw());
  out.write_distributed_rows("/latent/mean", latents.local, begin, latents.rows);
  out.write_attribute("/latent/mean", "latent_space", latent_space);
  if (grid > 0) out.write_attribute("/latent/mean", "grid", static_cast<std::int64_t>(grid));
  const Manifold* manifold = map.manifold();
  RowMatrix points;
  if (manifold) comm.all_or_none([&] { points = map.points(mean); });
  if (map.chart) {
    out.write_distributed_rows("/predictive/mean", points, begin, latents.rows, StorageType::float64,
                               manifold->point_shape());
    out.write_attribute("/predictive/mean", kOutputSpaceAttribute, manifold->name());
    out.write_distributed_rows("/predictive/tangent_mean", mean, begin, latents.rows);
  } else {
    out.write_distributed_rows("/predictive/mean", mean, begin, latents.rows);
    if (manifold) {
      out.write_distributed_rows("/predictive/projected_mean", points, begin, latents.rows,
                                 StorageType::float64, manifold->point_shape());
      out.write_attribute("/predictive/projected_mean", kOutputSpaceAttribute, manifold->name());
    }
  }
  out.write_distributed_rows("/predictive/variance", variance, begin, latents.rows);
  if (count > 0) {
    if (manifold) {
      RowMatrix on_manifold;
      comm.all_or_none([&] { on_manifold = sample_points(map, samples, count); });
      out.write_distributed_rows("/predictive/samples", on_manifold, begin, latents.rows,
                                 StorageType::float64, sample_shape(count, manifold->point_shape()));
      out.write_attribute("/predictive/samples", kOutputSpaceAttribute, manifold->name());
    } else {
      out.write_distributed_rows("/predictive/samples", samples, begin, latents.rows, StorageType::float64,
                                 sample_shape(count, {static_cast<std::uint64_t>(mean.cols())}));
    }
  }
  out.write_attribute("/predictive", "model", kind);
  out.write_attribute("/", "run", run.path);
  out.write_attribute("/", "latents", grid > 0 ? std::string("grid") : latents.file);
  out.commit();
}

CommandLine predict_command_line() {
  return CommandLine(
      "predict",
      {{"run", true, "run file written by gplvm train"},
       {"latents", true,
        "HDF5 file with the latents to predict at (/latent/mean: a grid, encoded points, a path); or --grid"},
       {"grid", true,
        "predict on a regular grid of this many points per latent coordinate instead (Euclidean latents, "
        "Q <= 3; first coordinate fastest), over the run's latents' box grown by --padding, or over "
        "--grid-limits"},
       {"grid-limits", true, "the grid's box, a low and a high per latent coordinate: xmin,xmax,ymin,ymax"},
       {"padding", true,
        "the grid's box: the run's latents' box grown by this share of its width (default 0.1)"},
       {"latents-dataset", true, "dataset inside --latents (default /latent/mean)"},
       {"data", true, "training data file, instead of the one the run was trained on (same dataset path)"},
       {"condition", true, "training rows the exact GP predictive conditions on (default 10000; 0: all)"},
       {"seed", true, "seed choosing the conditioning rows and drawing the --samples (default 0)"},
       {"samples", true,
        "predictive samples per latent, written as /predictive/samples (N x S x point shape); on an output "
        "space Exp_mu of Gaussian tangent samples (default 0)"},
       {"project-to", true,
        "output space (" + comma_joined(output_manifold_names()) +
            ") onto which a Euclidean run's mean "
            "(/predictive/projected_mean) and samples are projected"},
       {"block", true,
        "ScaLAPACK block size (default " + std::to_string(ExactDistributedOptions{}.block_size) + ")"},
       {"output", true, "HDF5 file for /predictive/mean and /predictive/variance"}},
      false);
}

// The latents to predict at come from --latents or --grid (with --grid-limits or --padding), once.
std::optional<LatentGridRequest> grid_request(const CommandLine& cl) {
  require(cl.has("latents") || cl.has("grid"), "gplvm predict needs --latents or --grid",
          {"", "--latents", ""});
  require(!(cl.has("latents") && cl.has("grid")), "--grid and --latents exclude each other",
          {"", "--grid", "--latents"});
  for (const char* option : {"grid-limits", "padding"})
    require(!cl.has(option) || cl.has("grid"), "--grid-limits and --padding shape a --grid",
            {"", std::string("--") + option, cl.value_or(option, "")});
  require(!cl.has("latents-dataset") || cl.has("latents"), "--latents-dataset names a dataset of --latents",
          {"", "--latents-dataset", cl.value_or("latents-dataset", "")});
  if (!cl.has("grid")) return std::nullopt;
  return latent_grid_request(cl, 0);
}

// A grid over the run's latents as the rows this rank predicts at (split as a latents file would be).
DistributedDataset grid_latents(const LatentGridRequest& request, const TrainingSide& training,
                                const LatentSpace& space, const TrainedRun& run, const Communicator& comm) {
  require(!space.is_curved(),
          "a grid is for Euclidean latents; give points of the run's latent space with --latents",
          {run.path, "--grid", space.name()});
  const Matrix points = latent_grid_points(request, training.latent_mean);
  DistributedDataset d;
  d.path = "/latent/mean";
  d.rows = static_cast<std::uint64_t>(points.rows());
  d.cols = static_cast<std::uint64_t>(points.cols());
  d.partition = RowPartition(d.rows, comm.size());
  d.local = points.middleRows(static_cast<Index>(d.partition.begin(comm.rank())),
                              static_cast<Index>(d.partition.count(comm.rank())));
  return d;
}

void print_predict_summary(bool json, const std::string& output, std::uint64_t rows, Index data_dim,
                           const std::string& kind) {
  if (json) {
    JsonWriter w = json_summary("predict");
    w.key("output").value(output).key("rows").value(rows);
    w.key("data_dim").value(static_cast<std::int64_t>(data_dim)).key("model").value(kind);
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return;
  }
  std::printf("wrote %s: predictions at %llu latents (%s)\n", output.c_str(),
              static_cast<unsigned long long>(rows), kind.c_str());
}

}  // namespace

int predict_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = predict_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Predictive mean and variance of a trained run at given latents.").c_str());
    return kExitOk;
  }
  const std::optional<LatentGridRequest> grid = grid_request(cl);
  const std::string output = cl.required("output"), latents_file = cl.value_or("latents", "");
  const TrainedRun run = load_trained_run(cl.required("run"), comm);
  const std::string data_file = cl.value_or("data", run.settings.data_file);
  require_output_not_input({output, "--output"},
                           {{run.path, "--run"}, {latents_file, "--latents"}, {data_file, "--data"}});
  Hdf5ResultWriter::check_writable(output);
  const ExactPredictorOptions options = predictor_options(cl);
  const int samples = static_cast<int>(cl.integer_or("samples", 0, 0, 100000));
  const std::uint64_t seed = cl.unsigned_or("seed", 0);
  const std::optional<std::string> project_to = cl.value("project-to");

  // A latents file is read first, so that a wrong one fails before the training data are loaded.
  std::optional<DistributedDataset> latents_file_rows;
  if (!grid)
    latents_file_rows =
        load_distributed_dataset(latents_file, cl.value_or("latents-dataset", "/latent/mean"), "", comm);
  TrainingSide training = load_training_side(run, data_file, comm);
  const std::unique_ptr<Model> model =
      run.model(training.data.rows, training.data.partition.begin(comm.rank()),
                training.data.partition.count(comm.rank()));
  // Latents are given in the run's ambient coordinates: Q + 1 columns on lorentz.
  const std::unique_ptr<LatentSpace> space = make_latent_space(model->latent_space(), model->latent_dim());
  const DistributedDataset latents =
      grid ? grid_latents(*grid, training, *space, run, comm) : std::move(*latents_file_rows);
  require(latents.cols == static_cast<std::uint64_t>(space->ambient_dim()),
          "latents have a different dimension from the run's",
          {latents.file, latents.path,
           std::to_string(latents.cols) + " columns, run has " + std::to_string(space->ambient_dim()) + " (" +
               space->name() + ")"});
  require_latents_in_space(*space, latents, comm);
  PointMap map;
  map.chart = training.chart;
  if (project_to) {
    require(!training.chart,
            "--project-to is for runs on Euclidean data; this run predicts on its output space",
            {run.path, "--project-to", *project_to});
    require_output_manifold(*project_to, "--project-to");
    map.projection = make_output_manifold(*project_to, model->data_dim(), "--project-to");
  }
  const Vector params = run.parameters(*model);
  // A linear basepoint: the GP was trained on each row's coordinates at m(x) of its own latent.
  map.basepoint = model->linear_basepoint(params);
  if (map.basepoint) {
    const auto begin = static_cast<Index>(training.data.partition.begin(comm.rank()));
    apply_linear_basepoint(*map.basepoint, training.latent_mean.middleRows(begin, training.data.local.rows()),
                           training.data);
    map.latents = latents.local;
  }
  const std::unique_ptr<Predictor> predictor =
      model_predictor(*model, params, training.evidence(), options, comm);
  Prediction p = predictor->predict(Matrix(latents.local));
  // data.center / data.standardize: the model predicts in the units it was trained in; the file
  // holds the data's own units.
  const DataTransform& transform = training.transform;
  transform.invert_mean(p.mean);
  const RowMatrix variance =
      transform.standardize ? transform.invert_variance(p.variance) : RowMatrix(p.variance);
  const std::string kind = model->kind();
  const RowMatrix draws =
      samples > 0
          ? gaussian_predictive_samples(p.mean, variance, latents.partition.begin(comm.rank()), samples, seed)
          : RowMatrix();
  write_prediction(output, run, latents, grid ? grid->per_coordinate : 0, p.mean, variance, draws, samples,
                   kind, space->name(), map, comm);
  if (comm.is_root()) print_predict_summary(cl.has("json"), output, latents.rows, model->data_dim(), kind);
  return kExitOk;
}

}  // namespace gplvm
