// Parallel HDF5 I/O under mpirun at 1-4 ranks: per-rank hyperslab reads (float32 and float64, row
// counts not divisible by the rank count, ranks reading nothing), distributed writes, replicated
// results and attributes, the temporary-file-then-rename protocol, and errors that every rank
// raises together (a rank that threw alone would leave the others hanging in a collective).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/importers.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using testing::contains;

constexpr Index kRows = 37, kCols = 5;

// Known values: row i, column j, distinct everywhere and not exactly representable in float32.
RowMatrix known_data(Index rows = kRows, Index cols = kCols) {
  RowMatrix Y(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) Y(i, j) = 100.0 * i + j + 0.1 * std::sin(1.0 + i * cols + j);
  return Y;
}

std::string broadcast_string(std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  text.resize(length);
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return text;
}

// Every test gets a fresh directory shared by all ranks (same machine), removed afterwards.
class Hdf5Io : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir;
    if (comm_.is_root()) {
      dir = (fs::temp_directory_path() / ("gplvm-hdf5-test-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
      fs::remove_all(dir);
      fs::create_directories(dir);
    }
    dir_ = broadcast_string(dir);
  }
  void TearDown() override {
    comm_.barrier();
    if (comm_.is_root()) fs::remove_all(dir_);
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // Rank 0 writes an input file serially; the others wait for it.
  void write_input(const std::string& file, const RowMatrix& Y, bool as_float32,
                   const std::vector<std::int64_t>* labels = nullptr) const {
    if (comm_.is_root()) write_dataset_file(file, Y, labels, as_float32);
    comm_.barrier();
  }

  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  const Communicator comm_{MPI_COMM_WORLD};
  std::string dir_;
};

// Runs f on this rank, which must throw InputError; returns the error.
template <class F>
InputError expect_input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got: " << e.what();
    return InputError("wrong exception");
  }
  ADD_FAILURE() << "expected InputError, nothing thrown";
  return InputError("nothing thrown");
}

// ---- reading hyperslabs -------------------------------------------------------------------------

TEST_F(Hdf5Io, EachRankReadsItsFloat64AndFloat32RowsExactly) {
  const RowMatrix Y = known_data();
  for (const bool as_float32 : {false, true}) {
    const std::string file = path(as_float32 ? "f32.h5" : "f64.h5");
    write_input(file, Y, as_float32);
    const DatasetInfo info = inspect_dataset(file, "/Y", comm_.raw());
    EXPECT_EQ(info.rows, static_cast<std::uint64_t>(kRows));
    EXPECT_EQ(info.cols, static_cast<std::uint64_t>(kCols));
    EXPECT_EQ(info.type, as_float32 ? ElementType::float32 : ElementType::float64);
    EXPECT_FALSE(info.has_labels);

    const RowPartition part(kRows, comm_.size());
    const std::uint64_t begin = part.begin(comm_.rank()), count = part.count(comm_.rank());
    const RowMatrix local = read_rows(file, "/Y", begin, count, comm_.raw());
    const RowMatrix block = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
    // float32 storage rounds each value once; reading it back converts exactly.
    const RowMatrix expected = as_float32 ? RowMatrix(block.cast<float>().cast<double>()) : block;
    EXPECT_TRUE(local == expected) << "float32 " << as_float32 << " rank " << comm_.rank();
    if (as_float32) {
      EXPECT_LE((local - block).cwiseAbs().maxCoeff(), 4e3 * std::numeric_limits<float>::epsilon());
    }
  }
}

