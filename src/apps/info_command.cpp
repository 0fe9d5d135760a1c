// gplvm info: what a file written by gplvm holds: a run file or checkpoint (train), latents
// (encode), an evaluation (evaluate), or a data set (generate, import, or any HDF5 with a 2-D /Y).
#include <algorithm>
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/model/latent_space.hpp"

namespace gplvm {
namespace {

// One description, as JSON (w) and as a line of text, built side by side.
struct Description {
  JsonWriter json{0};
  std::string text;
};

std::string attribute_or(const Hdf5ResultReader& file, const std::string& name, const std::string& fallback) {
  return file.has_attribute("/", name) ? file.read_attribute_string("/", name) : fallback;
}

// The build that wrote the file, where it says (files from older builds do not).
void describe_origin(const Hdf5ResultReader& file, Description& d) {
  for (const char* name : {"version", "git_commit"})
    if (file.has_attribute("/", name)) d.json.key(name).value(file.read_attribute_string("/", name));
}

// The kernel's hyperparameters under the names it gives them (none for models without a GP
// decoder, such as the VAE), as JSON members and as ", kernel eq_ard (variance = 1, ...)".
std::string describe_kernel(const Hdf5ResultReader& file, Description& d) {
  if (!file.has_attribute("/", "kernel")) return "";
  std::string text;
  d.json.key("kernel").value(file.read_attribute_string("/", "kernel"));
  d.json.key("kernel_hyperparameters").begin_object();
  for (const std::string& name : file.group_members("/params/kernel")) {
    const Vector values = file.read_values("/params/kernel/" + name);
    if (values.size() == 1) {
      d.json.key(name).value(values[0]);
    } else {
      d.json.key(name).begin_array();
      for (Index i = 0; i < values.size(); ++i) d.json.value(values[i]);
      d.json.end_array();
    }
    char entry[96];
    std::snprintf(entry, sizeof entry, "%s%s = %.4g%s", text.empty() ? "" : ", ", name.c_str(), values[0],
                  values.size() > 1 ? "..." : "");
    text += entry;
  }
  d.json.end_object();
  return ", kernel " + file.read_attribute_string("/", "kernel") + " (" + text + ")";
}

// The latent space /latent/mean's rows are points of (R^Q when the file does not say).
std::string latent_space_of(const Hdf5ResultReader& file) {
  if (file.exists("/latent/mean") && file.has_attribute("/latent/mean", "latent_space"))
    return file.read_attribute_string("/latent/mean", "latent_space");
  return kEuclideanSpace;
}

// Whether latents of that space are plain coordinates (a flat registered space), which the text
// line does not name.
bool is_flat_latent_space(const std::string& name) {
  const std::vector<std::string> known = registered_latent_spaces();
  return std::find(known.begin(), known.end(), name) != known.end() &&
         !latent_space_is(name, &LatentSpace::is_curved);
}

// A manifold run's chart (/output_space): the output space, the constant basepoint (the training
// data's Fréchet mean) and the number of tangent coordinates. Returns the text line ("" if none).
std::string describe_output_space(const Hdf5ResultReader& file, Description& d) {
  if (!file.exists("/output_space/basepoint")) {
    d.json.key("output_space").value(kEuclideanSpace);
    return "";
  }
  const std::string name = file.read_attribute_string("/output_space", "name");
  const Vector mu = file.read_vector("/output_space/basepoint");
  const Matrix basis = file.read_matrix("/output_space/tangent_basis");
  // A linear basepoint's map A (/params/basepoint_map, D x Q): m(x) = Exp_mu0(B0 A x).
  const bool linear = file.exists("/params/basepoint_map");
  const Matrix map = linear ? file.read_matrix("/params/basepoint_map") : Matrix();
  d.json.key("output_space").value(name).key("basepoint_kind").value(linear ? "linear" : "constant");
  if (linear) {
    d.json.key("basepoint_map").begin_array();
    for (Index i = 0; i < map.rows(); ++i) {
      d.json.begin_array();
      for (Index j = 0; j < map.cols(); ++j) d.json.value(map(i, j));
      d.json.end_array();
    }
    d.json.end_array();
  }
  d.json.key("tangent_dim").value(static_cast<std::int64_t>(basis.cols()));
  d.json.key("basepoint").begin_array();
  for (Index i = 0; i < mu.size(); ++i) d.json.value(mu[i]);
  d.json.end_array();
  constexpr Index kShown = 6;  // SPD(10) has 100 numbers: the text shows the first few
  std::string text =
      "output space " + name +
      (linear ? ", linear basepoint m(x) = Exp_mu0(B0 A x), |A| = " + std::to_string(map.norm()) +
                    ", Frechet mean mu0 = ["
              : ", constant basepoint (Frechet mean) mu = [");
  char entry[32];
  for (Index i = 0; i < std::min(mu.size(), kShown); ++i) {
    std::snprintf(entry, sizeof entry, "%s%.6g", i == 0 ? "" : ", ", mu[i]);
    text += entry;
  }
  text += mu.size() > kShown ? ", ...]" : "]";
  return text + ", " + std::to_string(basis.cols()) + " tangent coordinates\n";
}

// A ProbDR run's method, fit and moment (/probdr/method) as JSON members and a second line.
std::string describe_probdr(const Hdf5ResultReader& file, Description& d) {
  if (!file.exists("/probdr/method")) return "";
  const std::string method = file.read_string("/probdr/method");
  const std::string fit = file.read_attribute_string("/probdr/method", "fit");
  const std::string description = file.has_attribute("/probdr/method", "description")
                                      ? file.read_attribute_string("/probdr/method", "description")
                                      : "";
  d.json.key("probdr_method").value(method).key("probdr_fit").value(fit);
  d.json.key("probdr_moment").value(description);
  std::string text =
      "  ProbDR " + method + ", " + fit + " fit" + (description.empty() ? "" : ": " + description) + "\n";
  // A neighbour embedding's repulsion (exact or its approximation) and final KL.
  if (file.has_attribute("/probdr/method", "approximation")) {
    const std::string approximation = file.read_attribute_string("/probdr/method", "approximation");
    d.json.key("probdr_approximation").value(approximation);
    text += "  gradient: " + approximation + "\n";
  }
  if (file.exists("/probdr/kl")) {
    const double kl = file.read_scalar("/probdr/kl");
    d.json.key("probdr_kl").value(kl);
    char line[96];
    std::snprintf(line, sizeof line, "  KL(q(A' | Y) || p(A' | X)) = %.8g\n", kl);
    text += line;
  }
  return text;
}

void describe_run(const Hdf5ResultReader& file, Description& d) {
  const auto n = file.read_attribute_int64("/", "num_data");
  const auto steps = file.read_attribute_int64("/", "steps");
  const std::string model = file.read_attribute_string("/", "model");
  const std::string latents = file.read_attribute_string("/", "latents");
  // Every model has a Gaussian noise but the neighbour embeddings (probdr sne, tsne, umap).
  const bool has_noise = file.exists("/params/noise_variance");
  const double noise = has_noise ? file.read_scalar("/params/noise_variance") : 0.0;
  const bool checkpoint = file.exists("/state");
  d.json.key("type").value(checkpoint ? "checkpoint" : "run").key("model").value(model);
  const std::string space = latent_space_of(file);
  d.json.key("latents").value(latents).key("latent_space").value(space);
  d.json.key("num_data").value(n).key("steps").value(steps);
  if (has_noise) d.json.key("noise_variance").value(noise);
  const std::string data_file = attribute_or(file, "data_file", "");
  if (!data_file.empty()) d.json.key("data_file").value(data_file);
  describe_origin(file, d);
  const std::string kernel_text = describe_kernel(file, d);
  const std::string chart_text = describe_output_space(file, d);
  const std::string probdr_text = describe_probdr(file, d);
  char line[1024];
  char noise_text[48] = "";
  if (has_noise) std::snprintf(noise_text, sizeof noise_text, ", noise = %.4g", noise);
  std::snprintf(line, sizeof line, "%s: %s %s (%s latents), N = %lld, %lld steps%s%s%s\n",
                file.path().c_str(), model.c_str(), checkpoint ? "checkpoint" : "run",
                (is_flat_latent_space(space) ? latents : latents + " " + space).c_str(),
                static_cast<long long>(n), static_cast<long long>(steps), kernel_text.c_str(), noise_text,
                data_file.empty() ? "" : (", data " + data_file).c_str());
  d.text = line + chart_text + probdr_text;
}

// The metrics under /metrics as JSON members and ", name = value" text.
std::string describe_metric_values(const Hdf5ResultReader& file, Description& d) {
  std::string text;
  d.json.key("metrics").begin_object();
  for (const std::string& name : file.group_members("/metrics")) {
    const double value = file.read_scalar("/metrics/" + name);
    d.json.key(name).value(value);
    char entry[96];
    std::snprintf(entry, sizeof entry, ", %s = %.6g", name.c_str(), value);
    text += entry;
  }
  d.json.end_object();
  return text;
}

// Latents written by encode, and evaluate's test latents, predictions and metrics.
void describe_latents(const Hdf5ResultReader& file, Description& d) {
  const DatasetInfo latents = inspect_dataset(file.path(), "/latent/mean", MPI_COMM_SELF);
  const bool evaluation = file.exists("/metrics");
  const bool bayesian = file.exists("/latent/var");
  const std::string space = latent_space_of(file);
  // Stored as the space's ambient coordinates (the hyperboloid: Q + 1 of Q-dimensional points).
  const std::unique_ptr<LatentSpace> geometry =
      latent_space_with_ambient_dim(space, static_cast<Index>(std::max<std::uint64_t>(latents.cols, 1)));
  const auto dim = static_cast<std::uint64_t>(geometry->intrinsic_dim());
  d.json.key("type").value(evaluation ? "evaluation" : "latents").key("rows").value(latents.rows);
  d.json.key("latent_dim")
      .value(dim)
      .key("latent_space")
      .value(space)
      .key("latent_variances")
      .value(bayesian);
  d.json.key("labels").value(file.exists("/labels"));
  const std::string run = attribute_or(file, "run", "");
  if (!run.empty()) d.json.key("run").value(run);
  describe_origin(file, d);
  d.text = file.path() + ": " + std::to_string(latents.rows) + " latents of dimension " +
           std::to_string(dim) +
           (geometry->coordinates_note().empty() ? "" : " " + geometry->coordinates_note()) +
           (bayesian ? " with variances" : "") + (run.empty() ? "" : " from run " + run);
  if (evaluation) d.text += describe_metric_values(file, d);
  d.text += "\n";
}

// What gplvm predict writes: predictive means and variances at given latents.
void describe_predictions(const Hdf5ResultReader& file, Description& d) {
  const DatasetInfo mean = inspect_dataset(file.path(), "/predictive/mean", MPI_COMM_SELF);
  const bool samples = file.exists("/predictive/samples");
  const std::string model = file.has_attribute("/predictive", "model")
                                ? file.read_attribute_string("/predictive", "model")
                                : std::string("unknown");
  const std::string run = attribute_or(file, "run", "");
  d.json.key("type").value("predictions").key("rows").value(mean.rows).key("data_dim").value(mean.cols);
  d.json.key("model").value(model).key("samples").value(samples);
  if (!run.empty()) d.json.key("run").value(run);
  d.text = file.path() + ": predictions at " + std::to_string(mean.rows) + " latents, " +
           std::to_string(mean.cols) + " values each (" + model + (samples ? ", with samples" : "") + ")" +
           (run.empty() ? "" : " from run " + run) + "\n";
}

// What gplvm embedding-metrics writes: /metrics/<name> with the geometry and k as attributes.
void describe_embedding_metrics(const Hdf5ResultReader& file, Description& d) {
  d.json.key("type").value("embedding_metrics");
  if (file.has_attribute("/metrics", "latent_space"))
    d.json.key("latent_space").value(file.read_attribute_string("/metrics", "latent_space"));
  if (file.has_attribute("/metrics", "k")) d.json.key("k").value(file.read_attribute_int64("/metrics", "k"));
  d.text = file.path() + ": embedding metrics" + describe_metric_values(file, d) + "\n";
}

// What gplvm geometry, geodesic and brownian write (the expected metric on points, geodesics between
// pairs, Brownian paths), and gplvm symmetry's diagnostic.
void describe_decoder_geometry(const Hdf5ResultReader& file, Description& d) {
  struct Kind {
    const char* group;
    const char* dataset;
    const char* type;
    const char* what;
  };
  static const Kind kinds[] = {
      {"/geometry", "/geometry/points", "geometry", "the expected metric at"},
      {"/geodesics", "/geodesics/from", "geodesics", "geodesics between"},
      {"/brownian", "/brownian/paths", "brownian", "Brownian paths:"},
      {"/symmetry", "/symmetry/edges/ratio", "symmetry", "symmetry diagnostic over"}};
  for (const Kind& k : kinds) {
    if (!file.exists(k.group)) continue;
    const DatasetInfo info = inspect_dataset(file.path(), k.dataset, MPI_COMM_SELF);
    const std::string run = attribute_or(file, "run", "");
    const std::string conditioning = file.has_attribute(k.group, "conditioning")
                                         ? file.read_attribute_string(k.group, "conditioning")
                                         : "";
    d.json.key("type").value(k.type).key("rows").value(info.rows);
    if (!conditioning.empty()) d.json.key("conditioning").value(conditioning);
    if (!run.empty()) d.json.key("run").value(run);
    const std::string unit = std::string(k.type) == "geometry"    ? " points"
                             : std::string(k.type) == "geodesics" ? " pairs"
                             : std::string(k.type) == "brownian"  ? " paths"
                                                                  : " edges";
    d.text = file.path() + ": " + k.what + " " + std::to_string(info.rows) + unit +
             (conditioning.empty() ? "" : " (conditioned on " + conditioning + ")") +
             (run.empty() ? "" : " from run " + run) + "\n";
    return;
  }
}

bool is_decoder_geometry(const Hdf5ResultReader& file) {
  return file.exists("/geometry") || file.exists("/geodesics") || file.exists("/brownian") ||
         file.exists("/symmetry");
}

void describe_data(const Hdf5ResultReader& file, const std::string& dataset, Description& d) {
  const DatasetInfo info = inspect_dataset(file.path(), dataset, MPI_COMM_SELF);
  d.json.key("type").value("data").key("dataset").value(dataset).key("rows").value(info.rows);
  d.json.key("cols").value(info.cols).key("labels").value(info.has_labels);
  const std::string generator = attribute_or(file, "generator", "");
  if (!generator.empty()) d.json.key("generator").value(generator);
  d.json.key("true_latents").value(file.exists("/latent_true"));
  describe_origin(file, d);
  d.text = file.path() + ": " + dataset + " " + std::to_string(info.rows) + " x " +
           std::to_string(info.cols) + (info.has_labels ? ", with /labels" : ", no labels") +
           (generator.empty() ? "" : " (" + generator + ")") + "\n";
}

}  // namespace

int info_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl("info", {{"dataset", true, "data set path for data files (default /Y)"}}, false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s",
                  cl.help("usage: gplvm info FILE.h5 — describe a file gplvm wrote: a run file or "
                          "checkpoint, latents (encode), an evaluation, predictions, embedding metrics, "
                          "the decoder's geometry (geometry, geodesic, brownian), a symmetry diagnostic, "
                          "or a data set.")
                      .c_str());
    return kExitOk;
  }
  require(cl.positional().size() == 1, "gplvm info takes exactly one file",
          {"", "file", std::to_string(cl.positional().size()) + " given"});
  const std::string path = cl.positional().front();
  // Rank 0 alone reads (the file is small metadata): the others would only repeat it.
  Description d;
  comm.on_root([&] {
    const Hdf5ResultReader file(path, MPI_COMM_SELF);
    d.json.begin_object().key("file").value(path);
    const bool as_data = cl.value("dataset").has_value();
    if (file.exists("/params/shared"))
      describe_run(file, d);
    else if (!as_data && is_decoder_geometry(file))
      describe_decoder_geometry(file, d);
    else if (!as_data && file.exists("/predictive/mean") && !file.exists("/metrics"))
      describe_predictions(file, d);
    else if (!as_data && file.exists("/latent/mean"))
      describe_latents(file, d);  // encode's latents, or evaluate's with its metrics
    else if (!as_data && file.exists("/metrics") && !file.exists("/Y"))
      describe_embedding_metrics(file, d);
    else
      describe_data(file, cl.value_or("dataset", "/Y"), d);
    d.json.end_object();
  });
  if (comm.is_root()) std::printf("%s", cl.has("json") ? (d.json.str() + "\n").c_str() : d.text.c_str());
  return kExitOk;
}

}  // namespace gplvm
