#include "gplvm/train/run_file.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/core/version.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/train/tangent_chart_file.hpp"

namespace gplvm {
namespace {

std::string format_exact(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

void write_curve(Hdf5ResultWriter& out, const std::vector<CurvePoint>& curve) {
  if (curve.empty()) return;  // a run stopped before its first step (a divergence rolled back to 0)
  Matrix m(curve.size(), 4);
  for (size_t i = 0; i < curve.size(); ++i)
    m.row(i) << static_cast<double>(curve[i].step), static_cast<double>(curve[i].epoch), curve[i].objective,
        curve[i].wall_seconds;
  out.write_matrix("/train/curve", m);
  out.write_attribute("/train/curve", "columns", "step,epoch,objective,wall_seconds");
}

void write_parameters(Hdf5ResultWriter& out, const Model& model, const Vector& p) {
  model.write_parameters(out, p);
  // The replicated parameters as one flat vector: what `gplvm encode` and `gplvm exact` load.
  out.write_vector("/params/shared", p.head(model.num_shared_parameters()));
  // Which values are which: the model's declared blocks (models/parameter_layout.hpp).
  out.write_attribute("/params/shared", "layout", model.parameter_layout().describe());
}

void write_identity(Hdf5ResultWriter& out, const RunMetadata& meta) {
  for (const auto& [key, value] : meta.identity) out.write_attribute("/state", "identity:" + key, value);
  out.write_attribute("/state", "data_rows", static_cast<std::int64_t>(meta.data.rows));
  out.write_attribute("/state", "data_cols", static_cast<std::int64_t>(meta.data.cols));
  out.write_attribute("/state", "data_sum", meta.data.sum);
  out.write_attribute("/state", "data_sum_squares", meta.data.sum_squares);
  out.write_attribute("/state", "data_weighted_sum", meta.data.position_weighted_sum);
}

// The stopping rule's state as attributes "convergence:<name>" on /state: counters as int64,
// the rest as float64 (exact, so a resumed run judges as the uninterrupted one).
constexpr const char* kConvergencePrefix = "convergence:";

template <typename Convergence, typename F>
void for_each_convergence_field(Convergence& c, F&& f) {
  f("observed", c.observed);
  f("smoothed", c.smoothed);
  f("first_smoothed", c.first_smoothed);
  f("peak_smoothed", c.peak_smoothed);
  f("best_smoothed", c.best_smoothed);
  f("best_step", c.best_step);
  f("stalled_windows", c.stalled_windows);
  f("recovering", c.recovering);
  f("converged", c.converged);
  f("converged_step", c.converged_step);
  f("learning_rate_factor", c.learning_rate_factor);
  f("rollbacks", c.rollbacks);
}

void write_convergence_state(Hdf5ResultWriter& out, const Model& model, const TrainingState& s) {
  for_each_convergence_field(s.convergence, [&](const char* name, const auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, double>)
      out.write_attribute("/state", std::string(kConvergencePrefix) + name, value);
    else
      out.write_attribute("/state", std::string(kConvergencePrefix) + name, static_cast<std::int64_t>(value));
  });
  if (s.best_params.size() != s.params.size()) return;
  out.write_vector("/state/best_shared", s.best_params.head(model.num_shared_parameters()));
  if (model.local_values_per_row() > 0)
    out.write_distributed_rows("/state/best_local", model.local_block_rows(s.best_params),
                               model.local_begin(), model.num_data());
}

// Checkpoints written before the stopping rule existed have none of it: the run then starts
// judging afresh, with the resumed parameters as the best so far.
void read_convergence_state(const Hdf5ResultReader& in, const Model& model, TrainingState& s) {
  if (!in.has_attribute("/state", std::string(kConvergencePrefix) + "observed")) return;
  for_each_convergence_field(s.convergence, [&](const char* name, auto& value) {
    using T = std::decay_t<decltype(value)>;
    const std::string attribute = std::string(kConvergencePrefix) + name;
    // Checkpoints from before `recovering` existed lack it: they resume as not recovering.
    if (std::string_view(name) == "recovering" && !in.has_attribute("/state", attribute)) return;
    if constexpr (std::is_same_v<T, double>)
      value = in.read_attribute_double("/state", attribute);
    else
      value = static_cast<T>(in.read_attribute_int64("/state", attribute));
  });
  if (!in.exists("/state/best_shared")) return;
  s.best_params = Vector::Zero(model.num_parameters());
  s.best_params.head(model.num_shared_parameters()) = in.read_vector("/state/best_shared");
  if (model.local_values_per_row() > 0)
    model.set_local_block_rows(
        s.best_params,
        in.read_distributed_rows("/state/best_local", model.local_begin(), model.local_rows()));
}

// /best: the parameters with the highest smoothed objective at a window end, and their latents.
void write_best(Hdf5ResultWriter& out, const Model& model, const TrainingState& s,
                const LocalLatents& latents) {
  const std::uint64_t n = model.num_data(), begin = model.local_begin();
  out.write_vector("/best/shared", s.best_params.head(model.num_shared_parameters()));
  out.write_distributed_rows("/best/latent/mean", latents.mean, begin, n);
  out.write_attribute("/best/latent/mean", "latent_space", model.latent_space());
  if (model.bayesian()) out.write_distributed_rows("/best/latent/var", latents.variance, begin, n);
  out.write_attribute("/best", "step", static_cast<std::int64_t>(s.convergence.best_step));
  out.write_attribute("/best", "smoothed_objective", s.convergence.best_smoothed);
}

// Full-batch L-BFGS's memory (LbfgsMemory) under /state/lbfgs, p points oldest first:
// objective and gradient_norm (p values), x_shared and gradient_shared (p x shared block), and for a
// model with per-row values x_local and gradient_local (rows in global order, each row the p points'
// values of that row side by side).
constexpr const char* kLbfgs = "/state/lbfgs";

RowMatrix stacked_local_rows(const Model& model, const std::vector<Vector>& points) {
  const Index width = model.local_values_per_row(), p = static_cast<Index>(points.size());
  RowMatrix rows(static_cast<Index>(model.local_rows()), p * width);
  for (Index i = 0; i < p; ++i) rows.middleCols(i * width, width) = model.local_block_rows(points[i]);
  return rows;
}

void write_lbfgs_memory(Hdf5ResultWriter& out, const Model& model, const LbfgsMemory& m) {
  if (m.size() == 0) return;
  const Index shared = model.num_shared_parameters(), p = static_cast<Index>(m.size());
  out.write_vector(std::string(kLbfgs) + "/objective", Eigen::Map<const Vector>(m.objective.data(), p));
  out.write_vector(std::string(kLbfgs) + "/gradient_norm",
                   Eigen::Map<const Vector>(m.gradient_norm.data(), p));
  for (const auto& [name, points] : {std::pair{"x", &m.x}, std::pair{"gradient", &m.gradient}}) {
    Matrix head(p, shared);
    for (Index i = 0; i < p; ++i)
      head.row(i) = (*points)[static_cast<std::size_t>(i)].head(shared).transpose();
    out.write_matrix(std::string(kLbfgs) + "/" + name + "_shared", head);
    if (model.local_values_per_row() > 0)
      out.write_distributed_rows(std::string(kLbfgs) + "/" + name + "_local",
                                 stacked_local_rows(model, *points), model.local_begin(), model.num_data());
  }
  out.write_attribute(kLbfgs, "points", static_cast<std::int64_t>(p));
}

void write_state(Hdf5ResultWriter& out, const Communicator& comm, const Model& model,
                 const TrainingState& s) {
  const Index shared = model.num_shared_parameters();
  out.write_vector("/state/shared", s.params.head(shared));
  out.write_attribute("/state/shared", "layout", model.parameter_layout().describe());
  out.write_vector("/state/adam_m_shared", s.adam.first_moment.head(shared));
  out.write_vector("/state/adam_v_shared", s.adam.second_moment.head(shared));
  if (model.local_values_per_row() > 0) {
    const std::uint64_t n = model.num_data(), begin = model.local_begin();
    out.write_distributed_rows("/state/local", model.local_block_rows(s.params), begin, n);
    out.write_distributed_rows("/state/adam_m_local", model.local_block_rows(s.adam.first_moment), begin, n);
    out.write_distributed_rows("/state/adam_v_local", model.local_block_rows(s.adam.second_moment), begin, n);
  }
  out.write_attribute("/state", "step", static_cast<std::int64_t>(s.step));
  out.write_attribute("/state", "adam_steps", static_cast<std::int64_t>(s.adam.steps));
  out.write_attribute("/state", "wall_seconds", s.wall_seconds);
  if (s.step_rate != 0.0) out.write_attribute("/state", "step_rate", s.step_rate);
  write_convergence_state(out, model, s);
  write_lbfgs_memory(out, model, s.lbfgs);
}

// Values must match bit for bit: they are written and read as float64.
void require_same(bool same, const std::string& path, const std::string& what, const std::string& stored,
                  const std::string& expected) {
  if (!same)
    throw CheckpointMismatch("checkpoint was written for a different " + what + " (checkpoint: " + stored +
                                 ", this run: " + expected + ")",
                             {path, what, stored});
}

void check_identity(const Hdf5ResultReader& in, const RunMetadata& expected) {
  const std::string& path = in.path();
  for (const auto& [key, value] : expected.identity) {
    const std::string name = "identity:" + key;
    const std::string stored =
        in.has_attribute("/state", name) ? in.read_attribute_string("/state", name) : "<absent>";
    require_same(stored == value, path, key, stored, value);
  }
  const auto rows = static_cast<std::uint64_t>(in.read_attribute_int64("/state", "data_rows"));
  const auto cols = static_cast<std::uint64_t>(in.read_attribute_int64("/state", "data_cols"));
  require_same(rows == expected.data.rows, path, "data rows", std::to_string(rows),
               std::to_string(expected.data.rows));
  require_same(cols == expected.data.cols, path, "data columns", std::to_string(cols),
               std::to_string(expected.data.cols));
  // The sums depend on the reduction order (rank count), so they match to rounding, not bitwise.
  auto close = [](double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({std::abs(a), std::abs(b), 1.0});
  };
  for (const auto& [name, value] :
       {std::pair{"data_sum", expected.data.sum}, std::pair{"data_sum_squares", expected.data.sum_squares},
        std::pair{"data_weighted_sum", expected.data.position_weighted_sum}}) {
    const double stored = in.read_attribute_double("/state", name);
    require_same(close(stored, value), path, std::string("data (") + name + ")", format_exact(stored),
                 format_exact(value));
  }
}

// The first block where two layout descriptions (ParameterLayout::describe) differ.
std::pair<std::string, std::string> first_block_difference(const std::string& stored,
                                                           const std::string& expected) {
  const auto split = [](const std::string& text) {
    std::vector<std::string> blocks;
    for (std::size_t begin = 0; begin <= text.size();) {
      const std::size_t end = std::min(text.find("; ", begin), text.size());
      blocks.push_back(text.substr(begin, end - begin));
      begin = end + 2;
    }
    return blocks;
  };
  const std::vector<std::string> a = split(stored), b = split(expected);
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "<none>", y = i < b.size() ? b[i] : "<none>";
    if (x != y) return {x, y};
  }
  return {stored, expected};
}

// Checkpoints record the layout their state was written in: a state of another layout (another
// model, kernel or encoder) is refused naming the first block that differs. Checkpoints written
// before layouts were recorded are checked by their sizes alone.
void check_layout(const Hdf5ResultReader& in, const Communicator& comm, const Model& model) {
  std::string stored;
  comm.all_or_none([&] {
    try {
      if (in.has_attribute("/state/shared", "layout"))
        stored = in.read_attribute_string("/state/shared", "layout");
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError("cannot read the checkpoint's parameter layout: " + e.reason(),
                       {in.path(), "/state/shared", "layout"});
    }
  });
  if (stored.empty()) return;
  const std::string expected = model.parameter_layout().describe();
  if (stored == expected) return;
  const auto [was, is] = first_block_difference(stored, expected);
  require_same(false, in.path(), "parameter layout", was, is);
}

// A replicated block of the state, InputError unless it has the model's length.
Vector shared_block_of_length(const Hdf5ResultReader& in, const std::string& dataset, Vector stored,
                              Index length) {
  require(
      stored.size() == length, "checkpoint has a different number of model parameters",
      {in.path(), dataset, std::to_string(stored.size()) + " stored, model has " + std::to_string(length)});
  return stored;
}

Vector read_shared_block(const Hdf5ResultReader& in, const std::string& dataset, Index length) {
  return shared_block_of_length(in, dataset, in.read_vector(dataset), length);
}

// This rank's rows of a per-row block of the state, InputError unless the width matches the model's.
RowMatrix read_local_block(const Hdf5ResultReader& in, const std::string& dataset, std::uint64_t begin,
                           std::uint64_t count, Index width) {
  RowMatrix rows = in.read_distributed_rows(dataset, begin, count);
  require(rows.cols() == width || rows.rows() == 0, "checkpoint has a different number of values per row",
          {in.path(), dataset, std::to_string(rows.cols()) + " stored, model has " + std::to_string(width)});
  return rows;
}

// Checkpoints without /state/lbfgs (written before it was kept, by a minibatch run, or after a
// reset of the memory) give an empty memory. A malformed one is an InputError naming the dataset.
LbfgsMemory read_lbfgs_memory(const Hdf5ResultReader& in, const Model& model) {
  LbfgsMemory m;
  if (!in.exists(kLbfgs)) return m;
  const std::string base = kLbfgs;
  const Vector objective = in.read_vector(base + "/objective");
  const Vector gradient_norm = in.read_vector(base + "/gradient_norm");
  const Index p = objective.size(), shared = model.num_shared_parameters(),
              width = model.local_values_per_row();
  require(p >= 1 && p <= 64, "checkpoint's L-BFGS memory has an impossible number of points",
          {in.path(), base + "/objective", std::to_string(p)});
  require(gradient_norm.size() == p, "checkpoint's L-BFGS memory parts have different numbers of points",
          {in.path(), base + "/gradient_norm",
           std::to_string(gradient_norm.size()) + " (objective: " + std::to_string(p) + ")"});
  require(objective.allFinite() && gradient_norm.allFinite() && (gradient_norm.array() >= 0).all(),
          "checkpoint's L-BFGS memory holds non-finite values or negative norms",
          {in.path(), base + "/objective", ""});
  m.objective.assign(objective.data(), objective.data() + p);
  m.gradient_norm.assign(gradient_norm.data(), gradient_norm.data() + p);
  for (const std::string name : {"x", "gradient"}) {
    std::vector<Vector>& points = name == "x" ? m.x : m.gradient;
    const std::string head_path = base + "/" + name + "_shared";
    const Matrix head = in.read_matrix(head_path);
    require(head.rows() == p && head.cols() == shared, "checkpoint's L-BFGS memory does not fit the model",
            {in.path(), head_path,
             std::to_string(head.rows()) + " x " + std::to_string(head.cols()) + " stored, expected " +
                 std::to_string(p) + " x " + std::to_string(shared)});
    points.assign(static_cast<std::size_t>(p), Vector::Zero(model.num_parameters()));
    for (Index i = 0; i < p; ++i) points[static_cast<std::size_t>(i)].head(shared) = head.row(i).transpose();
    if (width > 0) {
      const std::string local_path = base + "/" + name + "_local";
      const RowMatrix rows =
          read_local_block(in, local_path, model.local_begin(), model.local_rows(), p * width);
      for (Index i = 0; i < p; ++i)
        model.set_local_block_rows(points[static_cast<std::size_t>(i)], rows.middleCols(i * width, width));
    }
  }
  return m;
}

}  // namespace