TEST_F(Hdf5Io, RanksReadingNoRowsStillTakePartInTheCollectiveRead) {
  const RowMatrix Y = known_data();
  const std::string file = path("y.h5");
  write_input(file, Y, false);
  // Odd ranks read nothing (at the start, the middle and the end of the dataset); even ranks
  // read overlapping blocks that are not a partition.
  const int r = comm_.rank();
  const std::uint64_t begin = r % 2 ? (r == 1 ? 0 : kRows) : static_cast<std::uint64_t>(3 * r);
  const std::uint64_t count = r % 2 ? 0 : 11;
  const RowMatrix local = read_rows(file, "/Y", begin, count, comm_.raw());
  EXPECT_EQ(local.rows(), static_cast<Index>(count));
  EXPECT_EQ(local.cols(), kCols);
  if (count > 0) {
    EXPECT_TRUE(local == Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count)));
  }

  // Only the last rank reads anything.
  const bool last = r == comm_.size() - 1;
  const RowMatrix tail = read_rows(file, "/Y", last ? kRows - 2 : 0, last ? 2 : 0, comm_.raw());
  EXPECT_EQ(tail.rows(), last ? 2 : 0);
  if (last) {
    EXPECT_TRUE(tail == Y.bottomRows(2));
  }
}

TEST_F(Hdf5Io, LabelsAreReadPerRankAndTheirLengthIsValidated) {
  const RowMatrix Y = known_data();
  std::vector<std::int64_t> labels(kRows);
  for (Index i = 0; i < kRows; ++i) labels[i] = (i * 7) % 10 - 3;
  const std::string file = path("labelled.h5");
  write_input(file, Y, true, &labels);
  const DatasetInfo info = inspect_dataset(file, "/Y", comm_.raw());
  EXPECT_TRUE(info.has_labels);
  EXPECT_EQ(info.label_count, static_cast<std::uint64_t>(kRows));
  validate_labels_length(file, kDefaultLabelsPath, info.label_count, info.rows);

  const RowPartition part(kRows, comm_.size());
  const std::uint64_t begin = part.begin(comm_.rank()), count = part.count(comm_.rank());
  const auto local = read_label_rows(file, kDefaultLabelsPath, begin, count, comm_.raw());
  EXPECT_EQ(local, std::vector<std::int64_t>(labels.begin() + begin, labels.begin() + begin + count));

  const InputError e = expect_input_error([&] { validate_labels_length(file, "/labels", 36, 37); });
  EXPECT_TRUE(contains(e.what(), "36")) << e.what();
  EXPECT_TRUE(contains(e.what(), "37")) << e.what();
  EXPECT_EQ(e.context().file, file);
  EXPECT_EQ(e.context().key, "/labels");
}

TEST_F(Hdf5Io, AHyperslabOutOfRangeOnOneRankFailsOnEveryRank) {
  const std::string file = path("y.h5");
  write_input(file, known_data(), false);
  const bool last = comm_.rank() == comm_.size() - 1;
  // Only the last rank asks for too much; every rank must throw (and none may hang).
  const InputError e =
      expect_input_error([&] { read_rows(file, "/Y", last ? 30 : 0, last ? 8 : 1, comm_.raw()); });
  EXPECT_TRUE(contains(e.what(), "[30, 38)")) << e.what();
  EXPECT_TRUE(contains(e.what(), "37 rows")) << e.what();
  EXPECT_EQ(e.context().file, file);
  EXPECT_EQ(e.context().key, "/Y");
  // The file is still usable afterwards.
  EXPECT_EQ(read_rows(file, "/Y", 0, 1, comm_.raw()).rows(), 1);
}

// ---- errors naming the file and the path ---------------------------------------------------------

