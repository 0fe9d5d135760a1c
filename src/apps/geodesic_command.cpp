// gplvm geodesic: geodesics of the expected metric of a trained run's decoder between pairs of latent
// points (docs/math/geometry.md): a graph geodesic, then the cubic-spline boundary-value solver,
// written with their Riemannian (expected) and latent lengths, the straight line's, and optionally the
// decoded mean along both and the curve shot from the geodesic's initial velocity. The pairs are
// split over the ranks; each pair is solved by one rank, so the file is the same at any rank count.
// On a curved latent space (sphere, hyperboloid) the curves are solved in the exponential chart at
// the space's origin and written as points of the space; the baseline is the space's own geodesic.
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/geometry_options.hpp"
#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/geometry/geodesic_search.hpp"
#include "gplvm/geometry/geodesic_shooting.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/run/json_summary.hpp"

namespace gplvm {
namespace {

CommandLine geodesic_command_line() {
  std::vector<OptionSpec> options = {
      {"run", true, "run file written by gplvm train"},
      {"output", true, "HDF5 file for /geodesics"},
      {"points", true, "HDF5 file whose /latent/mean rows the indices name (default: the run's own latents)"},
      {"from", true, "index of the start point"},
      {"to", true, "index of the end point"},
      {"from-point", true, "start point as coordinates, e.g. 0.5,-1.2"},
      {"to-point", true, "end point as coordinates"},
      {"pairs", true, "HDF5 file with /pairs (P x 2 indices of --points): many geodesics"},
      {"random-pairs", true, "this many random pairs of distinct points (drawn from --seed)"},
      {"all-pairs", true, "every pair among the first N points (N (N - 1) / 2 geodesics)"},
      {"nodes", true, "nodes at which a spline's energy is evaluated (default 20)"},
      {"segments", true, "cubic segments of a spline (default 10)"},
      {"max-iterations", true, "L-BFGS iterations per geodesic (default 500)"},
      {"tolerance", true, "stop when the energy's gradient is this share of its first (default 1e-7)"},
      {"graph", true, "graph geodesic to start from: auto (grid for Q <= 3, else knn), grid, knn or none"},
      {"resolution", true, "grid points per coordinate (default 200, 48, 16 for Q = 1, 2, 3)"},
      {"k", true, "knn graph: neighbours per conditioning latent (default 10)"},
      {"curve-points", true, "points written per curve (default 50)"},
      {"decode", false, "also write the decoded mean along each geodesic and straight line"},
      {"shoot", false,
       "also shoot each geodesic from its initial velocity (Christoffel symbols) and write where it lands"}};
  for (OptionSpec& o : conditioning_option_specs()) options.push_back(std::move(o));
  return CommandLine("geodesic", std::move(options), false);
}

// Named end points must lie on the latent space (within 1e-8, as gplvm predict checks its latents).
void require_points_in_space(const LatentSpace& space, const Matrix& points, const std::string& option) {
  const Index bad = space.manifold().first_row_outside(points, 1e-8);
  require(bad < 0, "an end point is not a point of the run's " + space.name() + " latent space",
          {"", option, "pair " + std::to_string(bad)});
}

struct Pairs {
  Matrix from, to;
  std::vector<std::int64_t> from_index, to_index;  // -1 for coordinates
};

std::vector<std::int64_t> exact_indices(const RowMatrix& values, const std::string& file) {
  std::vector<std::int64_t> out;
  for (Index i = 0; i < values.size(); ++i) {
    const double v = values.data()[i];
    require(v == std::floor(v) && std::abs(v) < 9e15, "pair indices must be integers",
            {file, "/pairs", std::to_string(v)});
    out.push_back(static_cast<std::int64_t>(v));
  }
  return out;
}

Pairs requested_pairs(const CommandLine& cl, const Matrix& points, const std::string& points_file,
                      const Communicator& comm) {
  const Index q = points.cols();
  Pairs p;
  std::vector<std::pair<std::int64_t, std::int64_t>> indexed;
  const int ways = (cl.has("from") || cl.has("from-point")) + cl.has("pairs") + cl.has("random-pairs");
  require(ways == 1,
          "name the pairs one way: --from/--to (or --from-point/--to-point), --pairs or --random-pairs",
          {"", "--from", std::to_string(ways) + " ways given"});
  if (cl.has("pairs")) {
    const std::string file = cl.required("pairs");
    const DistributedDataset d = load_distributed_dataset(file, "/pairs", "", comm);
    require(d.cols == 2, "/pairs must have two columns (start and end index)",
            {file, "/pairs", std::to_string(d.cols)});
    const std::vector<std::int64_t> all = exact_indices(comm.allgather_rows(DataRef(d.local)), file);
    for (std::size_t i = 0; i < all.size(); i += 2) indexed.emplace_back(all[i], all[i + 1]);
  } else if (cl.has("all-pairs")) {
    const auto n = static_cast<std::int64_t>(cl.unsigned_or("all-pairs", 2, 2, 100000));
    require(n <= points.rows(), "--all-pairs names more points than there are",
            {points_file, "--all-pairs", std::to_string(n) + " of " + std::to_string(points.rows())});
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t b = a + 1; b < n; ++b) indexed.emplace_back(a, b);
  } else if (cl.has("random-pairs")) {
    const std::uint64_t count = cl.unsigned_or("random-pairs", 1, 1, 10000000);
    require(points.rows() >= 2, "random pairs need at least two points",
            {points_file, "/latent/mean", "1 point"});
    const CounterRng rng(cl.unsigned_or("seed", 0));
    const auto n = static_cast<std::uint64_t>(points.rows());
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto a = static_cast<std::int64_t>(rng.uniform(RngPurpose::geodesic_pairs, 0, i, 0) *
                                               static_cast<double>(n)) %
                     static_cast<std::int64_t>(n);
      const auto b = (a + 1 +
                      static_cast<std::int64_t>(rng.uniform(RngPurpose::geodesic_pairs, 0, i, 1) *
                                                static_cast<double>(n - 1)) %
                          static_cast<std::int64_t>(n - 1)) %
                     static_cast<std::int64_t>(n);
      indexed.emplace_back(a, b);
    }
  }
  if (!indexed.empty()) {
    p.from.resize(static_cast<Index>(indexed.size()), q);
    p.to.resize(static_cast<Index>(indexed.size()), q);
    for (std::size_t i = 0; i < indexed.size(); ++i) {
      p.from.row(static_cast<Index>(i)) =
          indexed_point(points, indexed[i].first, "--pairs", points_file).transpose();
      p.to.row(static_cast<Index>(i)) =
          indexed_point(points, indexed[i].second, "--pairs", points_file).transpose();
      p.from_index.push_back(indexed[i].first);
      p.to_index.push_back(indexed[i].second);
    }
    return p;
  }
  const auto end_point = [&](const char* index_option, const char* point_option, std::int64_t& index) {
    require(cl.has(index_option) != cl.has(point_option), "give each end once, as an index or as coordinates",
            {"", std::string("--") + index_option,
             cl.value_or(index_option, cl.value_or(point_option, "missing"))});
    if (cl.has(point_option)) {
      index = -1;
      return coordinates(cl.required(point_option), q, std::string("--") + point_option);
    }
    index = cl.integer_or(index_option, 0, 0, std::numeric_limits<std::int64_t>::max());
    return indexed_point(points, index, std::string("--") + index_option, points_file);
  };
  p.from_index.resize(1);
  p.to_index.resize(1);
  p.from = end_point("from", "from-point", p.from_index[0]).transpose();
  p.to = end_point("to", "to-point", p.to_index[0]).transpose();
  return p;
}

