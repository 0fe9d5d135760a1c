#include "gplvm/run/manifold_data.hpp"

#include <algorithm>

#include "gplvm/core/error.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/manifold/output_space_registry.hpp"
#include "gplvm/model/sphere_linear_basepoint.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/train/tangent_chart_file.hpp"

namespace gplvm {

void require_rows_on_manifold(const Manifold& manifold, const DataRef& rows, std::uint64_t row_begin,
                              const std::string& file, double tolerance) {
  const OffManifoldRow bad = first_off_manifold_row(manifold, rows, tolerance);
  if (bad.row < 0) return;
  const std::string row = std::to_string(row_begin + static_cast<std::uint64_t>(bad.row));
  throw InputError(
      "row " + row + " (0-based) is not on the " + manifold.name() + " output space: " + bad.reason,
      {file, "row", row});
}

DatasetLayout manifold_dataset_layout(const std::string& output_space, const RowMatrix& Y,
                                      const std::vector<std::uint64_t>& row_shape, const std::string& file,
                                      double tolerance) {
  std::unique_ptr<Manifold> manifold;
  try {
    require_output_manifold(output_space, "--output-space");
    manifold = make_output_manifold(output_space, Y.cols(), "--output-space");
  } catch (InputError& e) {
    throw InputError(e.reason(), {file, e.context().key, e.context().value});
  }
  const auto shape_text = [](const std::vector<std::uint64_t>& shape) {
    std::string text;
    for (const std::uint64_t n : shape) text += (text.empty() ? "" : " x ") + std::to_string(n);
    return text;
  };
  require(row_shape.size() < 2 || row_shape == manifold->point_shape(),
          "the input's rows are " + shape_text(row_shape) + " arrays, but points of " + output_space +
              " are " + shape_text(manifold->point_shape()) + " arrays",
          {file, "--output-space", output_space});
  require_rows_on_manifold(*manifold, Y, 0, file, tolerance);
  return {manifold->point_shape(), manifold->name()};
}

std::optional<TangentChart> read_run_chart(const std::string& run_path, const Communicator& comm) {
  return read_tangent_chart(Hdf5ResultReader(run_path, comm.raw()));
}

void apply_run_chart(const std::optional<TangentChart>& chart, DistributedDataset& data,
                     const Communicator& comm) {
  if (!chart) return;
  const Manifold& manifold = *chart->manifold;
  require(data.cols == static_cast<std::uint64_t>(manifold.ambient_dim()) &&
              data.local.cols() == manifold.ambient_dim(),
          "data rows do not fit the run's output space " + manifold.name(),
          {data.file, data.path,
           std::to_string(data.cols) + " numbers per row, the run's points have " +
               std::to_string(manifold.ambient_dim())});
  const std::uint64_t begin = data.partition.begin(comm.rank());
  comm.all_or_none([&] {
    require_rows_on_manifold(manifold, data.local, begin, data.file);
    data.local = chart->coordinates(data.local);
  });
  data.cols = static_cast<std::uint64_t>(manifold.intrinsic_dim());
}

void apply_linear_basepoint(const SphereLinearBasepoint& basepoint, const ConstMatrixRef& latents,
                            DistributedDataset& data) {
  require(latents.rows() == data.local.rows(), "one latent per row is needed for the linear basepoint",
          {data.file, data.path, std::to_string(latents.rows())});
  const RowMatrix points = chart_frame_points(data.local);
  for (Index j = 0; j < points.rows(); ++j)
    data.local.row(j) = basepoint.coordinates(latents.row(j).transpose(), points.row(j).transpose(), nullptr);
}

RowMatrix linear_basepoint_points(const TangentChart& chart, const SphereLinearBasepoint& basepoint,
                                  const ConstMatrixRef& latents, const DataRef& coordinates) {
  RowMatrix frame_points(coordinates.rows(), basepoint.tangent_dim() + 1);
  for (Index i = 0; i < coordinates.rows(); ++i)
    frame_points.row(i) =
        basepoint.point(latents.row(i).transpose(), coordinates.row(i).transpose()).transpose();
  return data_frame_points(chart, frame_points);
}

void require_output_space_model(const std::string& kind, const std::string& output_space) {
  require(model_kind(kind).output_manifold,
          "model.output_space = \"" + output_space + "\" trains model.kind " +
              model_kinds_with(&ModelKind::output_manifold) + ", not " + kind,
          {"", "model.output_space", output_space});
}

void require_basepoint_supported(const Config& config) {
  const std::string basepoint = config.get_string("model.basepoint"),
                    output_space = config.get_string("model.output_space"),
                    kind = config.get_string("model.kind");
  if (basepoint == "constant") return;
  require(output_space == kLinearBasepointSpace,
          "model.basepoint = \"" + basepoint + "\" is defined on model.output_space = \"" +
              kLinearBasepointSpace + "\" only; \"" + output_space + "\" takes the constant basepoint",
          {"", "model.basepoint", basepoint});
  require(model_kind(kind).linear_basepoint,
          "model.basepoint = \"linear\" is trained by model.kind " +
              model_kinds_with(&ModelKind::linear_basepoint) + " only (" + kind +
              " takes the constant basepoint)",
          {"", "model.basepoint", basepoint});
  // The model rebuilds the points from their tangent coordinates at mu0: shifted or scaled
  // coordinates would be other points.
  require(!config.get_bool("data.center") && !config.get_bool("data.standardize"),
          "model.basepoint = \"linear\" models the points themselves: data.center and data.standardize "
          "must be false",
          {"", "model.basepoint", basepoint});
}

namespace {

bool is_registered_output_space(const std::string& name) {
  const std::vector<std::string> known = registered_output_spaces();
  return std::find(known.begin(), known.end(), name) != known.end();
}

bool is_flat_output_space(const std::string& name) {
  return is_registered_output_space(name) && !output_space_is(name, &Manifold::is_curved);
}

// Whether two output spaces have the same points for rows of `width` numbers.
bool same_points(const std::string& a, const std::string& b, Index width) {
  if (a == b) return true;
  if (!is_registered_output_space(a) || !is_registered_output_space(b)) return false;
  try {
    return make_output_manifold(a, width)->point_set() == make_output_manifold(b, width)->point_set();
  } catch (const InputError&) {
    return false;  // a width that one of them has no points of
  }
}

}  // namespace

std::string dataset_output_space(const std::string& file, const std::string& path, const Communicator& comm) {
  const Hdf5ResultReader reader(file, comm.raw());
  return reader.has_attribute(path, kOutputSpaceAttribute)
             ? reader.read_attribute_string(path, kOutputSpaceAttribute)
             : std::string(kEuclideanSpace);
}

TangentChart map_training_data_to_tangent(DistributedDataset& data, const std::string& output_space,
                                          const Communicator& comm) {
  require(data.local_f32.size() == 0 || data.local.size() > 0,
          "data on an output manifold are trained in float64 only", {"", "model.precision", "float32"});
  const std::string stored = dataset_output_space(data.file, data.path, comm);
  // Data labelled R^D fit any space (its check follows); otherwise the label must name the same
  // points, under this metric or another (both SPD metrics are metrics on the same matrices).
  if (!is_flat_output_space(stored) && !same_points(stored, output_space, static_cast<Index>(data.cols)))
    throw InputError("the data set names output space '" + stored + "', the configuration another",
                     {data.file, "model.output_space", output_space});
  std::shared_ptr<const Manifold> manifold =
      make_output_manifold(output_space, static_cast<Index>(data.cols), "model.output_space");
  const std::uint64_t begin = data.partition.begin(comm.rank());
  comm.all_or_none([&] { require_rows_on_manifold(*manifold, data.local, begin, data.file); });
  // Every rank holds all rows for the mean (manifold data sets are small: N points of at most a few
  // hundred numbers), so the mean, and everything trained from it, is the same at any rank count.
  const RowMatrix all_rows = comm.allgather_rows(DataRef(data.local));
  TangentChart chart;
  comm.all_or_none([&] { chart = TangentChart::at_frechet_mean(manifold, all_rows); });
  data.local = chart.coordinates(data.local);
  data.cols = static_cast<std::uint64_t>(manifold->intrinsic_dim());
  return chart;
}

}  // namespace gplvm