TEST_F(Hdf5Io, MissingFileDatasetWrongRankAndTypeAreInputErrors) {
  const std::string absent = path("absent.h5");
  InputError e = expect_input_error([&] { inspect_dataset(absent, "/Y", comm_.raw()); });
  EXPECT_EQ(e.context().file, absent);
  EXPECT_TRUE(contains(e.what(), "does not exist")) << e.what();

  const std::string text_file = path("notes.txt");
  if (comm_.is_root()) std::ofstream(text_file) << "not hdf5\n";
  comm_.barrier();
  e = expect_input_error([&] { read_rows(text_file, "/Y", 0, 0, comm_.raw()); });
  EXPECT_TRUE(contains(e.what(), "not an HDF5 file")) << e.what();

  const std::string file = path("results.h5");
  {
    Hdf5ResultWriter out(file, comm_.raw());
    out.write_vector("/vector", Vector::LinSpaced(4, 0, 1));
    out.write_string("/text", "hello");
    out.write_int64_vector("/ints", {1, 2, 3});
    out.write_matrix("/group/m", Matrix::Ones(2, 2));
    out.commit();
  }
  e = expect_input_error([&] { inspect_dataset(file, "/nope", comm_.raw()); });
  EXPECT_EQ(e.context().file, file);
  EXPECT_EQ(e.context().key, "/nope");
  EXPECT_TRUE(contains(e.what(), "not found")) << e.what();
  e = expect_input_error([&] { read_rows(file, "/vector", 0, 1, comm_.raw()); });
  EXPECT_EQ(e.context().key, "/vector");
  EXPECT_TRUE(contains(e.what(), "2-D")) << e.what();
  EXPECT_TRUE(contains(e.what(), "1-D (4)")) << e.what();
  e = expect_input_error([&] { inspect_dataset(file, "/text", comm_.raw()); });
  EXPECT_TRUE(contains(e.what(), "string")) << e.what();
  e = expect_input_error([&] { inspect_dataset(file, "/group", comm_.raw()); });
  EXPECT_TRUE(contains(e.what(), "not a dataset")) << e.what();
  e = expect_input_error([&] { read_label_rows(file, "/vector", 0, 1, comm_.raw()); });
  EXPECT_TRUE(contains(e.what(), "integers")) << e.what();
}

TEST_F(Hdf5Io, NonFiniteValueIsReportedWithItsGlobalRow) {
  RowMatrix Y = known_data();
  Y(23, 2) = std::numeric_limits<double>::quiet_NaN();
  Y(30, 0) = std::numeric_limits<double>::infinity();
  const std::string file = path("nan.h5");
  write_input(file, Y, false);
  const RowPartition part(kRows, comm_.size());
  const std::uint64_t begin = part.begin(comm_.rank()), count = part.count(comm_.rank());
  const RowMatrix local = read_rows(file, "/Y", begin, count, comm_.raw());  // reading does not judge values

  // Every rank learns of the first bad row, including ranks that own only finite rows.
  const InputError e =
      expect_input_error([&] { require_finite_rows(local, begin, file, "/Y", comm_.raw()); });
  EXPECT_EQ(e.context().key, "row");
  EXPECT_EQ(e.context().value, "23");
  EXPECT_EQ(e.context().file, file);
  EXPECT_TRUE(contains(e.what(), "/Y")) << e.what();

  // The per-rank form judges only this rank's rows.
  const bool owns_23 = begin <= 23 && 23 < begin + count, owns_30 = begin <= 30 && 30 < begin + count;
  if (owns_23 || owns_30) {
    const InputError own = expect_input_error([&] { require_finite_rows(local, begin, file, "/Y"); });
    EXPECT_EQ(own.context().value, owns_23 ? "23" : "30");
  } else {
    EXPECT_NO_THROW(require_finite_rows(local, begin, file, "/Y"));
  }
}

// fp32 models hold their rows as float32: the rows must be the fp64 values rounded once, and a
// finite fp64 value beyond float32's range must not slip through (HDF5 makes it Inf, which the
// finiteness check reports with its row), never a silently clamped number.
TEST_F(Hdf5Io, Float32LoadingRoundsOnceAndReportsValuesOutOfRange) {
  RowMatrix Y = known_data();
  const std::string file = path("f64_for_f32.h5");
  write_input(file, Y, false);
  const RowPartition part(kRows, comm_.size());
  const std::uint64_t begin = part.begin(comm_.rank()), count = part.count(comm_.rank());
  const RowMatrixF local = read_rows_float32(file, "/Y", begin, count, comm_.raw());
  const RowMatrix block = Y.middleRows(static_cast<Index>(begin), static_cast<Index>(count));
  EXPECT_TRUE(local == block.cast<float>()) << "rank " << comm_.rank();

  Y(17, 1) = 1e300;
  const std::string big = path("too_big.h5");
  write_input(big, Y, false);
  const RowMatrixF rows = read_rows_float32(big, "/Y", begin, count, comm_.raw());
  const InputError e = expect_input_error([&] { require_finite_rows(rows, begin, big, "/Y", comm_.raw()); });
  EXPECT_EQ(e.context().value, "17");
  EXPECT_TRUE(contains(e.what(), "float32")) << e.what();
}

