#include "gplvm/io/array_writers.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

static_assert(std::endian::native == std::endian::little, ".npy files are written as little-endian");

constexpr std::size_t kNameBytes = 64;  // the 'S64' name field of named values

std::ofstream open_output(const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot open for writing", {path, "", ""});
  return out;
}

void finish(std::ofstream& out, const std::string& path) {
  out.flush();
  if (!out) throw Error("write failed (disk full?)", {path, "", ""});
}

// Magic, version 1.0, header length and the header dictionary, padded with spaces to a multiple
// of 64 bytes and ended by a newline, as the format requires.
void write_npy_header(std::ofstream& out, const std::string& descr, const std::string& shape) {
  std::string header = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t preamble = 10;
  header.append(64 - (preamble + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  const auto length = static_cast<std::uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(reinterpret_cast<const char*>(&length), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}
std::string number(std::int64_t v) {
  return std::to_string(v);
}

// A 1-D array of `descr` elements, stored as they are in memory (little-endian).
template <typename T>
void write_npy_vector(const std::string& path, const std::string& descr, const std::vector<T>& values) {
  std::ofstream out = open_output(path);
  write_npy_header(out, descr, "(" + std::to_string(values.size()) + ",)");
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(T)));
  finish(out, path);
}

template <typename T>
void write_csv_column(const std::string& path, const std::vector<T>& values, const std::string& header) {
  std::ofstream out = open_output(path);
  out << header << '\n';
  for (const T v : values) out << number(v) << '\n';
  finish(out, path);
}

}  // namespace

void write_npy(const std::string& path, const DataRef& values) {
  std::ofstream out = open_output(path);
  write_npy_header(out, "'<f8'",
                   "(" + std::to_string(values.rows()) + ", " + std::to_string(values.cols()) + ")");
  for (Index r = 0; r < values.rows(); ++r)
    out.write(reinterpret_cast<const char*>(values.row(r).data()),
              static_cast<std::streamsize>(values.cols() * sizeof(double)));
  finish(out, path);
}

void write_npy(const std::string& path, const std::vector<double>& values) {
  write_npy_vector(path, "'<f8'", values);
}

void write_npy(const std::string& path, const std::vector<std::int64_t>& values) {
  write_npy_vector(path, "'<i8'", values);
}

void write_npy(const std::string& path, const NamedValues& values) {
  std::ofstream out = open_output(path);
  write_npy_header(out, "[('name', 'S64'), ('value', '<f8')]", "(" + std::to_string(values.size()) + ",)");
  for (const auto& [name, value] : values) {
    require(name.size() <= kNameBytes, "name longer than 64 bytes", {path, "name", name});
    char field[kNameBytes] = {};
    std::memcpy(field, name.data(), name.size());
    out.write(field, kNameBytes);
    out.write(reinterpret_cast<const char*>(&value), sizeof value);
  }
  finish(out, path);
}

void write_csv(const std::string& path, const DataRef& values, const std::string& header) {
  std::ofstream out = open_output(path);
  out << header << '\n';
  for (Index r = 0; r < values.rows(); ++r) {
    for (Index c = 0; c < values.cols(); ++c) out << (c ? "," : "") << number(values(r, c));
    out << '\n';
  }
  finish(out, path);
}

void write_csv(const std::string& path, const std::vector<double>& values, const std::string& header) {
  write_csv_column(path, values, header);
}

void write_csv(const std::string& path, const std::vector<std::int64_t>& values, const std::string& header) {
  write_csv_column(path, values, header);
}

void write_csv(const std::string& path, const NamedValues& values) {
  std::ofstream out = open_output(path);
  out << "name,value\n";
  for (const auto& [name, value] : values) out << name << ',' << number(value) << '\n';
  finish(out, path);
}

}  // namespace gplvm
