// IDX / NPY / CSV import: every fixture is written byte by byte here (so the tests pin the file
// formats, not a copy of some program's output), converted to HDF5 and read back through the
// dataset reader. Runs without MPI_Init: the I/O layer then uses HDF5's serial driver.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/importers.hpp"
#include "gplvm/io/result_writer.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;

class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("gplvm-import-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, const Bytes& bytes) const {
    std::ofstream out(path(name), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
  std::string write_text(const std::string& name, const std::string& text) const {
    return write(name, Bytes(text.begin(), text.end()));
  }
  std::string write_gzip(const std::string& name, const Bytes& bytes) const {
    gzFile file = gzopen(path(name).c_str(), "wb");
    EXPECT_NE(file, nullptr);
    EXPECT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
              static_cast<int>(bytes.size()));
    gzclose(file);
    return path(name);
  }
  // Names in the directory: shows leftover temporary or partial files.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

// ---- fixture builders ---------------------------------------------------------------------------

void put_big_endian(Bytes& out, std::uint64_t bits, int size) {
  for (int i = size - 1; i >= 0; --i) out.push_back(static_cast<unsigned char>(bits >> (8 * i)));
}
void put_little_endian(Bytes& out, std::uint64_t bits, int size) {
  for (int i = 0; i < size; ++i) out.push_back(static_cast<unsigned char>(bits >> (8 * i)));
}

// Bits of value in the IDX or NPY element type with this size and kind ('u', 'i', 'f').
std::uint64_t element_bits(double value, char kind, int size) {
  if (kind == 'f' && size == 4) return std::bit_cast<std::uint32_t>(static_cast<float>(value));
  if (kind == 'f') return std::bit_cast<std::uint64_t>(value);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
}

Bytes idx_file(unsigned char type, const std::vector<std::uint32_t>& dims,
               const std::vector<double>& values) {
  const char kind = type == 0x08 ? 'u' : type == 0x0D || type == 0x0E ? 'f' : 'i';
  const int size = type == 0x08 || type == 0x09 ? 1 : type == 0x0B ? 2 : type == 0x0C || type == 0x0D ? 4 : 8;
  Bytes out = {0, 0, type, static_cast<unsigned char>(dims.size())};
  for (std::uint32_t d : dims) put_big_endian(out, d, 4);
  for (double v : values) put_big_endian(out, element_bits(v, kind, size), size);
  return out;
}

// An NPY file laid out as numpy writes it: magic, version, header length, a dict padded with
// spaces and ending in '\n' so that the data start on a 64-byte boundary.
Bytes npy_file(const std::string& descr, const std::string& shape, const std::vector<double>& values,
               int major = 1, bool fortran = false) {
  const char kind = descr[1];
  const int size = descr[2] - '0';
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(major), 0};
  put_little_endian(out, header.size(), major == 1 ? 2 : 4);
  out.insert(out.end(), header.begin(), header.end());
  const bool big = descr[0] == '>';
  for (double v : values) {
    (big ? put_big_endian : put_little_endian)(out, element_bits(v, kind, size), size);
  }
  return out;
}

std::vector<double> ramp(int n, double scale = 1.0, double offset = 0.0) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = offset + scale * i;
  return v;
}

RowMatrix as_matrix(const std::vector<double>& v, Index rows, Index cols) {
  return Eigen::Map<const RowMatrix>(v.data(), rows, cols);
}

// The whole /Y dataset of an imported file (MPI_COMM_SELF: one process reads everything).
RowMatrix read_back(const std::string& file, const std::string& path = "/Y") {
  const DatasetInfo info = inspect_dataset(file, path, MPI_COMM_SELF);
  return read_rows(file, path, 0, info.rows, MPI_COMM_SELF);
}

std::vector<std::int64_t> read_back_labels(const std::string& file) {
  const DatasetInfo info = inspect_dataset(file, "/Y", MPI_COMM_SELF);
  EXPECT_TRUE(info.has_labels);
  return read_label_rows(file, kDefaultLabelsPath, 0, info.label_count, MPI_COMM_SELF);
}