// ---- writing results ----------------------------------------------------------------------------

TEST_F(Hdf5Io, DistributedRowsWrittenByEveryRankReadBackUnderAnotherPartition) {
  const RowMatrix Y = known_data(kRows, 3);
  const std::string file = path("latent.h5");
  const RowPartition part(kRows, comm_.size());
  const Index begin = static_cast<Index>(part.begin(comm_.rank())),
              count = static_cast<Index>(part.count(comm_.rank()));
  {
    Hdf5ResultWriter out(file, comm_.raw());
    out.write_distributed_rows("/latent/mean", Y.middleRows(begin, count), begin, kRows);
    out.write_distributed_rows("/latent/var32", Y.middleRows(begin, count), begin, kRows,
                               StorageType::float32);
    // A column block: its rows are not adjacent in memory.
    out.write_distributed_rows("/left", Y.middleRows(begin, count).leftCols(2), begin, kRows);
    // Two rows over up to four ranks: ranks without rows pass an empty 0 x 0 block.
    const RowPartition small(2, comm_.size());
    const auto small_begin = static_cast<Index>(small.begin(comm_.rank()));
    const auto small_count = static_cast<Index>(small.count(comm_.rank()));
    const RowMatrix mine = small_count > 0 ? RowMatrix(Y.middleRows(small_begin, small_count)) : RowMatrix();
    out.write_distributed_rows("/small", mine, small.begin(comm_.rank()), 2);
    std::vector<std::int64_t> labels(count);
    for (Index i = 0; i < count; ++i) labels[i] = 1000 - 3 * (begin + i);
    out.write_distributed_int64("/labels", labels, begin, kRows);
    out.commit();
  }
  const Hdf5ResultReader in(file, comm_.raw());
  EXPECT_TRUE(in.read_matrix("/latent/mean") == Matrix(Y));  // the whole matrix on every rank
  EXPECT_TRUE(in.read_matrix("/latent/var32") == Matrix(Y.cast<float>().cast<double>()));
  EXPECT_TRUE(in.read_matrix("/small") == Matrix(Y.topRows(2)));
  EXPECT_TRUE(in.read_matrix("/left") == Matrix(Y.leftCols(2)));
  // Blocks in reverse rank order: where rows are stored does not depend on who wrote them.
  const int mirrored = comm_.size() - 1 - comm_.rank();
  const auto b = part.begin(mirrored), c = part.count(mirrored);
  EXPECT_TRUE(in.read_distributed_rows("/latent/mean", b, c) ==
              Y.middleRows(static_cast<Index>(b), static_cast<Index>(c)));
  EXPECT_EQ(inspect_dataset(file, "/latent/var32", comm_.raw()).type, ElementType::float32);
  const std::vector<std::int64_t> labels = in.read_distributed_int64("/labels", b, c);
  ASSERT_EQ(labels.size(), c);
  for (std::uint64_t i = 0; i < c; ++i) EXPECT_EQ(labels[i], 1000 - 3 * static_cast<std::int64_t>(b + i));
  EXPECT_EQ(read_label_rows(file, "/labels", b, c, comm_.raw()), labels);
}