namespace {

// Sums in double whatever the storage, so fp64 and exactly-representable fp32 rows agree.
template <typename Rows>
DataFingerprint fingerprint_rows(const Communicator& comm, const Rows& local_rows, std::uint64_t row_begin,
                                 std::uint64_t total_rows) {
  double sums[3] = {0, 0, 0};
  for (Index i = 0; i < local_rows.rows(); ++i) {
    const auto row = local_rows.row(i).template cast<double>();
    const double row_sum = row.sum();
    sums[0] += row_sum;
    sums[1] += row.squaredNorm();
    // Weights that depend on the position catch permuted rows and columns.
    sums[2] += static_cast<double>((row_begin + i) % 1009 + 1) * row_sum +
               row.dot(Vector::LinSpaced(local_rows.cols(), 1.0, 2.0).transpose());
  }
  comm.allreduce_sum(sums, 3);
  return {total_rows, static_cast<std::uint64_t>(local_rows.cols()), sums[0], sums[1], sums[2]};
}

}  // namespace

DataFingerprint fingerprint_data(const Communicator& comm, const DataRef& local_rows, std::uint64_t row_begin,
                                 std::uint64_t total_rows) {
  return fingerprint_rows(comm, local_rows, row_begin, total_rows);
}

DataFingerprint fingerprint_data(const Communicator& comm, const DataRefF& local_rows,
                                 std::uint64_t row_begin, std::uint64_t total_rows) {
  return fingerprint_rows(comm, local_rows, row_begin, total_rows);
}

