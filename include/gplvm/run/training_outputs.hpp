#pragma once
// Where a training writes: the run file at output.path and the checkpoints in
// output.checkpoint_dir, checked before any work so that a bad path fails in seconds rather than
// after hours of training.
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/io/output_lock.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/run/train_config.hpp"
#include "gplvm/train/run_file.hpp"
#include "gplvm/train/training_state.hpp"

namespace gplvm {

// Where a training starts: a checkpoint's state, or afresh (file empty).
struct ResumePoint {
  std::string file;
  TrainingState state;
};

// Collective. --resume's value: empty, a fresh start; "auto", the newest checkpoint of `dir` that
// reads back as a valid state of this model (unreadable, truncated, damaged or non-finite ones, as
// a disk or a rank killed mid-write leaves them, are skipped with a warning; one written for
// another configuration or data stops the run, named: CheckpointMismatch), a fresh start if there
// is none; otherwise the named checkpoint (InputError naming it when it is not valid).
ResumePoint find_resume_point(const std::string& resume, const std::string& dir, const Communicator& comm,
                              const Model& model, const RunMetadata& metadata);

// `<dir>/checkpoint-<step, 12 digits>.h5`: names sort by step.
std::string checkpoint_name(const std::string& dir, std::uint64_t step);
// Keeps the newest `keep` checkpoints of the directory. Rank 0 only.
void prune_checkpoints(const std::string& dir, std::int64_t keep);

// What a training holds while it writes: the output's lock (rank 0), and the folders it created,
// removed again if they are still empty when it ends (a failed or full-batch run leaves no empty
// checkpoint folder).
class TrainingOutputs {
 public:
  TrainingOutputs() = default;
  TrainingOutputs(OutputLock lock, std::vector<std::string> created_folders);
  ~TrainingOutputs();
  TrainingOutputs(TrainingOutputs&&) noexcept = default;
  TrainingOutputs& operator=(TrainingOutputs&&) = delete;

 private:
  OutputLock lock_;
  std::vector<std::string> created_folders_;  // deepest last; rank 0's list, empty elsewhere
};

// Collective. Refuses an output that is one of the inputs (the data, the config, the checkpoint
// resumed from: --force replaces an output, never an input), an output path that is a directory,
// or an existing run file without `force`; then creates the output's and the checkpoints' folders
// (rank 0), proves both writable, takes the output's lock (rank 0: a second training writing the
// same run file meanwhile is refused) and removes temporary files a killed writer left there.
// InputError naming output.path otherwise; an output that cannot be written leaves no folder.
// Keep the lock until the run file (or the last checkpoint) is written.
[[nodiscard]] TrainingOutputs prepare_training_outputs(const TrainSettings& settings,
                                                       const Communicator& comm, bool force,
                                                       const std::string& config_file,
                                                       const std::string& resumed_checkpoint = {});

}  // namespace gplvm