TEST_F(Hdf5Io, BlocksThatDoNotTileTheRowsAreRejectedBeforeAnythingIsWritten) {
  const RowMatrix Y = known_data(4, 2);
  Hdf5ResultWriter out(path("bad.h5"), comm_.raw());
  // Every rank claims rows [0, 1): with one rank rows 1..3 are missing, with more they overlap.
  EXPECT_THROW(out.write_distributed_rows("/gap", Y.topRows(1), 0, 4), Error);
  // A block past the end on the last rank only.
  const bool last = comm_.rank() == comm_.size() - 1;
  const RowMatrix none(0, 2);
  EXPECT_THROW(out.write_distributed_rows("/far", last ? DataRef(Y) : DataRef(none), last ? 1 : 0, 4),
               InputError);
  // Blocks of different widths.
  const RowPartition part(4, comm_.size());
  const Index b = static_cast<Index>(part.begin(comm_.rank())),
              c = static_cast<Index>(part.count(comm_.rank()));
  const RowMatrix narrow = Y.middleRows(b, c).leftCols(comm_.rank() == 0 ? 1 : 2);
  if (comm_.size() > 1) {
    EXPECT_THROW(out.write_distributed_rows("/ragged", narrow, b, 4), Error);
  }
  out.commit();
  EXPECT_FALSE(Hdf5ResultReader(path("bad.h5"), comm_.raw()).exists("/gap"));
}

TEST_F(Hdf5Io, AFailedRenameRaisesOnEveryRankAndRemovesTheTemporaryFile) {
  const std::string file = path("out.h5");
  Hdf5ResultWriter out(file, comm_.raw());
  out.write_scalar("/x", 1.0);
  // A non-empty directory appears at the final name after the startup check: rename(2) fails.
  if (comm_.is_root()) {
    fs::create_directories(file + "/inside");
  }
  comm_.barrier();
  try {
    out.commit();
    ADD_FAILURE() << "commit over a non-empty directory succeeded";
  } catch (const InputError& e) {
    ADD_FAILURE() << "a failed rename is a system error, not bad input: " << e.what();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "rename")) << e.what();
    EXPECT_EQ(e.context().file, file);
  }
  EXPECT_FALSE(out.committed());
  EXPECT_FALSE(fs::exists(out.temp_path()));
  comm_.barrier();
  EXPECT_EQ(listing(), std::vector<std::string>{"out.h5"});  // only the directory
}

TEST_F(Hdf5Io, ReplicatedDataStringsScalarsAndAttributesRoundTrip) {
  const std::string file = path("run.h5");
  Matrix m(3, 2);  // column-major in memory, stored row-major: (i, j) must survive
  m << 1, 2, 3, 4, 5, 6;
  const std::string config = "[train]\nlr = 1e-3\nname = \"caf\xc3\xa9\"\n";
  {
    Hdf5ResultWriter out(file, comm_.raw());
    out.write_matrix("/train/curve", m);
    out.write_vector("/params/kernel/lengthscales", Vector::LinSpaced(3, 0.5, 1.5));
    out.write_scalar("/params/kernel/variance", 0.8125);
    out.write_int64_vector("/ints", {-1, 0, std::numeric_limits<std::int64_t>::max()});
    out.write_string("/config", config);
    out.write_string("/empty", "");
    out.write_attribute("/", "version", "0.1.0");
    out.write_attribute("/", "ranks", comm_.size());
    out.write_attribute("/", "seed", std::int64_t{-42});
    out.write_attribute("/train/curve", "scale", 2.5);
    out.write_attribute("/meta/run", "status", "first");   // creates the group
    out.write_attribute("/meta/run", "status", "second");  // replaces the attribute
    out.commit();
  }
  const Hdf5ResultReader in(file, comm_.raw());
  EXPECT_TRUE(in.read_matrix("/train/curve") == m);
  EXPECT_TRUE(read_rows(file, "/train/curve", 1, 1, comm_.raw()) == RowMatrix(m.row(1)));
  EXPECT_TRUE(in.read_vector("/params/kernel/lengthscales") == Vector::LinSpaced(3, 0.5, 1.5));
  EXPECT_EQ(in.read_scalar("/params/kernel/variance"), 0.8125);
  EXPECT_EQ(in.read_int64_vector("/ints"),
            (std::vector<std::int64_t>{-1, 0, std::numeric_limits<std::int64_t>::max()}));
  EXPECT_EQ(in.read_string("/config"), config);
  EXPECT_EQ(in.read_string("/empty"), "");
  EXPECT_EQ(in.read_attribute_string("/", "version"), "0.1.0");
  EXPECT_EQ(in.read_attribute_int64("/", "ranks"), comm_.size());
  EXPECT_EQ(in.read_attribute_int64("/", "seed"), -42);
  EXPECT_EQ(in.read_attribute_double("/", "seed"), -42.0);  // integers widen to double
  EXPECT_EQ(in.read_attribute_double("/train/curve", "scale"), 2.5);
  EXPECT_EQ(in.read_attribute_string("/meta/run", "status"), "second");
  EXPECT_TRUE(in.exists("/params/kernel"));
  EXPECT_FALSE(in.exists("/params/nothing/here"));
  EXPECT_TRUE(in.has_attribute("/", "seed"));
  EXPECT_FALSE(in.has_attribute("/", "absent"));
  EXPECT_FALSE(in.has_attribute("/absent", "x"));

  InputError e = expect_input_error([&] { in.read_attribute_int64("/train/curve", "scale"); });
  EXPECT_TRUE(contains(e.what(), "not an integer")) << e.what();
  e = expect_input_error([&] { in.read_attribute_string("/", "absent"); });
  EXPECT_EQ(e.context().value, "absent");
  e = expect_input_error([&] { in.read_scalar("/params/kernel/lengthscales"); });
  EXPECT_EQ(e.context().key, "/params/kernel/lengthscales");
  e = expect_input_error([&] { in.read_string("/params/kernel/variance"); });
  EXPECT_TRUE(contains(e.what(), "string")) << e.what();
}

