// gplvm export: a run file's arrays (latents, labels, hyperparameters, inducing points and q(u),
// preprocessing, output-space basepoint: apps/exported_arrays.hpp) as one NumPy (.npy) or CSV
// file each in a directory, for tools outside HDF5 (names in docs/run-file.md). The files are
// written under temporary names and renamed once all are written.
#include <cstdio>
#include <filesystem>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/exported_arrays.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/created_directories.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/run/json_summary.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

std::string file_name(const ExportedArray& a, bool npy) {
  return a.name + (npy ? ".npy" : ".csv");
}

// Every file under a temporary name first; renamed only when all are written (a failure removes
// the temporary files and leaves the directory as it was).
void write_all(const fs::path& directory, const std::vector<ExportedArray>& arrays, bool npy) {
  std::vector<fs::path> temporary;
  try {
    for (const ExportedArray& a : arrays) {
      // The shared temporary name, so that a killed export's leftovers are recognised and removed.
      temporary.push_back(
          temporary_path((directory / file_name(a, npy)).string(), unique_temporary_suffix()));
      write_exported_array(a, temporary.back().string(), npy);
    }
  } catch (...) {
    std::error_code ignored;
    for (const fs::path& t : temporary) fs::remove(t, ignored);
    throw;
  }
  for (size_t i = 0; i < arrays.size(); ++i) fs::rename(temporary[i], directory / file_name(arrays[i], npy));
}

// The nearest of `p` and the folders above it that exists ("." when none of a relative path does).
fs::path nearest_existing(fs::path p) {
  std::error_code ec;
  for (; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec)) return p;
    if (p == p.parent_path()) break;
  }
  return ".";
}

// The output directory, "dir/" naming "dir". When absent it is created with the missing folders
// above it (as mkdir -p), so the nearest one of them that exists must be a folder.
fs::path output_directory(const std::string& output) {
  require(!output.empty(), "output directory is empty", {"", "--output", ""});
  fs::path dir = fs::path(output).lexically_normal();
  if (!dir.has_filename() && dir.has_parent_path()) dir = dir.parent_path();
  const fs::path existing = nearest_existing(dir);
  std::error_code ec;
  require(fs::is_directory(existing, ec),
          existing == dir ? "output exists and is not a directory"
                          : "the output's path runs through a file, where a folder would be created",
          {output, "--output", existing.string()});
  return dir;
}

}  // namespace

int export_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl("export",
                 {{"run", true, "run file written by gplvm train"},
                  {"format", true, "npy or csv"},
                  {"output", true,
                   "directory for one .npy or .csv file per array of the run (docs/run-file.md; created, "
                   "with missing folders above it, if absent)"}},
                 false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s",
                  cl.help("Write a run's latents, variances, labels, hyperparameters, inducing points and "
                          "q(u), preprocessing and output-space basepoint as NumPy or CSV files.")
                      .c_str());
    return kExitOk;
  }
  const std::string run_path = cl.required("run"), format = cl.required("format"),
                    output = cl.required("output");
  require(format == "npy" || format == "csv", "unknown export format (npy or csv)", {"", "format", format});
  const fs::path directory = output_directory(output);
  clean_stale_temporaries_beside((directory / "export").string(), comm);
  const std::vector<ExportedArray> arrays = read_exported_arrays(run_path, comm);
  const bool npy = format == "npy";
  for (const ExportedArray& a : arrays)
    require_output_not_input({(directory / file_name(a, npy)).string(), "--output"}, {{run_path, "--run"}});
  if (!comm.is_root()) return kExitOk;
  std::error_code ec;
  const std::vector<std::string> created = create_directories_listed(directory.string(), ec);
  if (ec)
    throw InputError("cannot create the output directory: " + ec.message(), {output, "--output", output});
  try {
    write_all(directory, arrays, npy);
  } catch (...) {
    remove_empty_directories(created);  // empty again: write_all removed its files
    throw;
  }
  if (cl.has("json")) {
    JsonWriter w = json_summary("export");
    w.key("output").value(output).key("format").value(format);
    w.key("files").begin_array();
    for (const ExportedArray& a : arrays) w.value(file_name(a, npy));
    w.end_array().end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("wrote %zu %s files to %s\n", arrays.size(), format.c_str(), output.c_str());
  }
  return kExitOk;
}

}  // namespace gplvm
