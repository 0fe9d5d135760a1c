// gplvm geometry: the expected Riemannian metric of a trained run's GP decoder (docs/math/geometry.md)
// and its magnification factor sqrt(det G), on a latent grid or at given latents, distributed by rows
// of the points. On a curved latent space the metric is pulled back to each point's tangent basis.
#include <cmath>
#include <cstdio>
#include <limits>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/geometry_options.hpp"
#include "gplvm/apps/latent_grid_options.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/geometry/expected_metric.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/run/json_summary.hpp"

namespace gplvm {
namespace {

CommandLine geometry_command_line() {
  std::vector<OptionSpec> options = {
      {"run", true, "run file written by gplvm train"},
      {"output", true, "HDF5 file for /geometry (points, metric, log_volume, magnification)"},
      {"grid", true,
       "points per latent coordinate of a regular grid (default 64; Euclidean latents, Q <= 3)"},
      {"padding", true,
       "the grid's box: the conditioning latents' box grown by this share of its width (default 0.1)"},
      {"latents", true, "HDF5 file whose /latent/mean rows are the points, instead of a grid"}};
  for (OptionSpec& o : conditioning_option_specs()) options.push_back(std::move(o));
  return CommandLine("geometry", std::move(options), false);
}

struct LocalGeometry {
  RowMatrix metric;  // rows x (Q * Q), intrinsic coordinates
  RowMatrix log_volume;
};

LocalGeometry local_geometry(const ExpectedMetric& metric, const Matrix& points, const LatentSpace& space) {
  const Index q = space.intrinsic_dim();
  LocalGeometry out{RowMatrix(points.rows(), q * q), RowMatrix(points.rows(), 1)};
  const std::vector<Matrix> metrics = metric.metrics(points);
  for (Index i = 0; i < points.rows(); ++i) {
    const Matrix G = space.is_curved()
                         ? pulled_back(metrics[i], space.manifold().tangent_basis(points.row(i).transpose()))
                         : metrics[i];
    out.metric.row(i) = Eigen::Map<const Eigen::RowVectorXd>(G.data(), G.size());
    out.log_volume(i, 0) = log_volume_element(G);
  }
  return out;
}

}  // namespace

int geometry_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = geometry_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf(
          "%s",
          cl.help("The expected metric of a trained run's decoder and its magnification factor.").c_str());
    return kExitOk;
  }
  const std::optional<std::string> latents_file = cl.value("latents");
  std::vector<NamedPath> latents_input;
  if (latents_file) latents_input.push_back({*latents_file, "--latents"});
  const GeometryFiles files = geometry_files(cl, latents_input);
  const LatentGridRequest grid = latent_grid_request(cl, 64);
  require(!(latents_file && cl.has("grid")), "--grid and --latents exclude each other",
          {"", "--grid", "--latents"});

  const TrainedRun run = load_trained_run(files.run, comm);
  const ConditionedDecoder decoder = conditioned_decoder(run, files.conditioning, comm);
  const std::unique_ptr<LatentSpace> space = make_latent_space(decoder.latent_space, decoder.latent_dim);
  require(latents_file || !space->is_curved(), "on a curved latent space give the points with --latents",
          {run.path, "model.latent_space", decoder.latent_space});
  const Matrix points =
      latents_file ? latent_points(*latents_file, comm) : latent_grid_points(grid, decoder.latents);
  require(points.cols() == decoder.latents.cols(),
          "the points have a different dimension from the run's latents",
          {latents_file.value_or(""), "/latent/mean", std::to_string(points.cols()) + " columns"});

  const RowPartition split(static_cast<std::uint64_t>(points.rows()), comm.size());
  const auto begin = static_cast<Index>(split.begin(comm.rank())),
             count = static_cast<Index>(split.count(comm.rank()));
  const ExpectedMetric metric(decoder.posterior);
  LocalGeometry local;
  comm.all_or_none([&] { local = local_geometry(metric, points.middleRows(begin, count), *space); });
  const RowMatrix magnification = local.log_volume.array().exp();

  const auto total = static_cast<std::uint64_t>(points.rows());
  const auto q = static_cast<std::uint64_t>(space->intrinsic_dim());
  Hdf5ResultWriter out(files.output, comm.raw());
  out.write_matrix("/geometry/points", points);
  out.write_distributed_rows("/geometry/metric", local.metric, begin, total, StorageType::float64, {q, q});
  out.write_distributed_rows("/geometry/log_volume", local.log_volume, begin, total);
  out.write_distributed_rows("/geometry/magnification", magnification, begin, total);
  out.write_matrix("/latent/conditioning", decoder.latents);
  out.write_attribute("/geometry", "conditioning", decoder.source);
  out.write_attribute("/geometry", "latent_space", decoder.latent_space);
  out.write_attribute("/geometry", "grid",
                      latents_file ? std::int64_t{0} : static_cast<std::int64_t>(grid.per_coordinate));
  out.write_attribute("/", "run", run.path);
  out.commit();
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w = json_summary("geometry");
      w.key("output")
          .value(files.output)
          .key("points")
          .value(total)
          .key("conditioning")
          .value(decoder.source);
      w.end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("wrote %s: the expected metric at %llu points (conditioned on %s)\n", files.output.c_str(),
                  static_cast<unsigned long long>(total), decoder.source.c_str());
    }
  }
  return kExitOk;
}

}  // namespace gplvm
