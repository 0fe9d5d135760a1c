#pragma once
// Where a model's values sit in its flat parameter vector, declared once as named blocks
// (docs/architecture.md, "One flat parameter vector"). The trainer, the optimisers, checkpoints,
// resume, model.fixed_hyperparameters and the run file read the layout, never a model's own
// offsets:
//   - replicated blocks come first and hold the same values on every rank (kernel, noise, encoder
//     weights, inducing inputs); summed ones among them (encoder or decoder weights) have a
//     gradient that is a sum over the ranks' rows, which sharded Adam splits;
//   - per-row blocks follow, one row of `cols` values per local data row, row-major (free
//     latents and their log variances); checkpoints store them in global row order, so a run
//     resumes at any rank count.
// A block whose rows are points of a curved latent space (free latents, inducing inputs on the
// hyperboloid) names that space: Riemannian optimisers move those rows by the space's steps.
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/model/latent_space.hpp"

namespace gplvm {

enum class Placement {
  replicated,  // the same values on every rank
  per_row,     // one row of values per data row, held by the rank that owns the row
};

// How stored values relate to the natural quantity (what /params in a run file holds).
enum class ParameterTransform {
  none,    // stored as is
  log,     // stored as the logarithm of a positive quantity (variances, lengthscales)
  packed,  // a structured object packed by its own class (a Cholesky factor, network weights)
};

enum class BlockRole {
  trained,  // moved by the optimiser; its gradient is the same on every rank
  summed,   // moved by the optimiser; its gradient is a sum over the ranks' rows
  copied,   // not a parameter: copies of other values (an active set redrawn from the latents)
};

struct ParameterBlock {
  std::string name;  // e.g. "kernel", "noise_variance", "encoder", "latent/mean"
  Placement placement = Placement::replicated;
  // Replicated: rows x cols values, column-major (a point per row when `space` is set).
  // Per row: cols values per local row; rows is ignored (the local row count).
  Index rows = 0, cols = 0;
  ParameterTransform transform = ParameterTransform::none;
  BlockRole role = BlockRole::trained;
  // The curved latent space whose points the block's rows are (cols = its ambient dimension);
  // null for Euclidean values. Not owned: it lives as long as the model.
  const LatentSpace* space = nullptr;
  // Copied blocks: redrawn every this many iterations or steps (models/active_set.hpp).
  Index refresh_every = 0;
  // Positions inside the block held at their initial values (model.fixed_hyperparameters).
  std::vector<Index> fixed = {};

  // Set by ParameterLayout::add.
  Index offset = 0;  // the block's first element in the flat vector (per row: this rank's rows)
  Index size = 0;    // elements in this rank's flat vector
};

class ParameterLayout {
 public:
  // A layout for a model holding `local_rows` data rows on this rank.
  explicit ParameterLayout(Index local_rows = 0) : local_rows_(local_rows) {}

  // Appends a block and returns its offset. Replicated blocks must all come before per-row ones
  // and summed ones must be contiguous (sharded Adam splits one range); block names are unique.
  Index add(ParameterBlock block);

  const std::vector<ParameterBlock>& blocks() const noexcept { return blocks_; }
  // The block of that name; an internal Error when there is none.
  const ParameterBlock& block(const std::string& name) const;
  bool has_block(const std::string& name) const;
  Index local_rows() const noexcept { return local_rows_; }

  Index num_parameters() const noexcept { return num_shared_ + num_local_; }
  Index num_shared() const noexcept { return num_shared_; }  // the replicated prefix
  Index num_local() const noexcept { return num_local_; }
  // The summed blocks' range in the flat vector (empty {n, n} when there are none).
  IndexRange summed_range() const noexcept { return summed_; }
  // Indices in the flat vector of every fixed value (sorted).
  std::vector<Index> fixed_indices() const;

  // The per-row blocks side by side: one row per local data row, values_per_row() columns.
  Index values_per_row() const noexcept { return values_per_row_; }
  RowMatrix local_rows_of(const Vector& values) const;
  void set_local_rows(Vector& values, const RowMatrix& rows) const;

  // The curved space of the per-row point block (the first per-row block, when it names one),
  // and that block's offset (-1 without one).
  const LatentSpace* local_point_space() const;
  Index local_points_offset() const;
  // Replicated blocks of points of a curved space that the optimiser moves (trained, with a
  // space), and those that are redrawn copies (role copied). At most one of each.
  const ParameterBlock* shared_point_block() const;
  const ParameterBlock* copied_point_block() const;

  // A one-line description of each block ("kernel: replicated 3, log; latent/mean: per row 3,
  // lorentz; ..."), what checkpoints record and a mismatch message shows.
  std::string describe() const;

 private:
  Index local_rows_ = 0;
  std::vector<ParameterBlock> blocks_;
  Index num_shared_ = 0, num_local_ = 0, values_per_row_ = 0;
  IndexRange summed_{0, 0};
};

}  // namespace gplvm
