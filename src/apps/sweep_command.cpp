// gplvm sweep: one model per point of a grid of config values (apps/sweep_grid.hpp), each trained
// by gplvm train on its group of ranks, and the symmetry-breaking diagnostic of each
// (eval/symmetry_breaking.hpp): DIR/model-NNNNN.h5 per model, DIR/symmetry.csv with one row per
// model, DIR/symmetry_objects.csv with one row per model and object, and the rate of broken
// symmetry per cell.
//
// MPI_COMM_WORLD is split into groups of --ranks-per-model ranks; model m is trained by group
// m mod G, one model after another. The model index alone names its file and its row, and every
// model of a sweep is trained on the same number of ranks, so the tables do not depend on the
// number of groups.
//
// Failures: a model whose training fails (an error, a divergence) is recorded in the table's error
// column and the sweep goes on; only an error that one rank of a multi-rank group met alone (which
// could leave the group's other ranks waiting) ends the job, as it would end gplvm train.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/sweep_grid.hpp"
#include "gplvm/apps/symmetry_options.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/eval/symmetry_breaking.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/train_config.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

CommandLine sweep_command_line() {
  std::vector<OptionSpec> specs = {
      {"config", true, "base TOML configuration of gplvm train, shared by every model"},
      {"grid", true, "TOML file of axes: config keys with lists of values (one model per point)"},
      {"output", true, "directory for model-NNNNN.h5, symmetry.csv and symmetry_objects.csv"},
      {"ranks-per-model", true, "ranks that train one model together (default 1; must divide the ranks)"},
      {"force", false, "replace existing model files and tables in --output"}};
  for (OptionSpec& spec : symmetry_option_specs()) specs.push_back(std::move(spec));
  return CommandLine("sweep", std::move(specs), true);
}

// What one model gave: the diagnostic, or the error that stopped it.
struct ModelOutcome {
  std::size_t index = 0;
  bool failed = false;
  std::string error;
  double median_length = NAN, max_ratio = NAN, final_objective = NAN;
  bool broken = false;
  std::vector<GroupSymmetry> objects;
};

std::string model_file(const std::string& dir, std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "model-%05zu.h5", index);
  return (fs::path(dir) / name).string();
}

// gplvm train's stdout (its one summary line) goes to stderr while a sweep trains: stdout carries the
// sweep's own summary, which --json makes one JSON object.
class StdoutToStderr {
 public:
  StdoutToStderr() {
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    if (saved_ >= 0) dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~StdoutToStderr() {
    std::fflush(stdout);
    if (saved_ < 0) return;
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
  }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  int saved_ = -1;
};

struct SweepPlan {
  std::string base_config, dir;
  std::vector<std::string> base_overrides;  // the sweep's own --section.key=value
  SweepGrid grid;
  SymmetryOptions symmetry;
  bool force = false;

