// gplvm import --output-space: data on a manifold are checked row by row (exit 2 naming the file,
// the first bad row and the tolerance, no output written) and stored in their layout, N x (n+1),
// N x k x 2 or N x n x n, with the manifold named in /Y's output_space attribute.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/hdf5_fixture.hpp"

namespace gplvm {
namespace {

using testing::CliResult;
using testing::run_gplvm;
using testing::ScratchDir;
using testing::write_text;

std::string csv(const std::vector<std::vector<double>>& rows) {
  std::ostringstream out;
  out.precision(17);
  for (const auto& row : rows) {
    for (std::size_t j = 0; j < row.size(); ++j) out << (j ? "," : "") << row[j];
    out << "\n";
  }
  return out.str();
}

struct StoredLayout {
  std::vector<hsize_t> dims;
  std::string output_space;
};

StoredLayout stored_layout(const std::string& file) {
  StoredLayout layout;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, "/Y", H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  layout.dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, layout.dims.data(), nullptr);
  if (H5Aexists(d, "output_space") > 0) {
    const hid_t a = H5Aopen(d, "output_space", H5P_DEFAULT);
    const hid_t type = H5Aget_type(a);
    std::string text(H5Tget_size(type), '\0');
    H5Aread(a, type, text.data());
    layout.output_space = text.c_str();
    H5Tclose(type);
    H5Aclose(a);
  }
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return layout;
}

CliResult import(const ScratchDir& dir, const std::string& space, const std::string& data,
                 const std::string& extra = "") {
  write_text(dir / "in.csv", data);
  return run_gplvm(
      "import --input in.csv --output out.h5 --csv-header no --output-space " + space + " " + extra, 0, dir);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ManifoldImportCli, StoresEachManifoldInItsLayoutWithItsName) {
  const ScratchDir dir;
  const double s = 1.0 / std::sqrt(2.0);
  CliResult r = import(dir, "sphere", csv({{1, 0, 0}, {0, s, s}, {0, 0.6, -0.8}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stored_layout(dir / "out.h5").dims, (std::vector<hsize_t>{3, 3}));
  EXPECT_EQ(stored_layout(dir / "out.h5").output_space, "sphere");

  std::filesystem::remove(dir / "out.h5");
  r = import(dir, "kendall", csv({{0, 0, 1, 0, 1, 1, 0, 1}, {0, 0, 2, 0, 2, 3, 0, 2}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stored_layout(dir / "out.h5").dims, (std::vector<hsize_t>{2, 4, 2}));
  EXPECT_EQ(stored_layout(dir / "out.h5").output_space, "kendall");

  std::filesystem::remove(dir / "out.h5");
  r = import(dir, "spd_affine", csv({{2, 0.5, 0.5, 1}, {1, 0, 0, 3}}), "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stored_layout(dir / "out.h5").dims, (std::vector<hsize_t>{2, 2, 2}));
  EXPECT_EQ(stored_layout(dir / "out.h5").output_space, "spd_affine");
  EXPECT_TRUE(contains(r.out, "\"output_space\":\"spd_affine\"")) << r.out;
}

TEST(ManifoldImportCli, RefusesTheFirstRowOffTheManifoldAndWritesNothing) {
  const ScratchDir dir;
  struct Bad {
    std::string space, data, row, reason;
  };
  const std::vector<Bad> cases{
      {"sphere", csv({{1, 0, 0}, {0, 1, 0}, {0, 0, 1.001}, {2, 0, 0}}), "row 2", "norm"},
      {"spd_log_euclidean", csv({{2, 0, 0, 1}, {2, 0.5, 0.4, 1}}), "row 1", "not symmetric"},
      {"spd_affine", csv({{1, 2, 2, 1}}), "row 0", "not positive definite"},
      {"kendall", csv({{0, 0, 1, 0, 1, 1}, {3, 3, 3, 3, 3, 3}}), "row 1", "degenerate"},
  };
  for (const Bad& bad : cases) {
    const CliResult r = import(dir, bad.space, bad.data);
    EXPECT_EQ(r.exit_code, 2) << bad.space << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "in.csv")) << r.err;
    EXPECT_TRUE(contains(r.err, bad.row)) << r.err;
    EXPECT_TRUE(contains(r.err, bad.reason)) << r.err;
    EXPECT_TRUE(contains(r.err, "1e-08")) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out.h5")) << bad.space;
  }
  // A looser tolerance accepts the slightly long sphere row.
  const CliResult loose = import(dir, "sphere", csv({{1, 0, 0}, {0, 0, 1.001}}), "--tolerance 1e-2");
  EXPECT_EQ(loose.exit_code, 0) << loose.err;
}

TEST(ManifoldImportCli, RefusesWidthsThatDoNotFitAndUnknownSpaces) {
  const ScratchDir dir;
  CliResult r = import(dir, "kendall", csv({{0, 0, 1, 0, 1}}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--output-space")) << r.err;
  r = import(dir, "spd_log_euclidean", csv({{1, 0, 0}}));
  EXPECT_EQ(r.exit_code, 2);
  r = import(dir, "torus", csv({{1, 0, 0}}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "torus")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.h5"));
}

}  // namespace
}  // namespace gplvm
