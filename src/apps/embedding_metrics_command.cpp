// gplvm embedding-metrics: how well latents keep the structure of their data (distance
// correlation with binary codes, trustworthiness, continuity, Shepard goodness, k-NN accuracy;
// eval/embedding_metrics.hpp). Up to kMaxEmbeddingMetricRows rows serial (rank 0 computes over every
// pair); above, distributed over the ranks (eval/distributed_embedding_metrics.hpp).
//
// Latent space rule: the latents dataset's attribute `latent_space` (a registered latent space)
// decides; without it, the first registered curved space of which every row is a point (the
// hyperboloid: x_0 > 0, |<x, x>_L + 1| <= 1e-8 x_0^2), else Euclidean.
#include <cmath>
#include <cstdio>
#include <map>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/eval/distributed_embedding_metrics.hpp"
#include "gplvm/eval/embedding_metrics.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/run/json_summary.hpp"

namespace gplvm {
namespace {

constexpr const char* kDefaultLatentsPath = "/latent/mean";

struct Inputs {
  std::string latents_file, latents_path;
  RowMatrix latents;         // every row (serial path), or this rank's rows (distributed path)
  bool distributed = false;  // above kMaxEmbeddingMetricRows rows: rows split over the ranks
  std::uint64_t rows = 0;
  std::unique_ptr<LatentSpace> space;
  std::string space_reason;
  RowMatrix data, codes;  // empty when absent
  std::vector<std::int64_t> labels;
  std::string labels_file;  // the file the labels were read from
};

// Membership tolerance of stored latents (relative where the space's test is).
constexpr double kLatentTolerance = 1e-8;

std::unique_ptr<LatentSpace> latent_space_of(const Hdf5ResultReader& file, const std::string& path,
                                             const RowMatrix& latents, std::string& reason) {
  const Index width = latents.cols();
  if (file.has_attribute(path, "latent_space")) {
    const std::string name = file.read_attribute_string(path, "latent_space");
    std::unique_ptr<LatentSpace> space;
    try {
      space = latent_space_with_ambient_dim(name, width);
    } catch (const InputError& e) {
      throw InputError(e.reason(), {file.path(), path + "@latent_space", name});
    }
    reason = "attribute latent_space";
    const std::string note = space->coordinates_note();
    require(space->manifold().first_row_outside(latents, kLatentTolerance) < 0,
            "latents marked " + name + " are not points of that space" +
                (note.empty() ? std::string() : ": they must lie " + note),
            {file.path(), path, ""});
    return space;
  }
  for (const std::string& name : registered_latent_spaces()) {
    if (!latent_space_is(name, &LatentSpace::is_curved)) continue;  // what is left when no curved space fits
    std::unique_ptr<LatentSpace> space;
    try {
      space = latent_space_with_ambient_dim(name, width);
    } catch (const InputError&) {
      continue;  // too few columns for this space's points
    }
    if (space->manifold().first_row_outside(latents, kLatentTolerance) >= 0) continue;
    // "rows on the hyperboloid": the space's own words for its points, before any parenthesis.
    const std::string note = space->coordinates_note();
    reason = "rows " + (note.empty() ? "of " + name : note.substr(0, note.find(" (")));
    return space;
  }
  reason = "rows of no curved latent space";
  return std::make_unique<EuclideanLatentSpace>(std::max<Index>(width, 1));
}

void require_rows(const RowMatrix& m, Index rows, const std::string& file, const std::string& path) {
  require(m.rows() == rows, "has a different number of rows than the latents (" + std::to_string(rows) + ")",
          {file, path, std::to_string(m.rows())});
}

Inputs read_inputs(const CommandLine& cl, const Communicator& comm) {
  Inputs in;
  const std::string latents_file = cl.required("latents");
  const std::string latents_path = cl.value_or("latents-dataset", kDefaultLatentsPath);
  in.latents_file = latents_file;
  in.latents_path = latents_path;
  {
    const Hdf5ResultReader file(latents_file, comm.raw());
    in.latents = file.read_matrix(latents_path);
    in.rows = static_cast<std::uint64_t>(in.latents.rows());
    require(in.latents.rows() >= 3, "embedding metrics need at least 3 rows",
            {latents_file, latents_path, std::to_string(in.latents.rows())});
    require(in.latents.allFinite(), "latents hold NaN or Inf", {latents_file, latents_path, ""});
    in.space = latent_space_of(file, latents_path, in.latents, in.space_reason);
    in.distributed = in.latents.rows() > kMaxEmbeddingMetricRows;
    if (in.distributed) {
      require(dynamic_cast<const EuclideanLatentSpace*>(in.space.get()) != nullptr && !cl.has("poincare"),
              "above " + std::to_string(kMaxEmbeddingMetricRows) +
                  " rows the metrics are distributed and Euclidean; latents of " + in.space->name() +
                  " (or --poincare) are measured serially, up to that many rows",
              {latents_file, latents_path, std::to_string(in.latents.rows())});
      const RowPartition partition(in.rows, comm.size());
      in.latents = RowMatrix(in.latents.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                                                   static_cast<Index>(partition.count(comm.rank()))));
    }
    if (file.exists("/labels")) {
      in.labels = file.read_int64_vector("/labels");
      in.labels_file = latents_file;
    }
  }
  if (const auto data_file = cl.value("data")) {
    const Hdf5ResultReader file(*data_file, comm.raw());
    const RowPartition partition(in.rows, comm.size());
    const auto read_rows = [&](const std::string& path) -> RowMatrix {
      if (!in.distributed) return file.read_matrix(path);
      return file.read_distributed_rows(path, partition.begin(comm.rank()), partition.count(comm.rank()));
    };
    if (file.exists("/Y")) in.data = read_rows("/Y");
    if (file.exists("/codes")) in.codes = read_rows("/codes");
    if (file.exists("/labels")) {
      in.labels = file.read_int64_vector("/labels");
      in.labels_file = *data_file;
    }
    require(in.data.size() > 0 || in.codes.size() > 0 || !in.labels.empty(),
            "the data file has none of /Y, /codes, /labels", {*data_file, "/Y", ""});
    if (in.data.size() > 0) require_rows(in.data, in.latents.rows(), *data_file, "/Y");
    if (in.codes.size() > 0) require_rows(in.codes, in.latents.rows(), *data_file, "/codes");
    if (in.distributed && in.data.size() > 0)
      require(comm.allreduce_sum(static_cast<std::int64_t>(in.data.allFinite() ? 0 : 1)) == 0,
              "the data hold NaN or Inf", {*data_file, "/Y", ""});
  }
  require(in.labels.empty() || in.labels.size() == in.rows,
          "has a different number of labels than latent rows",
          {in.labels_file, "/labels", std::to_string(in.labels.size())});
  require(in.data.size() > 0 || in.codes.size() > 0 || !in.labels.empty(),
          "nothing to measure: give --data with /Y, /codes or /labels (or latents with /labels)",
          {"", "--data", ""});
  return in;
}

// The metrics that the inputs allow, by name (in output order).
std::map<std::string, double> compute(const Inputs& in, Index k, bool poincare) {
  std::map<std::string, double> out;
  const Matrix geodesic = in.space->manifold().distances(in.latents, in.latents);
  require(geodesic.allFinite(),
          "the latents' pairwise distances overflow the double range: rescale the latents",
          {in.latents_file, in.latents_path,
           "largest |value| " + std::to_string(in.latents.cwiseAbs().maxCoeff())});
  if (in.codes.size() > 0)
    out["distance_correlation"] =
        pearson_correlation(pair_values(geodesic), pair_values(pairwise_hamming_distances(in.codes)));
  // The neighbourhood metrics use the geodesic distance, or with --poincare the Euclidean one
  // between Poincare-ball coordinates (the convention of the published tables).
  // (the Poincare ball is a chart of the hyperboloid alone).
  const bool hyperbolic = dynamic_cast<const LorentzLatentSpace*>(in.space.get()) != nullptr;
  const Matrix latent =
      poincare && hyperbolic ? pairwise_euclidean_distances(lorentz::to_poincare_rows(in.latents)) : geodesic;
  if (in.data.size() > 0) {
    const Matrix data = pairwise_euclidean_distances(in.data);
    out["trustworthiness"] = trustworthiness(data, latent, k);
    out["continuity"] = continuity(data, latent, k);
    out["shepard_goodness"] = spearman_correlation(pair_values(data), pair_values(latent));
  }
  if (!in.labels.empty()) out["knn_accuracy"] = knn_accuracy(latent, in.labels, k);
  return out;
}

// Above kMaxEmbeddingMetricRows: the neighbourhood metrics exactly, by the graph layer, and the two
// all-pairs correlations over `pairs` keyed random pairs (eval/distributed_embedding_metrics.hpp).
std::map<std::string, double> compute_distributed(const Inputs& in, Index k, std::int64_t pairs,
                                                  const Communicator& comm) {
  std::map<std::string, double> out;
  constexpr std::uint64_t kPairSeed = 0;
  if (in.codes.size() > 0) {
    const SampledPairs p = sampled_pair_distances(in.latents, in.codes, pairs, kPairSeed, comm);
    out["distance_correlation"] = pearson_correlation(p.first, p.second.array().square().matrix());
  }
  if (in.data.size() > 0) {
    out["trustworthiness"] = distributed_trustworthiness(in.data, in.latents, k, comm);
    out["continuity"] = distributed_continuity(in.data, in.latents, k, comm);
    const SampledPairs p = sampled_pair_distances(in.data, in.latents, pairs, kPairSeed, comm);
    out["shepard_goodness"] = spearman_correlation(p.first, p.second);
  }
  if (!in.labels.empty()) out["knn_accuracy"] = distributed_knn_accuracy(in.latents, in.labels, k, comm);
  return out;
}

}  // namespace

