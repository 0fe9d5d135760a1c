// gplvm export: a run file's latents, latent variances, labels and hyperparameters as one NumPy
// (.npy) or CSV file each in a directory, for tools outside HDF5 (names in docs/run-file.md).
// The files are written under temporary names and renamed once all are written.
#include <cstdio>
#include <filesystem>
#include <functional>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/array_writers.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/run/json_summary.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

// What a run holds that export writes, read on every rank (the reads are collective).
struct RunArrays {
  RowMatrix latent_mean, latent_variance;
  bool has_variance = false;
  std::vector<std::int64_t> labels;
  bool has_labels = false;
  NamedValues hyperparameters;
};

// /params/kernel/<name> (one value: kernel/<name>; several: kernel/<name>/<i>) and
// /params/noise_variance.
NamedValues read_hyperparameters(const Hdf5ResultReader& run) {
  NamedValues named;
  for (const std::string& name : run.group_members("/params/kernel")) {
    const Vector values = run.read_values("/params/kernel/" + name);
    if (values.size() == 1) {  // the run file stores a group of one value as a scalar
      named.emplace_back("kernel/" + name, values[0]);
      continue;
    }
    for (Index i = 0; i < values.size(); ++i)
      named.emplace_back("kernel/" + name + "/" + std::to_string(i), values[i]);
  }
  named.emplace_back("noise_variance", run.read_scalar("/params/noise_variance"));
  return named;
}

RunArrays read_run_arrays(const std::string& path, const Communicator& comm) {
  const Hdf5ResultReader run(path, comm.raw());
  require(run.exists("/latent/mean") && run.exists("/params/noise_variance"),
          "not a gplvm run file (no /latent/mean or /params/noise_variance)", {path, "/latent/mean", ""});
  RunArrays a;
  a.latent_mean = run.read_matrix("/latent/mean");
  a.has_variance = run.exists("/latent/var");
  if (a.has_variance) a.latent_variance = run.read_matrix("/latent/var");
  a.has_labels = run.exists("/labels");
  if (a.has_labels) a.labels = run.read_int64_vector("/labels");
  if (run.exists("/params/kernel"))
    a.hyperparameters = read_hyperparameters(run);
  else
    a.hyperparameters.emplace_back("noise_variance", run.read_scalar("/params/noise_variance"));
  return a;
}

std::string column_names(const std::string& prefix, Index count) {
  std::string header;
  for (Index i = 0; i < count; ++i) header += (i ? "," : "") + prefix + std::to_string(i);
  return header;
}

// One file to write: its name in the directory and how to write it at a given path.
struct ExportFile {
  std::string name;
  std::function<void(const std::string&)> write;
};

std::vector<ExportFile> export_files(const RunArrays& a, bool npy) {
  const std::string ext = npy ? ".npy" : ".csv";
  std::vector<ExportFile> files;
  const auto table = [&](const std::string& name, const RowMatrix& m, const std::string& prefix) {
    files.push_back({name + ext, [&m, npy, prefix](const std::string& p) {
                       npy ? write_npy(p, m) : write_csv(p, m, column_names(prefix, m.cols()));
                     }});
  };
  table("latent_mean", a.latent_mean, "mean_");
  if (a.has_variance) table("latent_variance", a.latent_variance, "variance_");
  if (a.has_labels)
    files.push_back({"labels" + ext, [&a, npy](const std::string& p) {
                       npy ? write_npy(p, a.labels) : write_csv(p, a.labels, "label");
                     }});
  files.push_back({"hyperparameters" + ext, [&a, npy](const std::string& p) {
                     npy ? write_npy(p, a.hyperparameters) : write_csv(p, a.hyperparameters);
                   }});
  return files;
}

// Every file under a temporary name first; renamed only when all are written (a failure removes
// the temporary files and leaves the directory as it was).
void write_all(const fs::path& directory, const std::vector<ExportFile>& files) {
  std::vector<fs::path> temporary;
  try {
    for (const ExportFile& f : files) {
      // The shared temporary name, so that a killed export's leftovers are recognised and removed.
      temporary.push_back(temporary_path((directory / f.name).string(), unique_temporary_suffix()));
      f.write(temporary.back().string());
    }
  } catch (...) {
    std::error_code ignored;
    for (const fs::path& t : temporary) fs::remove(t, ignored);
    throw;
  }
  for (size_t i = 0; i < files.size(); ++i) fs::rename(temporary[i], directory / files[i].name);
}

// The output directory, created if absent (its parent must exist); "dir/" names "dir".
fs::path output_directory(const std::string& output) {
  require(!output.empty(), "output directory is empty", {"", "--output", ""});
  fs::path dir = fs::path(output).lexically_normal();
  if (dir.filename().empty() && dir.has_parent_path()) dir = dir.parent_path();
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    require(fs::is_directory(dir, ec), "output exists and is not a directory", {output, "--output", output});
    return dir;
  }
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  require(fs::is_directory(parent, ec), "the output directory's parent does not exist",
          {output, "--output", parent.string()});
  return dir;
}

}  // namespace

int export_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl("export",
                 {{"run", true, "run file written by gplvm train"},
                  {"format", true, "npy or csv"},
                  {"output", true,
                   "directory for latent_mean, latent_variance (Bayesian runs), labels and hyperparameters "
                   "(.npy or .csv; created if absent)"}},
                 false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s",
                  cl.help("Write a run's latents, variances, labels and hyperparameters as NumPy or CSV "
                          "files.")
                      .c_str());
    return kExitOk;
  }
  const std::string run_path = cl.required("run"), format = cl.required("format"),
                    output = cl.required("output");
  require(format == "npy" || format == "csv", "unknown export format (npy or csv)", {"", "format", format});
  const fs::path directory = output_directory(output);
  clean_stale_temporaries_beside((directory / "export").string(), comm);
  const RunArrays arrays = read_run_arrays(run_path, comm);
  const std::vector<ExportFile> files = export_files(arrays, format == "npy");
  if (!comm.is_root()) return kExitOk;
  std::error_code ec;
  const bool created = fs::create_directory(directory, ec);
  if (ec) throw Error("cannot create the output directory: " + ec.message(), {output, "--output", output});
  try {
    write_all(directory, files);
  } catch (...) {
    if (created) fs::remove(directory, ec);  // empty again: write_all removed its files
    throw;
  }
  if (cl.has("json")) {
    JsonWriter w = json_summary("export");
    w.key("output").value(output).key("format").value(format);
    w.key("files").begin_array();
    for (const ExportFile& f : files) w.value(f.name);
    w.end_array().end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("wrote %zu %s files to %s\n", files.size(), format.c_str(), output.c_str());
  }
  return kExitOk;
}

}  // namespace gplvm