TEST_F(Hdf5Io, WriterDestroyedWithoutCommitLeavesNothingBehind) {
  const std::string file = path("out.h5");
  std::string temp;
  {
    Hdf5ResultWriter out(file, comm_.raw());
    temp = out.temp_path();
    EXPECT_EQ(fs::path(temp).parent_path(), fs::path(file).parent_path());
    EXPECT_TRUE(contains(temp, "out.h5.tmp-"));
    out.write_scalar("/x", 1.0);
    EXPECT_TRUE(fs::exists(temp));
    EXPECT_FALSE(fs::exists(file));
    comm_.barrier();  // every rank has looked before rank 0 removes the file
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(file));

  // The same when an exception unwinds the writer (on every rank, as errors here are collective).
  try {
    Hdf5ResultWriter out(file, comm_.raw());
    temp = out.temp_path();
    out.write_scalar("/x", 1.0);
    read_rows(path("absent.h5"), "/Y", 0, 0, comm_.raw());
    ADD_FAILURE() << "expected an exception";
  } catch (const InputError&) {
  }
  // Unwinding, the writer waits for no other rank: rank 0 removes the file by the barrier.
  comm_.barrier();
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_TRUE(listing().empty());
}

TEST_F(Hdf5Io, CommitProducesExactlyTheFinalFileAndReplacesAnOldOne) {
  const std::string file = path("out.h5");
  for (const double value : {1.0, 2.0}) {
    Hdf5ResultWriter out(file, comm_.raw());
    EXPECT_EQ(out.final_path(), file);
    out.write_scalar("/value", value);
    out.commit();
    EXPECT_TRUE(out.committed());
    // Every rank sees the final file as soon as commit returns.
    EXPECT_EQ(listing(), std::vector<std::string>{"out.h5"});
    comm_.barrier();  // no rank's next writer may probe the directory while another lists it
    EXPECT_EQ(Hdf5ResultReader(file, comm_.raw()).read_scalar("/value"), value);
    EXPECT_THROW(out.write_scalar("/late", 0.0), Error);  // nothing after commit
  }
}