int embedding_metrics_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl(
      "embedding-metrics",
      {{"latents", true, "HDF5 file with the latents (a run or encode output)"},
       {"latents-dataset", true, "dataset of the latents (default /latent/mean)"},
       {"data", true, "HDF5 file with /Y (data), /codes (binary codes), /labels, as generate writes"},
       {"k", true, "neighbourhood size of T(k), C(k) and the k-NN vote (default 5)"},
       {"poincare", false,
        "Lorentz latents: neighbourhood metrics by Euclidean distance in the Poincare ball"},
       {"pairs", true,
        "above 10000 rows: the keyed random pairs over which shepard_goodness and distance_correlation are "
        "computed (default 1000000); trustworthiness, continuity and k-NN accuracy stay exact"},
       {"output", true, "HDF5 file to write the metrics to (/metrics/<name>)"}},
      false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s",
                  cl.help("Distance correlation with binary codes, trustworthiness T(k), continuity C(k), "
                          "Shepard goodness and k-NN accuracy of latents: serial and over all pairs up to "
                          "N = 10000, distributed above it (the pair correlations then over sampled pairs).")
                      .c_str());
    return kExitOk;
  }
  const Index k = cl.integer_or("k", 5, 1, 100000);
  const std::int64_t pairs = cl.integer_or("pairs", 1000000, 2, std::int64_t{1} << 40);
  const std::string output = cl.value_or("output", "");
  if (!output.empty()) {
    require_output_not_input({output, "--output"},
                             {{cl.required("latents"), "--latents"}, {cl.value_or("data", ""), "--data"}});
    Hdf5ResultWriter::check_writable(output);
    clean_stale_temporaries_beside(output, comm);
  }
  const Inputs in = read_inputs(cl, comm);
  std::map<std::string, double> metrics;
  if (in.distributed)
    metrics = compute_distributed(in, k, pairs, comm);
  else
    comm.on_root([&] { metrics = compute(in, k, cl.has("poincare")); });
  if (!output.empty()) {
    // Every rank names the same datasets (the writer is collective); rank 0's values are written.
    std::vector<std::string> names;
    if (comm.is_root())
      for (const auto& [name, value] : metrics) names.push_back(name);
    std::string joined;
    for (const auto& name : names) joined += name + "\n";
    joined = comm.broadcast(joined);
    Hdf5ResultWriter out(output, comm.raw());
    for (std::size_t at = 0, end; (end = joined.find('\n', at)) != std::string::npos; at = end + 1) {
      const std::string name = joined.substr(at, end - at);
      out.write_scalar("/metrics/" + name, comm.is_root() ? metrics.at(name) : 0.0);
    }
    out.write_attribute("/metrics", "latent_space", in.space->name());
    out.write_attribute("/metrics", "k", static_cast<std::int64_t>(k));
    if (in.distributed) out.write_attribute("/metrics", "sampled_pairs", pairs);
    out.commit();
  }
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w = json_summary("embedding-metrics");
      w.key("latents").value(cl.required("latents")).key("rows").value(static_cast<std::int64_t>(in.rows));
      if (in.distributed) w.key("sampled_pairs").value(pairs);
      w.key("latent_space").value(in.space->name()).key("latent_space_from").value(in.space_reason);
      w.key("k").value(static_cast<std::int64_t>(k));
      for (const auto& [name, value] : metrics) w.key(name).value(value);
      w.end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("latents: %lld rows, %s (%s), k = %lld\n", static_cast<long long>(in.rows),
                  in.space->name().c_str(), in.space_reason.c_str(), static_cast<long long>(k));
      if (in.distributed)
        std::printf("  (distributed; shepard_goodness and distance_correlation over %lld sampled pairs)\n",
                    static_cast<long long>(pairs));
      for (const auto& [name, value] : metrics) std::printf("  %-22s %.10g\n", name.c_str(), value);
    }
  }
  return kExitOk;
}

}  // namespace gplvm
