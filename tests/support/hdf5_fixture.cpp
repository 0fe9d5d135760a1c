#include "support/hdf5_fixture.hpp"

#include <hdf5.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace gplvm::testing {
namespace {

hid_t open_file(const std::string& file, bool create) {
  const hid_t f = create ? H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                         : H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("fixture: cannot open " + file);
  return f;
}

void write(const std::string& file, const std::string& path, bool create, int rank, const hsize_t* dims,
           hid_t file_type, hid_t mem_type, const void* data) {
  const hid_t f = open_file(file, create);
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t d = H5Dcreate2(f, path.c_str(), file_type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error("fixture: cannot create " + path);
  H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(d);
  H5Pclose(lcpl);
  H5Sclose(space);
  H5Fclose(f);
}

}  // namespace

void write_fixture_matrix(const std::string& file, const std::string& path, const RowMatrix& m, bool float32,
                          bool create) {
  const hsize_t dims[2] = {static_cast<hsize_t>(m.rows()), static_cast<hsize_t>(m.cols())};
  write(file, path, create, 2, dims, float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m.data());
}

void write_fixture_vector(const std::string& file, const std::string& path, const std::vector<double>& v,
                          bool create) {
  const hsize_t dims[1] = {v.size()};
  write(file, path, create, 1, dims, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data());
}

void write_fixture_labels(const std::string& file, const std::string& path,
                          const std::vector<std::int64_t>& v, bool create) {
  const hsize_t dims[1] = {v.size()};
  write(file, path, create, 1, dims, H5T_STD_I64LE, H5T_NATIVE_INT64, v.data());
}

void write_fixture_string_attribute(const std::string& file, const std::string& object_path,
                                    const std::string& name, const std::string& value) {
  const hid_t f = open_file(file, false);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate_by_name(f, object_path.c_str(), name.c_str(), type, space, H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) throw std::runtime_error("fixture: cannot create attribute " + name + " on " + object_path);
  H5Awrite(a, type, value.data());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(f);
}

void damage_fixture_object_header(const std::string& file, const std::string& object_path) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("fixture: cannot open " + file);
  H5O_info_t info;
  const herr_t status = H5Oget_info_by_name2(f, object_path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT);
  H5Fclose(f);
  if (status < 0) throw std::runtime_error("fixture: no object " + object_path + " in " + file);
  std::fstream bytes(file, std::ios::in | std::ios::out | std::ios::binary);
  bytes.seekp(static_cast<std::streamoff>(info.addr));
  const std::string garbage(16, '\xff');
  bytes.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  if (!bytes) throw std::runtime_error("fixture: cannot damage " + object_path + " in " + file);
}

RowMatrix read_fixture_matrix(const std::string& file, const std::string& path) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("fixture: cannot open " + file);
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  if (d < 0) throw std::runtime_error("fixture: no dataset " + path + " in " + file);
  const hid_t space = H5Dget_space(d);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 1)), 1);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  // Rows are the first dimension; trailing dimensions (N x k x 2, N x S x n x n) are flattened.
  hsize_t width = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) width *= dims[i];
  RowMatrix m(static_cast<Index>(dims[0]), static_cast<Index>(width));
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return m;
}

std::vector<double> read_fixture_vector(const std::string& file, const std::string& path) {
  const RowMatrix m = read_fixture_matrix(file, path);
  return std::vector<double>(m.data(), m.data() + m.size());
}

std::string read_fixture_root_attribute(const std::string& file, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("fixture: cannot open " + file);
  const hid_t a = H5Aopen_by_name(f, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) {
    H5Fclose(f);
    throw std::runtime_error("fixture: no attribute " + name + " in " + file);
  }
  const hid_t type = H5Aget_type(a);
  std::string value;
  if (H5Tis_variable_str(type) > 0) {
    char* text = nullptr;
    H5Aread(a, type, &text);
    value = text ? text : "";
    H5free_memory(text);
  } else {
    std::vector<char> text(H5Tget_size(type) + 1, '\0');
    H5Aread(a, type, text.data());
    value = text.data();
  }
  H5Tclose(type);
  H5Aclose(a);
  H5Fclose(f);
  return value;
}

}  // namespace gplvm::testing