  std::vector<std::string> train_arguments(std::size_t index) const {
    std::vector<std::string> args;
    if (!base_config.empty()) args.push_back("--config=" + base_config);
    for (const std::string& o : base_overrides) args.push_back("--" + o);
    for (const std::string& o : grid.overrides(index)) args.push_back("--" + o);
    const std::string path = model_file(dir, index);
    args.push_back("--output.path=" + path);
    args.push_back("--output.checkpoint_dir=" + path + ".checkpoints");
    if (force) args.push_back("--force");
    return args;
  }
};

// Every point's configuration resolves (bad keys and values fail here, exit 2, before any training),
// and no model file is replaced without --force.
void validate_plan(const SweepPlan& plan, const ConfigSchema& schema) {
  for (std::size_t m = 0; m < plan.grid.points(); ++m) {
    std::vector<std::string> overrides = plan.base_overrides;
    for (const std::string& o : plan.grid.overrides(m)) overrides.push_back(o);
    try {
      resolve_train_config(schema, plan.base_config, overrides);
    } catch (const InputError& e) {
      throw InputError(e.reason() + " (grid point " + std::to_string(m) + ": " + plan.grid.cell(m) + ")",
                       e.context());
    }
    require(plan.force || !fs::exists(model_file(plan.dir, m)),
            "the model file exists already; pass --force to replace it (or choose another --output)",
            {model_file(plan.dir, m), "--output", ""});
  }
}

ModelOutcome measure_model(const SweepPlan& plan, std::size_t index, const Communicator& group) {
  ModelOutcome out;
  out.index = index;
  const std::string path = model_file(plan.dir, index);
  RowMatrix latents;
  RowLabels labels;
  {
    const Hdf5ResultReader run(path, group.raw());
    latents = run.read_matrix("/latent/mean");
    if (plan.symmetry.objects_from_labels && run.exists("/labels"))
      labels = {run.read_int64_vector("/labels"), path};
    if (run.exists("/train/curve")) {
      const Matrix curve = run.read_matrix("/train/curve");
      if (curve.rows() > 0 && curve.cols() > 2) out.final_objective = curve(curve.rows() - 1, 2);
    }
  }
  if (labels.file.empty()) labels.file = path;
  const GeneratingGraph graph = generating_graph(plan.symmetry, latents.rows(), labels, group);
  const SymmetryBreaking s =
      measure_symmetry_breaking(latents, graph, plan.symmetry.threshold, {path, "/latent/mean"});
  out.median_length = s.median_length;
  out.max_ratio = s.max_ratio;
  out.broken = s.broken;
  out.objects = s.groups;
  return out;
}

// Trains and measures one model on `group`; an error every rank of the group shares is recorded.
ModelOutcome run_model(const SweepPlan& plan, std::size_t index, const Communicator& group) {
  ModelOutcome failed;
  failed.index = index;
  failed.failed = true;
  try {
    int status = kExitOk;
    {
      const StdoutToStderr redirect;
      status = train_command(plan.train_arguments(index), group);
    }
    if (status != kExitOk) {
      failed.error = status == kExitStopped
                         ? "stopped by a signal (exit 3)"
                         : "training failed (exit " + std::to_string(status) + ", see the log)";
      return failed;
    }
    return measure_model(plan, index, group);
  } catch (const Error& e) {
    if (!(dynamic_cast<const InputError*>(&e) || e.agreed() || group.size() == 1)) throw;
    failed.error = e.what();
    const ErrorContext& c = e.context();
    if (!c.file.empty() || !c.key.empty())
      failed.error += " [" + c.file + (c.key.empty() ? "" : " " + c.key) + "]";
  } catch (const std::exception& e) {
    if (group.size() > 1) throw;
    failed.error = e.what();
  }
  if (group.is_root())
    std::fprintf(stderr, "gplvm sweep: model %zu failed: %s\n", index, failed.error.c_str());
  return failed;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return quoted + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// One model's rows of both tables, as text (sent to rank 0 as is). Lines of the objects table are
// prefixed with '@' to keep them apart.
std::string outcome_rows(const SweepPlan& plan, const ModelOutcome& o) {
  std::string row = std::to_string(o.index);
  const std::vector<std::size_t> at = plan.grid.coordinates(o.index);
  for (std::size_t k = 0; k < at.size(); ++k) row += "," + csv_field(plan.grid.axes[k].values[at[k]]);
  std::int64_t broken_objects = 0;
  for (const GroupSymmetry& g : o.objects) broken_objects += g.broken ? 1 : 0;
  row += "," + number(o.median_length) + "," + number(o.max_ratio) + "," +
         (o.failed   ? ""
          : o.broken ? "1"
                     : "0");
  row += "," + (o.failed ? std::string() : std::to_string(o.objects.size()));
  row += "," + (o.failed ? std::string() : std::to_string(broken_objects));
  row += "," + number(o.final_objective) + "," + csv_field(o.error) + "\n";
  for (const GroupSymmetry& g : o.objects)
    row += "@" + std::to_string(o.index) + "," + std::to_string(g.name) + "," + number(g.max_ratio) + "," +
           (g.broken ? "1" : "0") + "\n";
  return row;
}

// Rank 0 receives every rank's text; the others send theirs. Collective over `world`.
std::string gather_text(const std::string& local, const Communicator& world) {
  const std::vector<std::int64_t> sizes = world.allgather(static_cast<std::int64_t>(local.size()));
  if (!world.is_root()) {
    if (!local.empty()) world.send_bytes(local.data(), local.size(), 0);
    return {};
  }
  std::string all = local;
  for (int r = 1; r < world.size(); ++r) {
    std::string part(static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]), '\0');
    if (!part.empty()) world.receive_bytes(part.data(), part.size(), r);
    all += part;
  }
  return all;
}