// Rounds to float32 as storage does: a float32 round trip must reproduce exactly this.
RowMatrix to_float32(const RowMatrix& m) {
  return m.cast<float>().cast<double>();
}

// Runs f, which must throw InputError; returns its message.
template <class F>
std::string input_error_message(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected InputError, nothing thrown";
  return {};
}

// ---- IDX ----------------------------------------------------------------------------------------

TEST_F(ImportTest, IdxImagesAndLabelsRoundTripThroughHdf5WithScaling) {
  const std::vector<double> pixels = {0, 1, 2,  127, 128, 254, 255, 3,  4,  5,  6,  7,
                                      8, 9, 10, 200, 201, 202, 17,  90, 91, 92, 93, 94};  // 4 images of 2 x 3
  const std::string images = write("images.idx3-ubyte", idx_file(0x08, {4, 2, 3}, pixels));
  const std::string labels = write("labels.idx1-ubyte", idx_file(0x08, {4}, {7, 0, 9, 3}));
  ImportOptions options;
  options.scale = 1.0 / 255;
  const ImportSummary summary = import_to_hdf5(images, labels, path("out.h5"), options);
  EXPECT_EQ(summary.format, ImportFormat::idx);
  EXPECT_EQ(summary.rows, 4u);
  EXPECT_EQ(summary.cols, 6u);
  EXPECT_TRUE(summary.has_labels);

  const RowMatrix expected = as_matrix(pixels, 4, 6) * (1.0 / 255);
  const RowMatrix stored = read_back(path("out.h5"));
  EXPECT_TRUE(stored == expected);  // float64 storage is exact
  EXPECT_GE(stored.minCoeff(), 0.0);
  EXPECT_LE(stored.maxCoeff(), 1.0);
  EXPECT_EQ(read_back_labels(path("out.h5")), (std::vector<std::int64_t>{7, 0, 9, 3}));
  EXPECT_EQ(listing(), (std::vector<std::string>{"images.idx3-ubyte", "labels.idx1-ubyte", "out.h5"}));
}

