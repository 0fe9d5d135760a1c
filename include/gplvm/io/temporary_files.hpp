#pragma once
// The names outputs are written under before they are complete, and the removal of those a killed
// writer left behind.
//
// An output is written as "<final path>.tmp-<pid>-<16 hex digits>" next to its final name and
// renamed over it when complete (io/result_writer.hpp); a directory probe is
// ".gplvm-write-probe-<pid>-<16 hex digits>". A process killed while writing (SIGKILL, a node
// failure, MPI_Abort) leaves such a file, which nothing else would ever remove.
#include <string>
#include <vector>

#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Unique among concurrent writers to one directory: this process's id and 64 random bits.
std::string unique_temporary_suffix();
std::string temporary_path(const std::string& final_path, const std::string& suffix);

// Whether a file name (no directory) has the form of one of this project's temporary files.
bool is_temporary_name(const std::string& file_name);

// Not collective (call it on one rank). Removes the files of `directory` whose names match
// is_temporary_name, that were last modified before this process started, and whose writer (the
// process id in the name) is not a live process on this machine. Returns the paths removed; a
// missing directory or an entry that cannot be removed is skipped.
std::vector<std::string> remove_stale_temporaries(const std::string& directory);

// Collective in name only: rank 0 removes the stale temporary files of the directory holding
// `output_path`, with a warning naming each, before a command writes there.
void clean_stale_temporaries_beside(const std::string& output_path, const Communicator& comm);

}  // namespace gplvm
