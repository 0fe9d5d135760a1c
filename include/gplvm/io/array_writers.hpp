#pragma once
// Arrays as NumPy .npy (format 1.0, little-endian, C order; numpy.load reads them without
// allow_pickle) or CSV (a header line, then one line per row, doubles to 17 significant digits so
// they read back exactly). What `gplvm export` writes; the caller chooses the path (and renames
// a temporary one into place). Each throws Error naming the path if it cannot be written.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

// Named scalars, as (name, value) rows: .npy a structured array with fields name ('S64') and
// value ('<f8'); CSV the columns name,value.
using NamedValues = std::vector<std::pair<std::string, double>>;

void write_npy(const std::string& path, const DataRef& values);                    // '<f8', rows x cols
void write_npy(const std::string& path, const std::vector<double>& values);        // '<f8', 1-D
void write_npy(const std::string& path, const std::vector<std::int64_t>& values);  // '<i8', 1-D
void write_npy(const std::string& path, const NamedValues& values);

// `header`: the column names, comma-separated.
void write_csv(const std::string& path, const DataRef& values, const std::string& header);
void write_csv(const std::string& path, const std::vector<double>& values, const std::string& header);
void write_csv(const std::string& path, const std::vector<std::int64_t>& values, const std::string& header);
void write_csv(const std::string& path, const NamedValues& values);

}  // namespace gplvm