TEST_F(ImportTest, GzippedIdxIsDetectedFromItsBytesAndMatchesTheRawFile) {
  const std::vector<double> pixels = ramp(3 * 4 * 5, 4.0);  // 0..236
  const Bytes raw = idx_file(0x08, {3, 4, 5}, pixels);
  const std::string gz = write_gzip("train-images-idx3-ubyte.gz", raw);
  // The name says gzip IDX; a gzipped file with an uninformative name is recognised by content.
  const std::string anonymous = write_gzip("blob.bin", raw);
  const NumericArray a = read_idx(gz), b = read_idx(anonymous);
  EXPECT_EQ(a.shape, (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_EQ(a.type_name, "uint8");
  EXPECT_TRUE(a.integer);
  EXPECT_TRUE(a.values == as_matrix(pixels, 3, 20));
  EXPECT_TRUE(b.values == a.values);
  EXPECT_EQ(detect_format(anonymous), ImportFormat::idx);

  ImportOptions options;
  options.as_float32 = true;
  import_to_hdf5(gz, "", path("out.h5"), options);
  EXPECT_EQ(inspect_dataset(path("out.h5"), "/Y", MPI_COMM_SELF).type, ElementType::float32);
  EXPECT_FALSE(inspect_dataset(path("out.h5"), "/Y", MPI_COMM_SELF).has_labels);
  EXPECT_TRUE(read_back(path("out.h5")) == as_matrix(pixels, 3, 20));  // small integers are exact in float32
}

TEST_F(ImportTest, IdxDecodesEverySupportedElementTypeBigEndian) {
  struct Case {
    unsigned char type;
    std::vector<double> values;
    const char* name;
  };
  const std::vector<Case> cases = {
      {0x09, {-128, -1, 0, 127}, "int8"},
      {0x0B, {-32768, -2, 300, 32767}, "int16"},
      {0x0C, {-2147483648.0, -70000, 70000, 2147483647.0}, "int32"},
      {0x0D, {-1.5, 0.1f, 3.25e10f, 7}, "float32"},
      {0x0E, {-1.5, 0.1, 1e300, 7}, "float64"},
  };
  for (const Case& c : cases) {
    const NumericArray array =
        read_idx(write(std::string(c.name) + ".idx", idx_file(c.type, {2, 2}, c.values)));
    EXPECT_EQ(array.type_name, c.name);
    EXPECT_TRUE(array.values == as_matrix(c.values, 2, 2)) << c.name << "\n" << array.values;
  }
}

TEST_F(ImportTest, TruncatedIdxIsAnInputErrorNamingTheFile) {
  Bytes bytes = idx_file(0x08, {10, 2, 2}, ramp(40));
  bytes.resize(bytes.size() - 3);
  const std::string file = write("short-ubyte", bytes);
  const std::string message = input_error_message([&] { read_idx(file); });
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  EXPECT_NE(message.find(file), std::string::npos) << message;
  EXPECT_NE(message.find("40"), std::string::npos) << message;  // bytes needed

  // A header cut inside the dimension list, and trailing junk after the data.
  const std::string header_only = write("header-ubyte", Bytes{0, 0, 0x08, 3, 0, 0, 0});
  EXPECT_NE(input_error_message([&] { read_idx(header_only); }).find("truncated"), std::string::npos);
  Bytes longer = idx_file(0x08, {2}, {1, 2});
  longer.push_back(9);
  EXPECT_NE(input_error_message([&] { read_idx(write("long-ubyte", longer)); }).find("unexpected bytes"),
            std::string::npos);
}

TEST_F(ImportTest, TruncatedGzipIsAnInputError) {
  const std::string full = write_gzip("full.gz", idx_file(0x08, {200, 10}, std::vector<double>(2000, 7)));
  std::ifstream in(full, std::ios::binary);
  Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.resize(bytes.size() / 2);
  const std::string cut = write("cut-ubyte.gz", bytes);
  const std::string message = input_error_message([&] { read_idx(cut); });
  EXPECT_NE(message.find(cut), std::string::npos) << message;
}

TEST_F(ImportTest, BadIdxMagicAndUnsupportedTypeAreInputErrors) {
  const std::string png = write("image-ubyte", Bytes{0x89, 'P', 'N', 'G', 0, 0, 0, 1, 0});
  const std::string message = input_error_message([&] { read_idx(png); });
  EXPECT_NE(message.find("magic"), std::string::npos) << message;
  EXPECT_NE(message.find("0x89504E47"), std::string::npos) << message;

  const std::string unknown_type = write("type-ubyte", Bytes{0, 0, 0x0A, 1, 0, 0, 0, 1, 5});
  EXPECT_NE(input_error_message([&] { read_idx(unknown_type); }).find("0x0A"), std::string::npos);
}

// ---- NPY ----------------------------------------------------------------------------------------

TEST_F(ImportTest, NpyFloat64IsExactAndFloat32WithinItsPrecision) {
  std::vector<double> values(6 * 4);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(1.0 + i) * std::pow(10.0, int(i % 7) - 3);
  const RowMatrix expected = as_matrix(values, 6, 4);
  for (int major : {1, 2, 3}) {
    const std::string f8 =
        write("f8-v" + std::to_string(major) + ".npy", npy_file("<f8", "(6, 4)", values, major));
    const std::string out = path("f8-v" + std::to_string(major) + ".h5");
    import_to_hdf5(f8, "", out, {});
    EXPECT_TRUE(read_back(out) == expected) << "version " << major;
  }
  // float32 in the NPY file, float32 storage: the file's float32 values come back unchanged.
  const std::string f4 = write("f4.npy", npy_file("<f4", "(6, 4)", values));
  EXPECT_EQ(read_npy(f4).type_name, "float32");
  ImportOptions options;
  options.as_float32 = true;
  import_to_hdf5(f4, "", path("f4.h5"), options);
  const RowMatrix stored = read_back(path("f4.h5"));
  EXPECT_TRUE(stored == to_float32(expected));
  EXPECT_LE((stored - expected).cwiseAbs().maxCoeff(), 1e-7 * expected.cwiseAbs().maxCoeff());
  // float64 data stored as float32: rounded once, to nearest.
  import_to_hdf5(path("f8-v1.npy"), "", path("f8-as-f4.h5"), options);
  EXPECT_TRUE(read_back(path("f8-as-f4.h5")) == to_float32(expected));
}

TEST_F(ImportTest, NpyLabelsOfEveryIntegerDtypeAndBigEndianData) {
  const std::vector<double> labels = {3, 0, 255, 1};
  for (const char* descr : {"<i8", "<i4", "|u1", ">i2"}) {
    const std::string file =
        write(std::string("labels") + (descr + 1) + ".npy", npy_file(descr, "(4,)", labels));
    EXPECT_EQ(to_labels(read_npy(file), file), (std::vector<std::int64_t>{3, 0, 255, 1})) << descr;
  }
  const std::string negative = write("neg.npy", npy_file("<i8", "(2,)", {-5, -9000000000.0}));
  EXPECT_EQ(to_labels(read_npy(negative), negative), (std::vector<std::int64_t>{-5, -9000000000}));

  const std::string data = write("big.npy", npy_file(">f8", "(2, 2)", {1.5, -2, 3, 4e-3}));
  const std::string label_file = write("l.npy", npy_file("<i8", "(2,)", {1, 2}));
  import_to_hdf5(data, label_file, path("out.h5"), {});
  EXPECT_TRUE(read_back(path("out.h5")) == as_matrix({1.5, -2, 3, 4e-3}, 2, 2));
  EXPECT_EQ(read_back_labels(path("out.h5")), (std::vector<std::int64_t>{1, 2}));
}

TEST_F(ImportTest, NpyImagesWithMoreThanTwoDimensionsAreFlattenedInCOrder) {
  const std::string file = write("images.npy", npy_file("|u1", "(2, 2, 3)", ramp(12)));
  const RowMatrix Y = to_data_matrix(read_npy(file), file);
  EXPECT_TRUE(Y == as_matrix(ramp(12), 2, 6));
}

// Fortran order stores the first index fastest: element (i, j, k) of an a x b x c array at
// i + a (j + b k). The payload here is laid out so, by that formula, from the values C order puts
// at i b c + j c + k, so the import must reproduce the C-order ramp.
TEST_F(ImportTest, FortranOrderNpyIsReadTransposedIntoCOrder) {
  const auto fortran_payload = [](const std::vector<Index>& shape) {
    const Index a = shape[0], b = shape[1], c = shape.size() > 2 ? shape[2] : 1;
    std::vector<double> payload(static_cast<std::size_t>(a * b * c));
    for (Index i = 0; i < a; ++i)
      for (Index j = 0; j < b; ++j)
        for (Index k = 0; k < c; ++k)
          payload[static_cast<std::size_t>(i + a * (j + b * k))] = static_cast<double>(i * b * c + j * c + k);
    return payload;
  };
  const std::string matrix = write("f2.npy", npy_file("<f8", "(2, 3)", fortran_payload({2, 3}), 1, true));
  EXPECT_TRUE(to_data_matrix(read_npy(matrix), matrix) == as_matrix(ramp(6), 2, 3));
  const std::string images =
      write("f3.npy", npy_file("|u1", "(4, 3, 2)", fortran_payload({4, 3, 2}), 1, true));
  const NumericArray array = read_npy(images);
  EXPECT_EQ(array.shape, (std::vector<std::uint64_t>{4, 3, 2}));
  EXPECT_TRUE(to_data_matrix(array, images) == as_matrix(ramp(24), 4, 6));
  // A 1-D array is the same in either order.
  const std::string labels = write("f1.npy", npy_file("<i8", "(3,)", {7, 8, 9}, 1, true));
  EXPECT_EQ(to_labels(read_npy(labels), labels), (std::vector<std::int64_t>{7, 8, 9}));
}

TEST_F(ImportTest, UnsupportedNpyDtypeAndMalformedFilesAreInputErrors) {
  for (const char* descr : {"<c8", "<f2", "<U8"}) {
    const std::string file = write("bad.npy", npy_file(descr, "(2,)", {1, 2}));
    const std::string message = input_error_message([&] { read_npy(file); });
    EXPECT_NE(message.find(std::string("'") + descr + "'"), std::string::npos) << message;
  }
  const std::string not_npy = write("x.npy", Bytes{'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 0, 0});
  EXPECT_NE(input_error_message([&] { read_npy(not_npy); }).find("not an NPY file"), std::string::npos);
  Bytes short_data = npy_file("<f8", "(3, 2)", ramp(6));
  short_data.resize(short_data.size() - 8);
  EXPECT_NE(input_error_message([&] { read_npy(write("s.npy", short_data)); }).find("truncated"),
            std::string::npos);
  // 1-D data (a labels array passed as data) and 2-D labels.
  const std::string vec = write("vec.npy", npy_file("<f8", "(3,)", {1, 2, 3}));
  EXPECT_NE(input_error_message([&] { import_to_hdf5(vec, "", path("o.h5"), {}); }).find("2 dimensions"),
            std::string::npos);
  const std::string mat = write("mat.npy", npy_file("<i8", "(2, 2)", {1, 2, 3, 4}));
  EXPECT_NE(input_error_message([&] { to_labels(read_npy(mat), mat); }).find("1-D"), std::string::npos);
  const std::string fractional = write("frac.npy", npy_file("<f8", "(2,)", {1, 2.5}));
  EXPECT_NE(input_error_message([&] { to_labels(read_npy(fractional), fractional); }).find("label 1"),
            std::string::npos);
}

// ---- CSV ----------------------------------------------------------------------------------------

TEST_F(ImportTest, CsvWithHeaderAndNamedLabelColumn) {
  const std::string file = write_text("data.csv",
                                      "x1,\"label\",x2\r\n"
                                      "1.5,3,-2e-3\r\n"
                                      "\r\n"  // blank lines are skipped
                                      "  +4 , 0 ,5\r\n"
                                      "0.1,1,1e10\r\n");
  ImportOptions options;
  options.csv.label_column = "label";
  const ImportSummary summary = import_to_hdf5(file, "", path("out.h5"), options);
  EXPECT_EQ(summary.format, ImportFormat::csv);
  EXPECT_TRUE(summary.has_labels);
  EXPECT_TRUE(read_back(path("out.h5")) == as_matrix({1.5, -2e-3, 4, 5, 0.1, 1e10}, 3, 2));
  EXPECT_EQ(read_back_labels(path("out.h5")), (std::vector<std::int64_t>{3, 0, 1}));
  EXPECT_EQ(read_csv(file, options.csv).column_names, (std::vector<std::string>{"x1", "x2"}));
}

TEST_F(ImportTest, CsvWithoutHeaderLabelColumnByIndexAndFloat32Storage) {
  const std::string file = write_text("data.csv", "0.1,0.2,7\n0.3,0.4,8\n");
  ImportOptions options;
  options.csv.label_column = "2";
  options.as_float32 = true;
  import_to_hdf5(file, "", path("out.h5"), options);
  EXPECT_TRUE(read_back(path("out.h5")) == to_float32(as_matrix({0.1, 0.2, 0.3, 0.4}, 2, 2)));
  EXPECT_EQ(read_back_labels(path("out.h5")), (std::vector<std::int64_t>{7, 8}));

  // Forcing "no header" on a numeric first line keeps it as data; forcing a header drops it.
  CsvOptions forced;
  forced.header = CsvHeader::present;
  EXPECT_EQ(read_csv(file, forced).values.rows(), 1);
  forced.header = CsvHeader::absent;
  EXPECT_EQ(read_csv(file, forced).values.rows(), 2);
}

TEST_F(ImportTest, CsvDataWithASeparateCsvLabelsFile) {
  const std::string data = write_text("data.csv", "a,b\n1,2\n3,4\n5,6\n");
  const std::string labels = write_text("labels.csv", "class\n2\n1\n0\n");
  import_to_hdf5(data, labels, path("out.h5"), {});
  EXPECT_TRUE(read_back(path("out.h5")) == as_matrix({1, 2, 3, 4, 5, 6}, 3, 2));
  EXPECT_EQ(read_back_labels(path("out.h5")), (std::vector<std::int64_t>{2, 1, 0}));
}

TEST_F(ImportTest, RaggedCsvNamesTheLine) {
  const std::string file = write_text("ragged.csv", "a,b,c\n1,2,3\n\n4,5\n");
  const std::string message = input_error_message([&] { read_csv(file); });
  EXPECT_NE(message.find("line 4"), std::string::npos) << message;
  EXPECT_NE(message.find("2 columns, expected 3"), std::string::npos) << message;
  EXPECT_NE(message.find(file), std::string::npos) << message;
}

TEST_F(ImportTest, NonNumericCsvCellNamesLineAndColumn) {
  const std::string file = write_text("bad.csv", "a,b\n1,2\n3,oops\n");
  const std::string message = input_error_message([&] { read_csv(file); });
  EXPECT_NE(message.find("line 3, column 2 ('b')"), std::string::npos) << message;
  EXPECT_NE(message.find("oops"), std::string::npos) << message;
  EXPECT_NE(message.find(file), std::string::npos) << message;

  const std::string empty_cell = write_text("empty.csv", "1,2\n3,\n");
  EXPECT_NE(input_error_message([&] { read_csv(empty_cell); }).find("line 2, column 2"), std::string::npos);
  CsvOptions options;
  options.label_column = "1";
  const std::string fractional_label = write_text("label.csv", "1,2\n3,4.5\n");
  EXPECT_NE(input_error_message([&] { read_csv(fractional_label, options); }).find("not an integer"),
            std::string::npos);
  options.label_column = "nope";
  EXPECT_NE(input_error_message([&] { read_csv(write_text("h.csv", "a,b\n1,2\n"), options); }).find("nope"),
            std::string::npos);
}

TEST_F(ImportTest, NonFiniteValuesAfterScalingAreRefusedLeavingNoOutput) {
  // A "nan" cell, a scale that overflows float64, and one that overflows only the float32 storage.
  const std::string nan_cell = write_text("nan.csv", "1,2\n3,nan\n");
  const std::string nan_message =
      input_error_message([&] { import_to_hdf5(nan_cell, "", path("a.h5"), {}); });
  EXPECT_NE(nan_message.find("row 1, column 1"), std::string::npos) << nan_message;
  EXPECT_NE(nan_message.find(nan_cell), std::string::npos) << nan_message;

  const std::string big = write_text("big.csv", "1,2\n3,4\n");
  ImportOptions overflow;
  overflow.scale = 1e308;  // 2e308 is beyond the largest double, 1.8e308
  const std::string inf_message =
      input_error_message([&] { import_to_hdf5(big, "", path("b.h5"), overflow); });
  EXPECT_NE(inf_message.find("row 0, column 1"), std::string::npos) << inf_message;

  ImportOptions float32;
  float32.scale = 1e38;  // 4e38 is finite in float64, beyond float32's 3.4e38
  float32.as_float32 = true;
  const std::string f32_message =
      input_error_message([&] { import_to_hdf5(big, "", path("c.h5"), float32); });
  EXPECT_NE(f32_message.find("float32"), std::string::npos) << f32_message;
  float32.as_float32 = false;  // the same values are fine in float64
  EXPECT_EQ(import_to_hdf5(big, "", path("d.h5"), float32).rows, 2u);
  EXPECT_EQ(listing(), (std::vector<std::string>{"big.csv", "d.h5", "nan.csv"}));
}

// ---- labels, output and format selection --------------------------------------------------------

TEST_F(ImportTest, LabelsLengthMismatchNamesBothLengthsAndLeavesNoOutput) {
  const std::string images = write("images-ubyte", idx_file(0x08, {5, 2}, ramp(10)));
  const std::string labels = write("labels-ubyte", idx_file(0x08, {4}, {1, 2, 3, 4}));
  const std::string message =
      input_error_message([&] { import_to_hdf5(images, labels, path("out.h5"), {}); });
  EXPECT_NE(message.find("4 entries"), std::string::npos) << message;
  EXPECT_NE(message.find("5 rows"), std::string::npos) << message;
  EXPECT_EQ(listing(), (std::vector<std::string>{"images-ubyte", "labels-ubyte"}));

  const RowMatrix Y = RowMatrix::Ones(3, 2);
  const std::vector<std::int64_t> two = {1, 2};
  EXPECT_THROW(write_dataset_file(path("direct.h5"), Y, &two, false), InputError);
  EXPECT_FALSE(fs::exists(path("direct.h5")));
}

TEST_F(ImportTest, WriteDatasetFileRoundTripsAndReplacesAnOldFileAtomically) {
  RowMatrix Y(3, 2);
  Y << 1, 2, 3, 4, 5, 6;
  const std::vector<std::int64_t> labels = {9, 8, 7};
  write_dataset_file(path("d.h5"), Y, &labels, false, "/data/Y");
  EXPECT_TRUE(read_back(path("d.h5"), "/data/Y") == Y);
  write_dataset_file(path("d.h5"), 2 * Y, nullptr, true, "/data/Y");  // replaces the first file
  EXPECT_TRUE(read_back(path("d.h5"), "/data/Y") == 2 * Y);
  EXPECT_FALSE(inspect_dataset(path("d.h5"), "/data/Y", MPI_COMM_SELF).has_labels);
  EXPECT_EQ(listing(), (std::vector<std::string>{"d.h5"}));
}

TEST_F(ImportTest, UnwritableOutputDirectoryFailsBeforeReadingInput) {
  const std::string missing_dir = path("no/such/dir/out.h5");
  // The input does not exist either: the output check comes first.
  const std::string message =
      input_error_message([&] { import_to_hdf5(path("nothing.npy"), "", missing_dir, {}); });
  EXPECT_NE(message.find(path("no/such/dir")), std::string::npos) << message;
  EXPECT_NE(message.find("directory"), std::string::npos) << message;
}

TEST_F(ImportTest, FormatComesFromTheNameOrTheContent) {
  EXPECT_EQ(detect_format("/x/train-images-idx3-ubyte.gz"), ImportFormat::idx);
  EXPECT_EQ(detect_format("t10k-labels.idx1-ubyte"), ImportFormat::idx);
  EXPECT_EQ(detect_format("a.IDX"), ImportFormat::idx);
  EXPECT_EQ(detect_format("y.npy.gz"), ImportFormat::npy);
  EXPECT_EQ(detect_format("table.csv"), ImportFormat::csv);
  EXPECT_EQ(detect_format(write("arr.bin", npy_file("<f8", "(1, 1)", {1}))), ImportFormat::npy);
  const std::string text = write_text("notes.txt", "1,2\n");
  EXPECT_NE(input_error_message([&] { detect_format(text); }).find("format"), std::string::npos);
  // An explicit format overrides the name.
  ImportOptions options;
  options.format = parse_import_format("csv");
  EXPECT_EQ(import_to_hdf5(text, "", path("t.h5"), options).rows, 1u);
  EXPECT_THROW(parse_import_format("xlsx"), InputError);
  EXPECT_NE(input_error_message([&] { read_idx(path("absent-ubyte")); }).find("does not exist"),
            std::string::npos);
}

}  // namespace
}  // namespace gplvm
