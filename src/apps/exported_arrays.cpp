#include "gplvm/apps/exported_arrays.hpp"

#include <type_traits>

#include "gplvm/core/error.hpp"
#include "gplvm/io/result_writer.hpp"

namespace gplvm {
namespace {

// /params/kernel/<name> (one value: kernel/<name>; several: kernel/<name>/<i>) and
// /params/noise_variance.
NamedValues read_hyperparameters(const Hdf5ResultReader& run) {
  NamedValues named;
  for (const std::string& name : run.group_members("/params/kernel")) {
    const Vector values = run.read_values("/params/kernel/" + name);
    if (values.size() == 1) {  // the run file stores a group of one value as a scalar
      named.emplace_back("kernel/" + name, values[0]);
      continue;
    }
    for (Index i = 0; i < values.size(); ++i)
      named.emplace_back("kernel/" + name + "/" + std::to_string(i), values[i]);
  }
  named.emplace_back("noise_variance", run.read_scalar("/params/noise_variance"));
  return named;
}

std::string column_names(const std::string& prefix, Index count) {
  std::string header;
  for (Index i = 0; i < count; ++i) header += (i ? "," : "") + prefix + std::to_string(i);
  return header;
}

// A real array of the run file that export writes when the run has it: a matrix (CSV columns
// <columns>0, <columns>1, ...) or a vector (one CSV column named <columns>).
struct RealArray {
  const char* path;
  const char* name;
  bool is_vector;
  const char* columns;
};

// After the latents, labels and hyperparameters, in the order docs/run-file.md lists them.
constexpr RealArray kRealArrays[] = {
    {"/params/inducing", "inducing_inputs", false, "z_"},
    {"/params/inducing_posterior/mean", "inducing_posterior_mean", false, "output_"},
    {"/params/inducing_posterior/covariance", "inducing_posterior_covariance", false, "inducing_"},
    {"/preprocess/mean", "preprocess_mean", true, "mean"},
    {"/preprocess/scale", "preprocess_scale", true, "scale"},
    {"/output_space/basepoint", "output_basepoint", true, "basepoint"},
    {"/output_space/tangent_basis", "output_tangent_basis", false, "basis_"},
    {"/params/basepoint_map", "basepoint_map", false, "latent_"},
};

ExportedArray read_real_array(const Hdf5ResultReader& run, const RealArray& a) {
  if (a.is_vector) {
    const Vector v = run.read_vector(a.path);
    return {a.name, std::vector<double>(v.data(), v.data() + v.size()), a.columns};
  }
  RowMatrix m = run.read_matrix(a.path);
  std::string header = column_names(a.columns, m.cols());
  return {a.name, std::move(m), std::move(header)};
}

}  // namespace

std::vector<ExportedArray> read_exported_arrays(const std::string& run_path, const Communicator& comm) {
  const Hdf5ResultReader run(run_path, comm.raw());
  require(run.exists("/latent/mean") && run.exists("/params/noise_variance"),
          "not a gplvm run file (no /latent/mean or /params/noise_variance)", {run_path, "/latent/mean", ""});
  std::vector<ExportedArray> arrays;
  arrays.push_back(read_real_array(run, {"/latent/mean", "latent_mean", false, "mean_"}));
  if (run.exists("/latent/var"))
    arrays.push_back(read_real_array(run, {"/latent/var", "latent_variance", false, "variance_"}));
  if (run.exists("/labels")) arrays.push_back({"labels", run.read_int64_vector("/labels"), "label"});
  arrays.push_back({"hyperparameters", read_hyperparameters(run), "name,value"});
  for (const RealArray& a : kRealArrays)
    if (run.exists(a.path)) arrays.push_back(read_real_array(run, a));
  return arrays;
}

void write_exported_array(const ExportedArray& array, const std::string& path, bool npy) {
  std::visit(
      [&](const auto& values) {
        if (npy)
          write_npy(path, values);
        else if constexpr (std::is_same_v<std::decay_t<decltype(values)>, NamedValues>)
          write_csv(path, values);  // its columns are fixed: name,value
        else
          write_csv(path, values, array.csv_header);
      },
      array.values);
}

}  // namespace gplvm
