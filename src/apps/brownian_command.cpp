// gplvm brownian: Brownian motion on a trained run's latent space under the expected metric of its
// decoder (docs/math/geometry.md, "Brownian motion"), paths split over the ranks; each path's draws
// depend only on (seed, path, step), so the file is the same at any rank count. --log-density adds
// the parametrix log-density of each path's end point, with the geodesic distance from the start.
// On a curved latent space the paths run in the exponential chart at its origin (random_walk and
// thesis_algorithm3; the riemannian drift is refused there) and are written as points of the space.
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/geometry_options.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/geometry/brownian_motion.hpp"
#include "gplvm/geometry/geodesic_search.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/run/json_summary.hpp"

namespace gplvm {
namespace {

CommandLine brownian_command_line() {
  std::vector<OptionSpec> options = {
      {"run", true, "run file written by gplvm train"},
      {"output", true, "HDF5 file for /brownian/paths (paths x (steps + 1) x Q)"},
      {"points", true, "HDF5 file whose /latent/mean rows --from names (default: the run's own latents)"},
      {"from", true, "index of the start point"},
      {"from-point", true, "start point as coordinates, e.g. 0.5,-1.2"},
      {"paths", true, "number of paths (default 100)"},
      {"steps", true, "Euler-Maruyama steps per path (default 100)"},
      {"time", true, "the motion's duration t (default 1)"},
      {"method", true,
       "riemannian (with the drift; default), random_walk (G^-1, no drift) or thesis_algorithm3 (G)"},
      {"log-density", false, "also write the parametrix log-density of each path's end point"}};
  for (OptionSpec& o : conditioning_option_specs()) options.push_back(std::move(o));
  return CommandLine("brownian", std::move(options), false);
}

}  // namespace

int brownian_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = brownian_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Brownian motion under the expected metric of a trained run.").c_str());
    return kExitOk;
  }
  const GeometryFiles files = geometry_files(cl);
  BrownianOptions o;
  o.method = parse_brownian_method(cl.value_or("method", "riemannian"));
  o.steps = cl.integer_or("steps", o.steps, 1, 100000000);
  o.time = cl.real_or("time", o.time, 1e-300, std::numeric_limits<double>::max());
  o.seed = cl.unsigned_or("seed", 0);
  const std::uint64_t paths = cl.unsigned_or("paths", 100, 1, 100000000);
  require(cl.has("from") != cl.has("from-point"), "give the start once, as --from or --from-point",
          {"", "--from", "missing"});

  const TrainedRun run = load_trained_run(files.run, comm);
  const ConditionedDecoder decoder = conditioned_decoder(run, files.conditioning, comm);
  const std::unique_ptr<LatentSpace> space = make_latent_space(decoder.latent_space, decoder.latent_dim);
  // On a curved latent space the paths run in the exponential chart at its origin.
  std::optional<LatentChart> chart;
  if (space->is_curved()) chart.emplace(*space);
  const LatentChart* chart_ptr = chart ? &*chart : nullptr;
  const Index ambient = decoder.latents.cols();
  const Vector start =
      cl.has("from-point")
          ? coordinates(cl.required("from-point"), ambient, "--from-point")
          : indexed_point(latent_points(files.points, comm),
                          cl.integer_or("from", 0, 0, std::numeric_limits<std::int64_t>::max()), "--from",
                          files.points);
  require(space->manifold().first_row_outside(start.transpose(), 1e-8) < 0,
          "the start is not a point of the run's " + space->name() + " latent space",
          {"", "--from", "start"});
  const Vector origin = chart ? Vector(chart->coordinates(start.transpose()).row(0).transpose()) : start;
  const ExpectedMetric metric(decoder.posterior);
  const RowPartition split(paths, comm.size());
  const std::uint64_t begin = split.begin(comm.rank()), count = split.count(comm.rank());
  RowMatrix local(static_cast<Index>(count), (o.steps + 1) * ambient), density(static_cast<Index>(count), 1);
  comm.all_or_none([&] {
    std::unique_ptr<SplineGeodesicSolver> solver;
    if (cl.has("log-density"))
      solver = std::make_unique<SplineGeodesicSolver>(decoder.posterior, SplineGeodesicOptions{}, chart_ptr);
    for (std::uint64_t p = 0; p < count; ++p) {
      const Matrix path = brownian_path(metric, origin, o, begin + p, chart_ptr);
      const RowMatrix points = chart ? chart->points(path) : path;
      local.row(static_cast<Index>(p)) = Eigen::Map<const Eigen::RowVectorXd>(points.data(), points.size());
      if (solver) {
        const Vector end = path.row(path.rows() - 1).transpose();
        const double distance = find_geodesic(*solver, nullptr, origin, end).solution.energy.length;
        density(static_cast<Index>(p), 0) =
            parametrix_log_density(chart_metric(metric, end, chart_ptr), distance, o.time);
      }
    }
  });
  Hdf5ResultWriter out(files.output, comm.raw());
  out.write_vector("/brownian/start", start);
  out.write_distributed_rows("/brownian/paths", local, begin, paths, StorageType::float64,
                             {static_cast<std::uint64_t>(o.steps + 1), static_cast<std::uint64_t>(ambient)});
  if (cl.has("log-density")) out.write_distributed_rows("/brownian/log_density", density, begin, paths);
  out.write_attribute("/brownian", "method", to_string(o.method));
  out.write_attribute("/brownian", "time", o.time);
  out.write_attribute("/brownian", "steps", static_cast<std::int64_t>(o.steps));
  out.write_attribute("/brownian", "seed", static_cast<std::int64_t>(o.seed));
  out.write_attribute("/brownian", "conditioning", decoder.source);
  out.write_attribute(
      "/brownian", "log_density_convention",
      "zeroth-order parametrix w.r.t. Lebesgue measure in latent coordinates (on a curved space those of "
      "the exponential chart at its origin): -Q/2 log(2 pi t) + "
      "1/2 log det G(x) - d(x, start)^2 / (2 t)");
  out.write_matrix("/latent/conditioning", decoder.latents);
  out.write_attribute("/", "run", run.path);
  out.commit();
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w = json_summary("brownian");
      w.key("output").value(files.output).key("paths").value(paths).key("method").value(to_string(o.method));
      w.end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("wrote %s: %llu paths of %lld steps (%s)\n", files.output.c_str(),
                  static_cast<unsigned long long>(paths), static_cast<long long>(o.steps),
                  to_string(o.method).c_str());
    }
  }
  return kExitOk;
}

}  // namespace gplvm
