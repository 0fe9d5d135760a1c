#pragma once
// Data on an output manifold (model.output_space, gplvm import --output-space): checking that the
// rows lie on it, how they are stored, and the constant-basepoint chart that turns them into the
// tangent coordinates a GP models (docs/math/wrapped_gplvm.md).
#include <memory>
#include <optional>
#include <string>

#include "gplvm/core/config.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/importers.hpp"
#include "gplvm/manifold/tangent_chart.hpp"
#include "gplvm/model/sphere_linear_basepoint.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// The membership tolerance of imported and training data (relative where the manifold's check is:
// docs/math/manifolds.md). float64 data meet it; float32 rounding (1e-7) does not.
inline constexpr double kManifoldTolerance = 1e-8;

// InputError naming the file and the first row (0-based, counted from row_begin) that is not on
// the manifold, with the reason and the tolerance.
void require_rows_on_manifold(const Manifold& manifold, const DataRef& rows, std::uint64_t row_begin,
                              const std::string& file, double tolerance = kManifoldTolerance);

// For gplvm import: checks every row of Y and returns how to store them (N x point shape, with the
// output_space attribute). InputError naming `--output-space` when Y's width does not fit the
// manifold, or when the input's rows are arrays (row_shape of two or more dimensions) of another
// shape than the manifold's points (N x k x 3 landmarks are not planar shapes).
DatasetLayout manifold_dataset_layout(const std::string& output_space, const RowMatrix& Y,
                                      const std::vector<std::uint64_t>& row_shape, const std::string& file,
                                      double tolerance = kManifoldTolerance);

// Training data: InputError naming model.output_space when the dataset names another output space
// (or none while its rows are arrays), each rank's rows checked against the manifold, the chart at
// the Fréchet mean of all rows (gathered on every rank, so the same for any rank count), and each
// rank's rows replaced by their tangent coordinates (data.cols becomes the intrinsic dimension).
// Collective.
TangentChart map_training_data_to_tangent(DistributedDataset& data, const std::string& output_space,
                                          const Communicator& comm);

// The chart a run was trained in (/output_space of its run file); none for a Euclidean run. Collective.
std::optional<TangentChart> read_run_chart(const std::string& run_path, const Communicator& comm);
// Rows given to a trained run (training data again, data to encode or evaluate): checked against the
// run's manifold and replaced by their tangent coordinates in its chart; nothing for a Euclidean
// run. InputError naming the data file when its width is not the manifold's. Collective.
void apply_run_chart(const std::optional<TangentChart>& chart, DistributedDataset& data,
                     const Communicator& comm);

// Runs whose basepoint moves with the latent (Model::linear_basepoint): rows given as the chart's
// coordinates at mu0 (after apply_run_chart) replaced by their coordinates V(x, p) at m(x), x the
// latent of each row (latents: one row per local row).
void apply_linear_basepoint(const SphereLinearBasepoint& basepoint, const ConstMatrixRef& latents,
                            DistributedDataset& data);
// Tangent coordinates c at m(x) (one row per latent) -> points of the data's frame, Exp_{m(x)}(E(x) c).
RowMatrix linear_basepoint_points(const TangentChart& chart, const SphereLinearBasepoint& basepoint,
                                  const ConstMatrixRef& latents, const DataRef& coordinates);

// InputError naming model.output_space unless model.kind trains on tangent coordinates (exact, sas,
// bayesian_sas).
void require_output_space_model(const std::string& kind, const std::string& output_space);
// model.basepoint: "constant" anywhere; "linear" only on the sphere, for model.kind = "exact",
// without data.center or data.standardize (InputError naming model.basepoint otherwise).
void require_basepoint_supported(const Config& config);

// The output_space attribute of a data set's dataset (kEuclideanSpace when it has none). Collective.
std::string dataset_output_space(const std::string& file, const std::string& path, const Communicator& comm);

}  // namespace gplvm