LocalLatents encode_local_latents(const Model& model, const Vector& params, const LocalRows& local_rows) {
  LocalLatents l;
  std::visit([&](const auto& rows) { model.encode(params, rows, model.local_begin(), l.mean, &l.variance); },
             local_rows);
  return l;
}

void write_run_file(const std::string& path, const Communicator& comm, const RunOutput& run,
                    bool with_state) {
  const Model& model = run.model;
  const std::uint64_t n = model.num_data(), begin = model.local_begin();
  Hdf5ResultWriter out(path, comm.raw());
  out.write_distributed_rows("/latent/mean", run.latents.mean, begin, n);
  out.write_attribute("/latent/mean", "latent_space", model.latent_space());
  if (model.bayesian()) out.write_distributed_rows("/latent/var", run.latents.variance, begin, n);
  if (run.local_labels) out.write_distributed_int64("/labels", *run.local_labels, begin, n);
  write_parameters(out, model, run.state.params);
  write_curve(out, run.state.curve);
  out.write_string("/config", run.metadata.config_toml);
  write_data_transform(out, run.metadata.preprocess.cols() > 0 ? run.metadata.preprocess
                                                               : identity_transform(model.data_dim()));
  if (run.metadata.output_chart) write_tangent_chart(out, *run.metadata.output_chart);
  out.write_attribute("/", "version", version());
  out.write_attribute("/", "git_commit", git_commit());
  out.write_attribute("/", "ranks", comm.size());
  out.write_attribute("/", "threads_per_rank", threads_per_rank());
  out.write_attribute("/", "seed", static_cast<std::int64_t>(model.seed()));
  out.write_attribute("/", "num_data", static_cast<std::int64_t>(n));
  out.write_attribute("/", "data_dim", static_cast<std::int64_t>(model.data_dim()));
  out.write_attribute("/", "latent_dim", static_cast<std::int64_t>(model.latent_dim()));
  out.write_attribute("/", "latent_space", model.latent_space());
  out.write_attribute("/", "model", model.kind());
  if (model.has_gp_decoder()) out.write_attribute("/", "kernel", model.kernel(run.state.params)->name());
  out.write_attribute("/", "latents", to_string(model.latents()));
  out.write_attribute("/", "steps", static_cast<std::int64_t>(run.state.step));
  out.write_attribute("/", "data_file", run.metadata.data_file);
  out.write_attribute("/", "data_path_as_given", run.metadata.data_file_as_given);
  out.write_attribute("/", "converged", static_cast<std::int64_t>(run.state.convergence.converged));
  if (run.best_latents && run.state.convergence.best_step > 0 &&
      run.state.best_params.size() == run.state.params.size())
    write_best(out, model, run.state, *run.best_latents);
  if (with_state) {
    write_state(out, comm, model, run.state);
    write_identity(out, run.metadata);
  }
  out.commit();
}