// This rank's rows of the per-pair outputs.
struct LocalCurves {
  RowMatrix curve, straight, decoded, decoded_straight, shot;
  RowMatrix length, straight_length, latent_length, graph_length, energy, straight_energy, initial_energy,
      iterations, converged, seconds, shot_miss;
};

RowMatrix flattened(const Matrix& m) {
  RowMatrix r = m;  // row-major: point by point
  return Eigen::Map<const RowMatrix>(r.data(), 1, r.size());
}

// The latent space's own geodesic from a to b (the straight line of R^Q; a great circle on the
// sphere) at the parameters t, in ambient coordinates: the baseline a decoder's geodesic is compared with.
Matrix latent_geodesic(const Manifold& manifold, const Vector& a, const Vector& b, const Vector& t) {
  const Vector direction = manifold.log(a, b);
  Matrix out(t.size(), a.size());
  for (Index j = 0; j < t.size(); ++j) out.row(j) = manifold.exp(a, t[j] * direction).transpose();
  return out;
}

double manifold_length(const Manifold& manifold, const Matrix& points) {
  double length = 0.0;
  for (Index j = 0; j + 1 < points.rows(); ++j)
    length += manifold.distance(points.row(j).transpose(), points.row(j + 1).transpose());
  return length;
}

LocalCurves local_curves(const std::vector<GeodesicOutcome>& outcomes, const SplineGeodesicSolver& solver,
                         const GpPosterior& posterior, const Manifold& manifold, Index points_per_curve,
                         bool decode, bool shoot) {
  const auto n = static_cast<Index>(outcomes.size());
  const Index q = posterior.kernel().input_dim(), D = posterior.output_dim();
  const Vector t = uniform_parameters(points_per_curve);
  LocalCurves c;
  c.curve.resize(n, points_per_curve * q);
  c.straight.resize(n, points_per_curve * q);
  if (decode) {
    c.decoded.resize(n, points_per_curve * D);
    c.decoded_straight.resize(n, points_per_curve * D);
  }
  if (shoot) {
    c.shot.resize(n, points_per_curve * q);
    c.shot_miss.resize(n, 1);
  }
  for (RowMatrix* m : {&c.length, &c.straight_length, &c.latent_length, &c.graph_length, &c.energy,
                       &c.straight_energy, &c.initial_energy, &c.iterations, &c.converged, &c.seconds})
    m->resize(n, 1);
  const ExpectedMetric metric(posterior);
  for (Index i = 0; i < n; ++i) {
    const GeodesicOutcome& o = outcomes[static_cast<std::size_t>(i)];
    const SplineCurve& curve = o.solution.curve;
    const Matrix points = solver.points(curve.evaluate(solver.basis(), t));
    const Vector a = points.row(0).transpose(), b = points.row(points.rows() - 1).transpose();
    const Matrix line_points = latent_geodesic(manifold, a, b, t);
    // The baseline's expected energy at the solver's own nodes, as the geodesic's is measured.
    const CurveEnergy line =
        expected_curve_energy(posterior, latent_geodesic(manifold, a, b, solver.parameters()), false);
    c.curve.row(i) = flattened(points);
    c.straight.row(i) = flattened(line_points);
    if (decode) {
      c.decoded.row(i) = flattened(posterior.predict(points).mean);
      c.decoded_straight.row(i) = flattened(posterior.predict(line_points).mean);
    }
    if (shoot) {
      const Vector velocity = curve.evaluate(solver.basis(), Vector::Zero(1), 1).row(0).transpose();
      const Matrix shot = shoot_geodesic(metric, curve.start, velocity, 4 * (points_per_curve - 1));
      Matrix sampled(points_per_curve, q);
      for (Index j = 0; j < points_per_curve; ++j) sampled.row(j) = shot.row(4 * j);
      c.shot.row(i) = flattened(sampled);
      c.shot_miss(i, 0) = (shot.row(shot.rows() - 1).transpose() - curve.end).norm();
    }
    c.length(i, 0) = o.solution.energy.length;
    c.straight_length(i, 0) = line.length;
    c.latent_length(i, 0) = manifold_length(manifold, points);
    c.graph_length(i, 0) = o.graph_length;
    c.energy(i, 0) = o.solution.energy.energy;
    c.straight_energy(i, 0) = line.energy;
    c.initial_energy(i, 0) = o.solution.initial_energy;
    c.iterations(i, 0) = o.solution.iterations;
    c.converged(i, 0) = o.solution.converged ? 1.0 : 0.0;
    c.seconds(i, 0) = o.seconds;
  }
  return c;
}