// The gathered lines sorted by model index (the table's order whatever rank trained a model).
struct Tables {
  std::map<std::size_t, std::string> models;                // index -> row
  std::map<std::size_t, std::vector<std::string>> objects;  // index -> rows
};

Tables split_tables(const std::string& text) {
  Tables t;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] == '@') {
      t.objects[std::stoull(line.substr(1))].push_back(line.substr(1));
    } else {
      t.models[std::stoull(line)] = line;
    }
  }
  return t;
}

// Written under a temporary name and renamed into place: a reader sees the whole table or none.
void write_text_file(const std::string& path, const std::string& text) {
  const std::string temporary = temporary_path(path, unique_temporary_suffix());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw Error("cannot write the table (disk full?)", {path, "--output", ""});
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw Error("cannot move the table into place", {path, "--output", ""});
  }
}

struct CellSummary {
  std::size_t models = 0, failed = 0, outcomes = 0, broken = 0;
  double sum = 0, sum_squares = 0;  // of each outcome's (object's) B_max
  double rate() const { return outcomes ? static_cast<double>(broken) / static_cast<double>(outcomes) : NAN; }
  double mean() const { return outcomes ? sum / static_cast<double>(outcomes) : NAN; }
  double sd() const {
    if (outcomes < 2) return NAN;
    const double n = static_cast<double>(outcomes);
    return std::sqrt(std::max(0.0, (sum_squares - sum * sum / n) / (n - 1)));
  }
};

// Per cell, in order of first appearance in the grid.
std::vector<std::pair<std::string, CellSummary>> summarise(const SweepPlan& plan, const Tables& t) {
  std::vector<std::pair<std::string, CellSummary>> cells;
  std::map<std::string, std::size_t> at;
  for (const auto& [index, row] : t.models) {
    const std::string cell = plan.grid.cell(index);
    if (!at.count(cell)) {
      at[cell] = cells.size();
      cells.push_back({cell, {}});
    }
    CellSummary& c = cells[at[cell]].second;
    ++c.models;
    const auto objects = t.objects.find(index);
    if (objects == t.objects.end()) {
      ++c.failed;
      continue;
    }
    for (const std::string& line : objects->second) {
      // index,object,b_max,broken
      const std::size_t third = line.find(',', line.find(',') + 1);
      const double b_max = std::stod(line.substr(third + 1));
      ++c.outcomes;
      c.broken += line.back() == '1' ? 1 : 0;
      c.sum += b_max;
      c.sum_squares += b_max * b_max;
    }
  }
  return cells;
}

void write_tables(const SweepPlan& plan, const Tables& t) {
  std::string models = "model";
  for (const SweepAxis& a : plan.grid.axes) models += "," + a.key;
  models += ",b_median,b_max,broken,objects,broken_objects,final_objective,error\n";
  for (const auto& [index, row] : t.models) models += row + "\n";
  std::string objects = "model,object,b_max,broken\n";
  for (const auto& [index, rows] : t.objects)
    for (const std::string& row : rows) objects += row + "\n";
  write_text_file((fs::path(plan.dir) / "symmetry_objects.csv").string(), objects);
  write_text_file((fs::path(plan.dir) / "symmetry.csv").string(), models);
}

