#pragma once
// The grid of a sweep (gplvm sweep --grid GRID.toml): config keys of gplvm train, each with a list
// of values, laid out as a train config is, e.g.
//   [train]
//   seed = [0, 1, 2]
//   [model]
//   kernel_variance = [0.5, 1.0]
// One model per point of the Cartesian product. Axes are ordered by key name; the first axis varies
// slowest, so point p's coordinates, and hence its model file, depend on the grid alone. Axes named
// "*.seed" are replicates: the other axes' values make a point's cell, over which rates are given.
#include <cstddef>
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"

namespace gplvm {

struct SweepAxis {
  std::string key;                  // a config key, "model.kernel_variance"
  std::vector<std::string> values;  // each as an override's value: 0.5, "kpca"
  bool replicate = false;           // a seed: not part of the cell
};

struct SweepGrid {
  std::vector<SweepAxis> axes;

  std::size_t points() const;
  // The value index along each axis of point `point` (< points()).
  std::vector<std::size_t> coordinates(std::size_t point) const;
  // "key=value" for each axis, as gplvm train takes overrides.
  std::vector<std::string> overrides(std::size_t point) const;
  // The values of the non-replicate axes, "model.kernel_variance=0.5 model.noise_variance=0.1"
  // ("all" when every axis is a replicate).
  std::string cell(std::size_t point) const;
};

// InputError naming the file and the key for malformed TOML, a key the schema does not declare
// (with the nearest declared one), a value that is not a non-empty list, or an empty grid.
SweepGrid read_sweep_grid(const std::string& path, const ConfigSchema& schema);

}  // namespace gplvm