TEST_F(Hdf5Io, UnwritableOutputDirectoryIsAnInputErrorNamingIt) {
  const std::string missing = path("no/such");
  InputError e = expect_input_error([&] { Hdf5ResultWriter out(missing + "/out.h5", comm_.raw()); });
  EXPECT_TRUE(contains(e.what(), missing)) << e.what();
  EXPECT_EQ(e.context().key, "directory");
  EXPECT_EQ(e.context().value, missing);
  EXPECT_THROW(Hdf5ResultWriter::check_writable(path("notes.txt/out.h5")), InputError);  // parent absent
  EXPECT_THROW(Hdf5ResultWriter::check_writable(dir_), InputError);  // a directory, not a file name
  EXPECT_NO_THROW(Hdf5ResultWriter::check_writable(path("fine.h5")));

  // A read-only directory (permissions do not stop root, so only checked for other users).
  const std::string locked = path("locked");
  if (comm_.is_root()) {
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  }
  comm_.barrier();
  if (::geteuid() != 0) {
    e = expect_input_error([&] { Hdf5ResultWriter out(locked + "/out.h5", comm_.raw()); });
    EXPECT_TRUE(contains(e.what(), "not writable")) << e.what();
  }
  comm_.barrier();
  if (comm_.is_root()) fs::permissions(locked, fs::perms::owner_all);
  EXPECT_TRUE(fs::is_empty(locked));  // the probe file was removed
}

// ---- a full disk ---------------------------------------------------------------------------------

// A tmpfs of two pages mounted by rank 0 at <dir>/full (root only), seen by every rank.
class FullDisk {
 public:
  FullDisk(const Communicator& comm, std::string path) : comm_(comm), path_(std::move(path)) {
    int mounted = 0;
    if (comm_.is_root()) {
      fs::create_directories(path_);
      mounted = ::geteuid() == 0 && ::mount("tmpfs", path_.c_str(), "tmpfs", 0, "size=8k") == 0;
    }
    mounted_ = comm_.allreduce_max(std::int64_t{mounted}) > 0;
  }
  ~FullDisk() {
    comm_.barrier();
    if (mounted_ && comm_.is_root()) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  bool empty() const { return fs::is_empty(path_); }

 private:
  const Communicator& comm_;
  std::string path_;
  bool mounted_ = false;
};

// Runs f, which must throw a gplvm Error that is not an InputError; returns it.
template <class F>
Error expect_system_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    ADD_FAILURE() << "a full disk is not bad input: " << e.what();
    return e;
  } catch (const Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected gplvm::Error, got: " << e.what();
    return Error("wrong exception");
  }
  ADD_FAILURE() << "expected an error, nothing thrown";
  return Error("nothing thrown");
}

// Every rank throws the same agreed error naming the output; no HDF5 file stays open on any rank
// (HDF5 would close it again at exit, which crashes after a failed flush); no file is left.
void expect_clean_failure(const Error& e, const std::string& file, const FullDisk& disk) {
  EXPECT_EQ(e.context().file, file) << e.what();
  EXPECT_TRUE(e.agreed() || Communicator().size() == 1) << e.what();
  EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
  Communicator().barrier();
  EXPECT_TRUE(disk.empty());
}

TEST_F(Hdf5Io, DistributedRowsThatDoNotFitFailOnEveryRankAndLeaveNothingOpen) {
  const FullDisk disk(comm_, path("full"));
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string file = path("full/out.h5");
  const RowPartition rows(2000, comm_.size());
  const RowMatrix Y = RowMatrix::Constant(rows.count(comm_.rank()), 8, 1.5);  // 128 kB in all
  const Error e = expect_system_error([&] {
    Hdf5ResultWriter out(file, comm_.raw());
    out.write_distributed_rows("/Y", Y, rows.begin(comm_.rank()), 2000);
    out.commit();
  });
  expect_clean_failure(e, file, disk);
}

TEST_F(Hdf5Io, AFinalFlushThatCannotFitFailsBeforeHdf5CanBeLeftHalfClosed) {
  const FullDisk disk(comm_, path("full"));
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string file = path("full/out.h5");
  Hdf5ResultWriter out(file, comm_.raw());
  for (int i = 0; i < 4; ++i) out.write_vector("/v" + std::to_string(i), Vector::Constant(100, 0.5));
  const Error e = expect_system_error([&] { out.commit(); });
  EXPECT_TRUE(contains(e.what(), "reserve")) << e.what();
  EXPECT_FALSE(out.committed());
  expect_clean_failure(e, file, disk);
}

}  // namespace
}  // namespace gplvm
