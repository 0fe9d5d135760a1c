#pragma once
// Serial HDF5 writers for test fixtures (default file driver: no MPI needed in the test process).
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm::testing {

// Creates (or truncates) the file when `create`, else opens it for appending.
void write_fixture_matrix(const std::string& file, const std::string& path, const RowMatrix& m,
                          bool float32 = false, bool create = true);
void write_fixture_vector(const std::string& file, const std::string& path, const std::vector<double>& v,
                          bool create = false);
void write_fixture_labels(const std::string& file, const std::string& path,
                          const std::vector<std::int64_t>& v, bool create = false);
// A fixed-length string attribute on an existing object of an existing file.
void write_fixture_string_attribute(const std::string& file, const std::string& object_path,
                                    const std::string& name, const std::string& value);
// Overwrites the first 16 bytes of one object's header (its version and message count) with 0xFF:
// the file still opens, and that one object cannot be opened.
void damage_fixture_object_header(const std::string& file, const std::string& object_path);
// Any rank: rows along the first dimension, the trailing dimensions flattened (C order).
RowMatrix read_fixture_matrix(const std::string& file, const std::string& path);
std::vector<double> read_fixture_vector(const std::string& file, const std::string& path);
// A string attribute of the root group (fixed or variable length); throws when it is absent.
std::string read_fixture_root_attribute(const std::string& file, const std::string& name);

}  // namespace gplvm::testing