void print_summary(bool json, const SweepPlan& plan,
                   const std::vector<std::pair<std::string, CellSummary>>& cells, int groups,
                   int ranks_per_model) {
  std::size_t failed = 0;
  for (const auto& [name, c] : cells) failed += c.failed;
  const std::string table = (fs::path(plan.dir) / "symmetry.csv").string();
  if (json) {
    JsonWriter w = json_summary("sweep");
    w.key("output").value(plan.dir).key("table").value(table);
    w.key("models")
        .value(static_cast<std::int64_t>(plan.grid.points()))
        .key("failed")
        .value(static_cast<std::int64_t>(failed));
    w.key("groups").value(groups).key("ranks_per_model").value(ranks_per_model);
    w.key("graph").value(plan.symmetry.describe()).key("threshold").value(plan.symmetry.threshold);
    w.key("cells").begin_array();
    for (const auto& [name, c] : cells) {
      w.begin_object().key("cell").value(name).key("models").value(static_cast<std::int64_t>(c.models));
      w.key("failed")
          .value(static_cast<std::int64_t>(c.failed))
          .key("outcomes")
          .value(static_cast<std::int64_t>(c.outcomes));
      w.key("broken").value(static_cast<std::int64_t>(c.broken)).key("rate").value(c.rate());
      w.key("mean_b_max").value(c.mean()).key("sd_b_max").value(c.sd()).end_object();
    }
    w.end_array().end_object();
    std::printf("%s\n", w.str().c_str());
    return;
  }
  std::printf("wrote %s: %zu models (%zu failed) on %d group%s of %d rank%s; graph: %s, B_t = %g\n",
              table.c_str(), plan.grid.points(), failed, groups, groups == 1 ? "" : "s", ranks_per_model,
              ranks_per_model == 1 ? "" : "s", plan.symmetry.describe().c_str(), plan.symmetry.threshold);
  std::printf("  %-52s %7s %9s %9s %10s %10s\n", "cell", "models", "outcomes", "broken %", "mean B_max",
              "sd B_max");
  for (const auto& [name, c] : cells)
    std::printf("  %-52s %7zu %9zu %9.2f %10.4g %10.4g\n", name.c_str(), c.models, c.outcomes,
                100.0 * c.rate(), c.mean(), c.sd());
}

}  // namespace

int sweep_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = sweep_command_line();
  cl.parse(args);
  const ConfigSchema schema = train_config_schema();
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Train one model per point of a grid of config values (--grid), on groups of "
                                "--ranks-per-model ranks, and measure each one's symmetry breaking "
                                "(gplvm symmetry); the rate of broken symmetry per cell.")
                            .c_str());
    return kExitOk;
  }
  SweepPlan plan;
  plan.base_config = cl.value_or("config", "");
  plan.dir = cl.required("output");
  plan.base_overrides = cl.overrides();
  plan.force = cl.has("force");
  plan.symmetry = symmetry_options(cl);
  const std::string grid_file = cl.required("grid");
  const int ranks_per_model = static_cast<int>(cl.integer_or("ranks-per-model", 1, 1, 1 << 20));
  require(comm.size() % ranks_per_model == 0,
          "--ranks-per-model must divide the number of ranks (" + std::to_string(comm.size()) + ")",
          {"", "--ranks-per-model", std::to_string(ranks_per_model)});
  plan.grid = read_sweep_grid(grid_file, schema);
  const std::string table = (fs::path(plan.dir) / "symmetry.csv").string();
  require(!fs::exists(plan.dir) || fs::is_directory(plan.dir),
          "--output names a file: it must be a directory", {plan.dir, "--output", ""});
  require_output_not_input({table, "--output"},
                           {{plan.base_config, "--config"},
                            {grid_file, "--grid"},
                            {plan.symmetry.from_edge_list() ? plan.symmetry.graph : "", "--graph"}});
  require(plan.force || !fs::exists(table), "the sweep's table exists already; pass --force to replace it",
          {table, "--output", ""});
  validate_plan(plan, schema);
  comm.on_root([&] { fs::create_directories(plan.dir); });
  Hdf5ResultWriter::check_writable(table);

  const int groups = comm.size() / ranks_per_model;
  const int group_id = comm.rank() / ranks_per_model;
  const Communicator group = comm.split(group_id, comm.rank());
  std::string rows;
  for (std::size_t m = static_cast<std::size_t>(group_id); m < plan.grid.points();
       m += static_cast<std::size_t>(groups)) {
    const ModelOutcome outcome = run_model(plan, m, group);
    if (group.is_root()) rows += outcome_rows(plan, outcome);
  }
  const std::string all = gather_text(rows, comm);
  std::vector<std::pair<std::string, CellSummary>> cells;
  comm.on_root([&] {
    const Tables tables = split_tables(all);
    cells = summarise(plan, tables);
    write_tables(plan, tables);
  });
  if (comm.is_root()) print_summary(cl.has("json"), plan, cells, groups, ranks_per_model);
  return kExitOk;
}

}  // namespace gplvm