TrainingState read_checkpoint(const std::string& path, const Communicator& comm, const Model& model,
                              const RunMetadata& expected) {
  const Hdf5ResultReader in(path, comm.raw());
  require(in.exists("/state"), "file is a run file without training state, not a checkpoint",
          {path, "/state", ""});
  check_identity(in, expected);
  // The state first: a damaged dataset is the agreed input error that --resume auto skips.
  Vector stored_shared = in.read_vector("/state/shared");
  check_layout(in, comm, model);
  const Index shared = model.num_shared_parameters();
  TrainingState s;
  s.params = Vector::Zero(model.num_parameters());
  s.adam.first_moment = Vector::Zero(model.num_parameters());
  s.adam.second_moment = Vector::Zero(model.num_parameters());
  s.params.head(shared) = shared_block_of_length(in, "/state/shared", std::move(stored_shared), shared);
  s.adam.first_moment.head(shared) = read_shared_block(in, "/state/adam_m_shared", shared);
  s.adam.second_moment.head(shared) = read_shared_block(in, "/state/adam_v_shared", shared);
  if (model.local_values_per_row() > 0) {
    const std::uint64_t begin = model.local_begin(), count = model.local_rows();
    const auto local = [&](const char* dataset) {
      return read_local_block(in, dataset, begin, count, model.local_values_per_row());
    };
    model.set_local_block_rows(s.params, local("/state/local"));
    model.set_local_block_rows(s.adam.first_moment, local("/state/adam_m_local"));
    model.set_local_block_rows(s.adam.second_moment, local("/state/adam_v_local"));
  }
  // A state holding NaN or Inf (a diverged run checkpointed, or a corrupt file) would only fail
  // steps later, as a numerical error far from its cause; each rank checks its own rows.
  comm.all_or_none([&] {
    require(s.params.allFinite() && s.adam.first_moment.allFinite() && s.adam.second_moment.allFinite(),
            "checkpoint holds non-finite values (NaN or Inf) in its parameters or Adam moments",
            {path, "/state", ""});
  });
  s.step = static_cast<std::uint64_t>(in.read_attribute_int64("/state", "step"));
  s.adam.steps = in.read_attribute_int64("/state", "adam_steps");
  s.wall_seconds = in.read_attribute_double("/state", "wall_seconds");
  if (in.has_attribute("/state", "step_rate")) s.step_rate = in.read_attribute_double("/state", "step_rate");
  const Matrix curve = in.exists("/train/curve") ? in.read_matrix("/train/curve") : Matrix(0, 4);
  for (Index i = 0; i < curve.rows(); ++i)
    s.curve.push_back({static_cast<std::uint64_t>(curve(i, 0)), static_cast<std::uint64_t>(curve(i, 1)),
                       curve(i, 2), curve(i, 3)});
  read_convergence_state(in, model, s);
  s.lbfgs = read_lbfgs_memory(in, model);
  comm.all_or_none([&] {
    for (std::size_t i = 0; i < s.lbfgs.size(); ++i)
      require(s.lbfgs.x[i].allFinite() && s.lbfgs.gradient[i].allFinite(),
              "checkpoint's L-BFGS memory holds non-finite values (NaN or Inf)", {path, kLbfgs, ""});
  });
  return s;
}

}  // namespace gplvm
