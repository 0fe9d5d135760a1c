// Hdf5ResultReader (declared in result_writer.hpp next to the writer whose files it reads).
#include <functional>

#include "gplvm/io/dataset_reader.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "hdf5_detail.hpp"

namespace gplvm {
namespace {

using ReadInto = std::function<herr_t(hid_t mem_type, void* buffer)>;

// One value (scalar or a single element), as results and attributes are stored.
void require_single(hid_t space, const ErrorContext& where) {
  const hssize_t points = H5Sget_simple_extent_npoints(space);
  if (points < 0) check_hdf5(-1, "cannot read shape", where);
  if (points != 1) throw InputError("expected a single value, found " + std::to_string(points), where);
}

// Reads a fixed- or variable-length string; `read` does the H5Dread or H5Aread.
std::string read_text(hid_t stored_type, hid_t space, const ReadInto& read, const ErrorContext& where) {
  if (H5Tget_class(stored_type) != H5T_STRING) throw InputError("expected a string", where);
  require_single(space, where);
  const Hdf5Handle mem_type =
      checked_handle(H5Tcopy(stored_type), H5Tclose, "cannot copy string type", where);
  if (H5Tis_variable_str(stored_type) > 0) {
    char* text = nullptr;
    check_hdf5(read(mem_type.get(), &text), "cannot read string", where);
    std::string value = text ? text : "";
    H5Dvlen_reclaim(mem_type.get(), space, H5P_DEFAULT, &text);
    return value;
  }
  std::string buffer(H5Tget_size(stored_type), '\0');
  check_hdf5(read(mem_type.get(), buffer.data()), "cannot read string", where);
  return buffer.substr(0, buffer.find('\0'));  // null padding or termination
}

}  // namespace

Hdf5ResultReader::Hdf5ResultReader(const std::string& path, MPI_Comm comm)
    : file_(Hdf5File::open(path, comm)) {}

bool Hdf5ResultReader::has_attribute(const std::string& object_path, const std::string& name) const {
  if (!file_.exists(object_path)) return false;
  const htri_t found = H5Aexists_by_name(file_.id(), object_path.c_str(), name.c_str(), H5P_DEFAULT);
  check_hdf5(found, "cannot look up attribute", {path(), object_path, name});
  return found > 0;
}

Matrix Hdf5ResultReader::read_matrix(const std::string& dataset_path) const {
  const Hdf5Dataset dataset = file_.open_dataset(dataset_path);
  dataset.require_rank(2, "2-D");
  return read_rows(file_, dataset_path, 0, dataset.dims()[0]);
}

Vector Hdf5ResultReader::read_vector(const std::string& dataset_path) const {
  const Hdf5Dataset dataset = file_.open_dataset(dataset_path);
  dataset.require_rank(1, "1-D");
  dataset.element_type();  // InputError for strings and other non-numeric types
  Vector values(static_cast<Index>(dataset.dims()[0]));
  io_detail::read_row_block(dataset, Communicator(file_.comm()), H5T_NATIVE_DOUBLE, {0, dataset.dims()[0]},
                            values.data());
  return values;
}

Vector Hdf5ResultReader::read_values(const std::string& dataset_path) const {
  if (file_.open_dataset(dataset_path).dims().empty()) return Vector::Constant(1, read_scalar(dataset_path));
  return read_vector(dataset_path);
}

double Hdf5ResultReader::read_scalar(const std::string& dataset_path) const {
  const Hdf5Dataset dataset = file_.open_dataset(dataset_path);
  dataset.element_type();
  const Hdf5Handle space =
      checked_handle(H5Dget_space(dataset.id()), H5Sclose, "cannot read dataset shape", dataset.context());
  require_single(space.get(), dataset.context());
  double value = 0;
  io_detail::read_row_block(dataset, Communicator(file_.comm()), H5T_NATIVE_DOUBLE, {0, 1}, &value);
  return value;
}

std::vector<std::int64_t> Hdf5ResultReader::read_int64_vector(const std::string& dataset_path) const {
  const Hdf5Dataset dataset = file_.open_dataset(dataset_path);
  dataset.require_rank(1, "1-D");
  if (dataset.element_type() != ElementType::integer) {
    throw InputError("dataset must hold integers, not " + dataset.type_name(),
                     dataset.context(dataset.type_name()));
  }
  std::vector<std::int64_t> values(dataset.dims()[0]);
  io_detail::read_row_block(dataset, Communicator(file_.comm()), H5T_NATIVE_INT64, {0, dataset.dims()[0]},
                            values.data());
  return values;
}

std::string Hdf5ResultReader::read_string(const std::string& dataset_path) const {
  const Hdf5Dataset dataset = file_.open_dataset(dataset_path);
  const ErrorContext where = dataset.context();
  const Hdf5Handle type =
      checked_handle(H5Dget_type(dataset.id()), H5Tclose, "cannot read dataset type", where);
  const Hdf5Handle space =
      checked_handle(H5Dget_space(dataset.id()), H5Sclose, "cannot read dataset shape", where);
  // Every rank reads the (small) string independently: no collective transfer is needed.
  return read_text(
      type.get(), space.get(),
      [&](hid_t mem_type, void* buffer) {
        return H5Dread(dataset.id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
      },
      where);
}

Hdf5Handle Hdf5ResultReader::open_attribute(const std::string& object_path, const std::string& name) const {
  const ErrorContext where{path(), object_path, name};
  if (!has_attribute(object_path, name)) throw InputError("attribute not found", where);
  return checked_handle(
      H5Aopen_by_name(file_.id(), object_path.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
      "cannot open attribute", where);
}

std::string Hdf5ResultReader::read_attribute_string(const std::string& object_path,
                                                    const std::string& name) const {
  const ErrorContext where{path(), object_path, name};
  const Hdf5Handle attribute = open_attribute(object_path, name);
  const Hdf5Handle type =
      checked_handle(H5Aget_type(attribute.get()), H5Tclose, "cannot read attribute type", where);
  const Hdf5Handle space =
      checked_handle(H5Aget_space(attribute.get()), H5Sclose, "cannot read attribute shape", where);
  return read_text(
      type.get(), space.get(),
      [&](hid_t mem_type, void* buffer) { return H5Aread(attribute.get(), mem_type, buffer); }, where);
}

namespace {

// A numeric attribute holding one value; integers are accepted where a double is asked for.
template <class T>
T read_numeric_attribute(hid_t attribute, hid_t mem_type, bool integer_only, const ErrorContext& where) {
  const Hdf5Handle type =
      checked_handle(H5Aget_type(attribute), H5Tclose, "cannot read attribute type", where);
  const H5T_class_t type_class = H5Tget_class(type.get());
  const bool numeric = type_class == H5T_INTEGER || (!integer_only && type_class == H5T_FLOAT);
  if (!numeric)
    throw InputError(integer_only ? "attribute is not an integer" : "attribute is not a number", where);
  const Hdf5Handle space =
      checked_handle(H5Aget_space(attribute), H5Sclose, "cannot read attribute shape", where);
  require_single(space.get(), where);
  T value{};
  check_hdf5(H5Aread(attribute, mem_type, &value), "cannot read attribute", where);
  return value;
}

}  // namespace

std::int64_t Hdf5ResultReader::read_attribute_int64(const std::string& object_path,
                                                    const std::string& name) const {
  const Hdf5Handle attribute = open_attribute(object_path, name);
  return read_numeric_attribute<std::int64_t>(attribute.get(), H5T_NATIVE_INT64, true,
                                              {path(), object_path, name});
}

double Hdf5ResultReader::read_attribute_double(const std::string& object_path,
                                               const std::string& name) const {
  const Hdf5Handle attribute = open_attribute(object_path, name);
  return read_numeric_attribute<double>(attribute.get(), H5T_NATIVE_DOUBLE, false,
                                        {path(), object_path, name});
}

std::vector<std::int64_t> Hdf5ResultReader::read_distributed_int64(const std::string& dataset_path,
                                                                   std::uint64_t row_begin,
                                                                   std::uint64_t count) const {
  return read_label_rows(file_, dataset_path, row_begin, count);
}

RowMatrix Hdf5ResultReader::read_distributed_rows(const std::string& dataset_path, std::uint64_t row_begin,
                                                  std::uint64_t count) const {
  return read_rows(file_, dataset_path, row_begin, count);
}

std::vector<std::string> Hdf5ResultReader::group_members(const std::string& group_path) const {
  std::vector<std::string> names;
  if (!exists(group_path)) return names;
  const auto collect = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  H5Literate_by_name(file_.id(), group_path.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names,
                      H5P_DEFAULT);
  return names;
}

}  // namespace gplvm