void write_geodesics(const std::string& output, const LocalCurves& c, const Pairs& pairs, std::uint64_t begin,
                     Index points_per_curve, Index q, Index D, const std::string& source,
                     const std::string& run, const Matrix& conditioning, const Communicator& comm) {
  const auto total = static_cast<std::uint64_t>(pairs.from.rows());
  const std::vector<std::uint64_t> curve_shape{static_cast<std::uint64_t>(points_per_curve),
                                               static_cast<std::uint64_t>(q)};
  const std::vector<std::uint64_t> decoded_shape{static_cast<std::uint64_t>(points_per_curve),
                                                 static_cast<std::uint64_t>(D)};
  Hdf5ResultWriter out(output, comm.raw());
  out.write_matrix("/geodesics/from", pairs.from);
  out.write_matrix("/geodesics/to", pairs.to);
  out.write_int64_vector("/geodesics/from_index", pairs.from_index);
  out.write_int64_vector("/geodesics/to_index", pairs.to_index);
  out.write_distributed_rows("/geodesics/curve", c.curve, begin, total, StorageType::float64, curve_shape);
  out.write_distributed_rows("/geodesics/straight", c.straight, begin, total, StorageType::float64,
                             curve_shape);
  if (c.decoded.cols() > 0) {
    out.write_distributed_rows("/geodesics/decoded", c.decoded, begin, total, StorageType::float64,
                               decoded_shape);
    out.write_distributed_rows("/geodesics/decoded_straight", c.decoded_straight, begin, total,
                               StorageType::float64, decoded_shape);
  }
  if (c.shot.cols() > 0) {
    out.write_distributed_rows("/geodesics/shot", c.shot, begin, total, StorageType::float64, curve_shape);
    out.write_distributed_rows("/geodesics/shot_miss", c.shot_miss, begin, total);
  }
  const std::pair<const char*, const RowMatrix*> columns[] = {{"length", &c.length},
                                                              {"straight_length", &c.straight_length},
                                                              {"latent_length", &c.latent_length},
                                                              {"graph_length", &c.graph_length},
                                                              {"energy", &c.energy},
                                                              {"straight_energy", &c.straight_energy},
                                                              {"initial_energy", &c.initial_energy},
                                                              {"iterations", &c.iterations},
                                                              {"converged", &c.converged},
                                                              {"seconds", &c.seconds}};
  for (const auto& [name, values] : columns)
    out.write_distributed_rows(std::string("/geodesics/") + name, *values, begin, total);
  out.write_matrix("/latent/conditioning", conditioning);
  out.write_attribute("/geodesics", "conditioning", source);
  out.write_attribute("/", "run", run);
  out.commit();
}

}  // namespace

