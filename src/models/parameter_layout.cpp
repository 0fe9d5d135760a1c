#include "gplvm/models/parameter_layout.hpp"

#include <algorithm>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

bool is_curved(const LatentSpace* space) {
  return space != nullptr && space->ambient_dim() != space->intrinsic_dim();
}

std::string transform_word(ParameterTransform t) {
  switch (t) {
    case ParameterTransform::log:
      return ", log";
    case ParameterTransform::packed:
      return ", packed";
    case ParameterTransform::none:
      break;
  }
  return "";
}

std::string role_word(BlockRole r) {
  switch (r) {
    case BlockRole::summed:
      return ", summed";
    case BlockRole::copied:
      return ", copied";
    case BlockRole::trained:
      break;
  }
  return "";
}

}  // namespace

Index ParameterLayout::add(ParameterBlock block) {
  const std::string named = "parameter layout: block \"" + block.name + "\"";
  if (has_block(block.name)) throw Error(named + " declared twice");
  const bool replicated = block.placement == Placement::replicated;
  if (replicated && values_per_row_ > 0) throw Error(named + " is replicated but follows a per-row block");
  if (!replicated) block.rows = local_rows_;
  block.offset = num_shared_ + num_local_;
  block.size = block.rows * block.cols;
  const bool summed = replicated && block.role == BlockRole::summed && block.size > 0;
  const bool any_summed = summed_.end > summed_.begin;
  if (summed && any_summed && summed_.end != block.offset)
    throw Error(named + " is summed but not next to the other summed blocks");
  for (Index f : block.fixed)
    if (f < 0 || f >= block.size)
      throw Error(named + ": fixed position " + std::to_string(f) + " is outside it");
  if (replicated) {
    num_shared_ += block.size;
  } else {
    num_local_ += block.size;
    values_per_row_ += block.cols;
  }
  if (summed) summed_ = {any_summed ? summed_.begin : block.offset, block.offset + block.size};
  // Without summed blocks the (empty) range sits at the end of the replicated ones.
  if (summed_.end == summed_.begin) summed_ = {num_shared_, num_shared_};
  blocks_.push_back(std::move(block));
  return blocks_.back().offset;
}

bool ParameterLayout::has_block(const std::string& name) const {
  return std::any_of(blocks_.begin(), blocks_.end(), [&](const ParameterBlock& b) { return b.name == name; });
}

const ParameterBlock& ParameterLayout::block(const std::string& name) const {
  for (const ParameterBlock& b : blocks_)
    if (b.name == name) return b;
  throw Error("parameter layout: no block \"" + name + "\"");
}

std::vector<Index> ParameterLayout::fixed_indices() const {
  std::vector<Index> indices;
  for (const ParameterBlock& b : blocks_)
    for (Index f : b.fixed) indices.push_back(b.offset + f);
  std::sort(indices.begin(), indices.end());
  return indices;
}

RowMatrix ParameterLayout::local_rows_of(const Vector& values) const {
  RowMatrix rows(local_rows_, values_per_row_);
  Index column = 0;
  for (const ParameterBlock& b : blocks_) {
    if (b.placement != Placement::per_row) continue;
    rows.middleCols(column, b.cols) =
        Eigen::Map<const RowMatrix>(values.data() + b.offset, local_rows_, b.cols);
    column += b.cols;
  }
  return rows;
}

void ParameterLayout::set_local_rows(Vector& values, const RowMatrix& rows) const {
  require(rows.rows() == local_rows_ && rows.cols() == values_per_row_,
          "local parameter block has the wrong shape",
          {"", "local_rows", std::to_string(rows.rows()) + "x" + std::to_string(rows.cols())});
  Index column = 0;
  for (const ParameterBlock& b : blocks_) {
    if (b.placement != Placement::per_row) continue;
    Eigen::Map<RowMatrix>(values.data() + b.offset, local_rows_, b.cols) = rows.middleCols(column, b.cols);
    column += b.cols;
  }
}

const LatentSpace* ParameterLayout::local_point_space() const {
  for (const ParameterBlock& b : blocks_)
    if (b.placement == Placement::per_row) return is_curved(b.space) ? b.space : nullptr;
  return nullptr;
}

Index ParameterLayout::local_points_offset() const {
  for (const ParameterBlock& b : blocks_)
    if (b.placement == Placement::per_row) return is_curved(b.space) ? b.offset : -1;
  return -1;
}

const ParameterBlock* ParameterLayout::shared_point_block() const {
  for (const ParameterBlock& b : blocks_)
    if (b.placement == Placement::replicated && b.role != BlockRole::copied && is_curved(b.space)) return &b;
  return nullptr;
}

const ParameterBlock* ParameterLayout::copied_point_block() const {
  for (const ParameterBlock& b : blocks_)
    if (b.placement == Placement::replicated && b.role == BlockRole::copied) return &b;
  return nullptr;
}

std::string ParameterLayout::describe() const {
  std::string text;
  for (const ParameterBlock& b : blocks_) {
    if (!text.empty()) text += "; ";
    text += b.name + ": ";
    text += b.placement == Placement::replicated
                ? "replicated " + std::to_string(b.rows) + "x" + std::to_string(b.cols)
                : "per row " + std::to_string(b.cols);
    text += transform_word(b.transform) + role_word(b.role);
    if (b.space != nullptr) text += ", " + b.space->name();
  }
  return text;
}

}  // namespace gplvm
