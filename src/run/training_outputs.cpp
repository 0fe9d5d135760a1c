#include "gplvm/run/training_outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/io/created_directories.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

// Creates a folder and the missing ones above it on rank 0, adding each it made to `created`
// (outermost first), and agrees on the outcome (an InputError naming output.path).
void create_directory(const fs::path& dir, const TrainSettings& s, const Communicator& comm,
                      std::vector<std::string>& created) {
  std::string failure;
  if (comm.is_root() && !dir.empty()) {
    std::error_code ec;
    const std::vector<std::string> made = create_directories_listed(dir.string(), ec);
    if (ec)
      failure = "cannot create directory '" + dir.string() + "': " + ec.message();
    else
      created.insert(created.end(), made.begin(), made.end());
  }
  failure = comm.broadcast(failure);
  require(failure.empty(), failure, {s.output_path, "output.path", ""});
}

// The newest checkpoint of the directory that reads back as a valid state of this model (finite,
// shapes matching); unreadable, truncated or non-finite ones (a disk can corrupt one, a rank
// killed mid-write leaves only a temporary file) are skipped with a warning. One written for a
// different configuration or data stops the run, named. A fresh start if there is none.
ResumePoint newest_valid_checkpoint(const std::string& dir, const Communicator& comm, const Model& model,
                                    const RunMetadata& meta) {
  std::vector<fs::path> files;
  static const std::regex pattern("checkpoint-[0-9]{12}\\.h5");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (std::regex_match(entry.path().filename().string(), pattern)) files.push_back(entry.path());
  std::sort(files.rbegin(), files.rend());
  for (const auto& file : files) {
    try {
      return {file.string(), read_checkpoint(file.string(), comm, model, meta)};
    } catch (const CheckpointMismatch&) {
      throw;  // another run's checkpoints: a fresh start would prune them away
    } catch (const InputError& e) {
      // Every rank skips together: read_checkpoint's input errors are agreed over the ranks.
      if (comm.is_root()) log_warning("skipping invalid checkpoint " + file.string() + ": " + e.what());
    }
  }
  return {};
}

}  // namespace

ResumePoint find_resume_point(const std::string& resume, const std::string& dir, const Communicator& comm,
                              const Model& model, const RunMetadata& metadata) {
  // An explicit checkpoint that is invalid is an input error naming it; `auto` skips invalid ones.
  if (resume == "auto") return newest_valid_checkpoint(dir, comm, model, metadata);
  if (resume.empty()) return {};
  return {resume, read_checkpoint(resume, comm, model, metadata)};
}

std::string checkpoint_name(const std::string& dir, std::uint64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "checkpoint-%012llu.h5", static_cast<unsigned long long>(step));
  return (fs::path(dir) / name).string();
}

void prune_checkpoints(const std::string& dir, std::int64_t keep) {
  std::vector<fs::path> files;
  static const std::regex pattern("checkpoint-[0-9]{12}\\.h5");
  for (const auto& entry : fs::directory_iterator(dir))
    if (std::regex_match(entry.path().filename().string(), pattern)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i + keep < files.size(); ++i) fs::remove(files[i]);
}

TrainingOutputs::TrainingOutputs(OutputLock lock, std::vector<std::string> created_folders)
    : lock_(std::move(lock)), created_folders_(std::move(created_folders)) {}

TrainingOutputs::~TrainingOutputs() {
  lock_.release();
  remove_empty_directories(created_folders_);
}

TrainingOutputs prepare_training_outputs(const TrainSettings& s, const Communicator& comm, bool force,
                                         const std::string& config_file,
                                         const std::string& resumed_checkpoint) {
  require_output_not_input(
      {s.output_path, "output.path"},
      {{s.data_file, "data.path"}, {config_file, "--config"}, {resumed_checkpoint, "--resume"}});
  require(!fs::is_directory(s.output_path), "output.path is a directory: name the run file to write",
          {s.output_path, "output.path", ""});
  require(force || !fs::exists(s.output_path),
          "the run file exists already; pass --force to replace it (or choose another output.path)",
          {s.output_path, "output.path", ""});
  // The output path is checked before the checkpoint folder is made, so an output that cannot be
  // written leaves none.
  std::vector<std::string> created;
  OutputLock lock;
  try {
    create_directory(fs::path(s.output_path).parent_path(), s, comm, created);
    Hdf5ResultWriter::check_writable(s.output_path);
    create_directory(fs::path(s.checkpoint_dir), s, comm, created);
    Hdf5ResultWriter::check_writable(checkpoint_name(s.checkpoint_dir, 0));
    comm.on_root([&] { lock = OutputLock::acquire(s.output_path, "output.path"); });
  } catch (...) {
    const TrainingOutputs made(std::move(lock), std::move(created));  // removes the folders made, if empty
    throw;
  }
  // Temporary files a killed writer left next to the run file or among the checkpoints.
  clean_stale_temporaries_beside(s.output_path, comm);
  clean_stale_temporaries_beside(checkpoint_name(s.checkpoint_dir, 0), comm);
  return TrainingOutputs(std::move(lock), std::move(created));
}

}  // namespace gplvm