int geodesic_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = geodesic_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Geodesics of the expected metric of a trained run's decoder.").c_str());
    return kExitOk;
  }
  std::vector<NamedPath> pairs_file;
  if (cl.has("pairs")) pairs_file.push_back({cl.required("pairs"), "--pairs"});
  const GeometryFiles files = geometry_files(cl, pairs_file);
  SplineGeodesicOptions spline;
  spline.nodes = cl.integer_or("nodes", spline.nodes, 2, 100000);
  spline.segments = cl.integer_or("segments", spline.segments, 1, 10000);
  spline.max_iterations =
      static_cast<int>(cl.integer_or("max-iterations", spline.max_iterations, 1, 1000000));
  spline.gradient_tolerance = cl.real_or("tolerance", spline.gradient_tolerance, 1e-300, 1.0);
  GeodesicGraphOptions graph_options;
  graph_options.kind = cl.value_or("graph", "auto");
  graph_options.resolution = cl.integer_or("resolution", 0, 0, 100000);
  graph_options.k = cl.integer_or("k", graph_options.k, 1, 100000);
  const auto points_per_curve = static_cast<Index>(cl.integer_or("curve-points", 50, 2, 100000));

  const TrainedRun run = load_trained_run(files.run, comm);
  const ConditionedDecoder decoder = conditioned_decoder(run, files.conditioning, comm);
  const std::unique_ptr<LatentSpace> space = make_latent_space(decoder.latent_space, decoder.latent_dim);
  // On a curved latent space curves are solved in the exponential chart at its origin.
  std::optional<LatentChart> chart;
  if (space->is_curved()) chart.emplace(*space);
  require(!(chart && cl.has("shoot")),
          "--shoot integrates the geodesic equation in R^Q; this run's latents are curved",
          {run.path, "model.latent_space", decoder.latent_space});
  const Matrix points = latent_points(files.points, comm);
  require(points.cols() == decoder.latents.cols(),
          "the points have a different dimension from the run's latents",
          {files.points, "/latent/mean", std::to_string(points.cols()) + " columns"});
  const Pairs pairs = requested_pairs(cl, points, files.points, comm);
  require_points_in_space(*space, pairs.from, "--from");
  require_points_in_space(*space, pairs.to, "--to");
  const Matrix from = chart ? chart->coordinates(pairs.from) : pairs.from;
  const Matrix to = chart ? chart->coordinates(pairs.to) : pairs.to;

  const LatentChart* chart_ptr = chart ? &*chart : nullptr;
  SplineGeodesicSolver solver(decoder.posterior, spline, chart_ptr);
  std::unique_ptr<GeodesicGraph> graph;
  if (graph_options.kind != "none")
    graph = std::make_unique<GeodesicGraph>(decoder.posterior,
                                            chart ? chart->coordinates(decoder.latents) : decoder.latents,
                                            graph_options, comm, chart_ptr);
  const std::vector<GeodesicOutcome> outcomes = find_geodesics(solver, graph.get(), from, to, comm);
  LocalCurves local;
  comm.all_or_none([&] {
    local = local_curves(outcomes, solver, decoder.posterior, space->manifold(), points_per_curve,
                         cl.has("decode"), cl.has("shoot"));
  });
  const RowPartition split(static_cast<std::uint64_t>(pairs.from.rows()), comm.size());
  write_geodesics(files.output, local, pairs, split.begin(comm.rank()), points_per_curve,
                  decoder.latents.cols(), decoder.data_dim, decoder.source, run.path, decoder.latents, comm);

  // The summary: how many are no longer than their straight line, and the throughput.
  double local_shorter = 0, local_seconds = 0;
  for (Index i = 0; i < local.length.rows(); ++i) {
    local_shorter += local.length(i, 0) <= local.straight_length(i, 0) * (1 + 1e-12) ? 1 : 0;
    local_seconds += local.seconds(i, 0);
  }
  const double shorter = comm.allreduce_sum(local_shorter), busiest = comm.allreduce_max(local_seconds);
  if (comm.is_root()) {
    const auto total = static_cast<std::uint64_t>(pairs.from.rows());
    if (cl.has("json")) {
      JsonWriter w = json_summary("geodesic");
      w.key("output").value(files.output).key("geodesics").value(total);
      w.key("no_longer_than_straight").value(static_cast<std::uint64_t>(shorter));
      w.key("seconds").value(busiest).key("geodesics_per_second").value(busiest > 0 ? total / busiest : 0.0);
      w.key("graph").value(graph ? graph->kind() : "none").key("conditioning").value(decoder.source);
      w.end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf(
          "wrote %s: %llu geodesics (%llu no longer than their straight line) in %.3g s on %d ranks\n",
          files.output.c_str(), static_cast<unsigned long long>(total),
          static_cast<unsigned long long>(shorter), busiest, comm.size());
    }
  }
  return kExitOk;
}

}  // namespace gplvm
