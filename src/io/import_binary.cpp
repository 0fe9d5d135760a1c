// Binary importers: gzip-transparent file reading, IDX and NPY.
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/core/parse_number.hpp"
#include "gplvm/io/importers.hpp"

namespace gplvm {
namespace {

// How one stored element is decoded into a double.
struct ElementCodec {
  enum Kind { floating, signed_int, unsigned_int } kind = floating;
  std::size_t size = 8;
  bool big_endian = false;
  std::string name;
};

std::uint64_t load_bits(const unsigned char* p, std::size_t size, bool big_endian) {
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t shift = 8 * (big_endian ? size - 1 - i : i);
    bits |= static_cast<std::uint64_t>(p[i]) << shift;
  }
  return bits;
}

double decode(const unsigned char* p, const ElementCodec& c) {
  const std::uint64_t bits = load_bits(p, c.size, c.big_endian);
  switch (c.kind) {
    case ElementCodec::floating:
      return c.size == 4 ? static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                         : std::bit_cast<double>(bits);
    case ElementCodec::signed_int: {
      const std::size_t unused = 64 - 8 * c.size;  // sign-extend from the stored width
      return static_cast<double>(static_cast<std::int64_t>(bits << unused) >> unused);
    }
    case ElementCodec::unsigned_int:
      return static_cast<double>(bits);
  }
  return 0;
}

// Product of the dimensions, or InputError when it overflows (a corrupt header).
std::uint64_t element_count(const std::vector<std::uint64_t>& shape, const std::string& path) {
  std::uint64_t count = 1;
  for (std::uint64_t d : shape) {
    if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / d) {
      throw InputError("array dimensions overflow: corrupt header", ErrorContext(path));
    }
    count *= d;
  }
  return count;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? " x " : "") + std::to_string(shape[i]);
  return text.empty() ? "scalar" : text;
}

// Where each element of a walk in C order (last index fastest) lies in a Fortran-order payload
// (first index fastest): an odometer over the C index that carries the Fortran offset with it, so
// a transposed read needs no second copy of the array.
class FortranOffsets {
 public:
  explicit FortranOffsets(const std::vector<std::uint64_t>& shape)
      : shape_(shape), index_(shape.size(), 0), stride_(shape.size()) {
    std::uint64_t stride = 1;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      stride_[k] = stride;
      stride *= shape[k];
    }
  }
  std::uint64_t offset() const { return offset_; }
  void advance() {
    for (std::size_t k = shape_.size(); k-- > 0;) {
      offset_ += stride_[k];
      if (++index_[k] < shape_[k]) return;
      offset_ -= stride_[k] * shape_[k];  // this index wraps to 0 and the one before it moves
      index_[k] = 0;
    }
  }

 private:
  std::vector<std::uint64_t> shape_, index_, stride_;
  std::uint64_t offset_ = 0;
};

// Checks the payload size, then decodes it into a (shape[0] x rest) matrix in C order, reading
// a Fortran-order payload transposed.
NumericArray decode_array(const std::vector<unsigned char>& bytes, std::size_t offset,
                          std::vector<std::uint64_t> shape, const ElementCodec& codec,
                          const std::string& path, bool fortran_order = false) {
  if (shape.empty())
    throw InputError("a scalar (0-dimensional) array holds no data rows", ErrorContext(path));
  const std::uint64_t count = element_count(shape, path);
  if (count > std::numeric_limits<std::uint64_t>::max() / codec.size) {
    throw InputError("array dimensions overflow: corrupt header", ErrorContext(path));
  }
  const std::uint64_t expected = count * codec.size, present = bytes.size() - offset;
  if (present < expected) {
    throw InputError("file is truncated: a " + shape_text(shape) + " " + codec.name + " array needs " +
                         std::to_string(expected) + " data bytes, the file has " + std::to_string(present),
                     ErrorContext(path, "data bytes", std::to_string(present)));
  }
  if (present > expected) {
    throw InputError(std::to_string(present - expected) + " unexpected bytes after the " + shape_text(shape) +
                         " array: corrupt or not this format",
                     ErrorContext(path, "data bytes", std::to_string(present)));
  }
  NumericArray array;
  array.values.resize(static_cast<Index>(shape[0]), static_cast<Index>(shape[0] ? count / shape[0] : 0));
  const unsigned char* p = bytes.data() + offset;
  double* out = array.values.data();
  if (fortran_order) {
    FortranOffsets source(shape);
    for (std::uint64_t i = 0; i < count; ++i, source.advance())
      out[i] = decode(p + source.offset() * codec.size, codec);
  } else {
    for (std::uint64_t i = 0; i < count; ++i, p += codec.size) out[i] = decode(p, codec);
  }
  array.shape = std::move(shape);
  array.integer = codec.kind != ElementCodec::floating;
  array.type_name = codec.name;
  return array;
}

ElementCodec idx_codec(unsigned char type, const std::string& path) {
  switch (type) {
    case 0x08:
      return {ElementCodec::unsigned_int, 1, true, "uint8"};
    case 0x09:
      return {ElementCodec::signed_int, 1, true, "int8"};
    case 0x0B:
      return {ElementCodec::signed_int, 2, true, "int16"};
    case 0x0C:
      return {ElementCodec::signed_int, 4, true, "int32"};
    case 0x0D:
      return {ElementCodec::floating, 4, true, "float32"};
    case 0x0E:
      return {ElementCodec::floating, 8, true, "float64"};
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", type);
      throw InputError(
          std::string("unsupported IDX element type ") + hex +
              " (supported: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64)",
          ErrorContext(path, "type", hex));
    }
  }
}

// ---- NPY header ------------------------------------------------------------------------------

// The text after `'key':` in the header dict (keys may use either quote style).
std::size_t find_value(const std::string& header, const std::string& key, const std::string& path) {
  for (const char quote : {'\'', '"'}) {
    const std::size_t k = header.find(quote + key + quote);
    if (k == std::string::npos) continue;
    std::size_t p = header.find(':', k + key.size() + 2);
    if (p == std::string::npos) break;
    p = header.find_first_not_of(" \t", p + 1);
    if (p != std::string::npos) return p;
  }
  throw InputError("NPY header has no '" + key + "' entry", ErrorContext(path, "header", header));
}

std::string parse_descr(const std::string& header, const std::string& path) {
  const std::size_t p = find_value(header, "descr", path);
  const char quote = header[p];
  if (quote != '\'' && quote != '"') {
    throw InputError("unsupported NPY dtype: structured arrays are not supported",
                     ErrorContext(path, "descr", header));
  }
  const std::size_t end = header.find(quote, p + 1);
  if (end == std::string::npos)
    throw InputError("malformed NPY header", ErrorContext(path, "header", header));
  return header.substr(p + 1, end - p - 1);
}

bool parse_fortran_order(const std::string& header, const std::string& path) {
  const std::size_t p = find_value(header, "fortran_order", path);
  if (header.compare(p, 4, "True") == 0) return true;
  if (header.compare(p, 5, "False") == 0) return false;
  throw InputError("malformed NPY header: fortran_order is neither True nor False",
                   ErrorContext(path, "header", header));
}

std::vector<std::uint64_t> parse_shape(const std::string& header, const std::string& path) {
  const std::size_t open = find_value(header, "shape", path);
  const std::size_t close = header.find(')', open);
  if (header[open] != '(' || close == std::string::npos) {
    throw InputError("malformed NPY header: shape is not a tuple", ErrorContext(path, "header", header));
  }
  std::vector<std::uint64_t> shape;
  std::size_t p = open + 1;
  while (p < close) {
    const std::size_t comma = std::min(header.find(',', p), close);
    const std::string item = header.substr(p, comma - p);
    const std::size_t first = item.find_first_not_of(" \tL");
    if (first != std::string::npos) {
      const std::string digits = item.substr(first, item.find_last_not_of(" \tL") - first + 1);
      const auto extent = read_unsigned(digits);
      if (!extent || digits.find_first_not_of("0123456789") != std::string::npos) {
        throw InputError("malformed NPY header: bad shape entry '" + digits + "'",
                         ErrorContext(path, "header", header));
      }
      shape.push_back(*extent);
    }
    p = comma + 1;
  }
  return shape;
}

ElementCodec npy_codec(const std::string& descr, const std::string& path) {
  const auto unsupported = [&] {
    return InputError("unsupported NPY dtype '" + descr +
                          "' (supported: '<f4', '<f8', '<i1'..'<i8', '|u1', '<u2', '<u4', either byte order)",
                      ErrorContext(path, "descr", descr));
  };
  if (descr.size() < 3) throw unsupported();
  const char order = descr[0], kind = descr[1];
  const std::string size_text = descr.substr(2);
  if (order != '<' && order != '>' && order != '|' && order != '=') throw unsupported();
  if (size_text.size() != 1 || size_text[0] < '1' || size_text[0] > '8') throw unsupported();
  const std::size_t size = static_cast<std::size_t>(size_text[0] - '0');
  const bool big = order == '>' || (order == '=' && std::endian::native == std::endian::big);
  if (kind == 'f' && (size == 4 || size == 8))
    return {ElementCodec::floating, size, big, "float" + std::to_string(8 * size)};
  if (kind == 'i' && (size == 1 || size == 2 || size == 4 || size == 8)) {
    return {ElementCodec::signed_int, size, big, "int" + std::to_string(8 * size)};
  }
  if (kind == 'u' && (size == 1 || size == 2 || size == 4)) {
    return {ElementCodec::unsigned_int, size, big, "uint" + std::to_string(8 * size)};
  }
  throw unsupported();
}

}  // namespace

std::vector<unsigned char> read_file_bytes(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("input file does not exist", ErrorContext(path));
  if (!fs::is_regular_file(path, ec))
    throw InputError("input path is not a regular file", ErrorContext(path));
  gzFile file = gzopen(path.c_str(), "rb");  // reads plain files unchanged ("transparent" mode)
  if (!file)
    throw InputError(std::string("cannot open input file: ") + std::strerror(errno), ErrorContext(path));
  gzbuffer(file, 1 << 20);
  std::vector<unsigned char> bytes;
  constexpr std::size_t chunk = std::size_t{1} << 24;
  for (;;) {
    const std::size_t old_size = bytes.size();
    bytes.resize(old_size + chunk);
    const int got = gzread(file, bytes.data() + old_size, static_cast<unsigned>(chunk));
    bytes.resize(old_size + static_cast<std::size_t>(std::max(got, 0)));
    if (got < static_cast<int>(chunk)) break;
  }
  int status = Z_OK;
  const std::string message = gzerror(file, &status);
  gzclose(file);
  if (status != Z_OK && status != Z_STREAM_END) {
    throw InputError("cannot read input file (corrupt or truncated gzip data?): " + message,
                     ErrorContext(path));
  }
  return bytes;
}

NumericArray read_idx(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  if (bytes.size() < 4)
    throw InputError("file is truncated: too short for an IDX header", ErrorContext(path));
  if (bytes[0] != 0 || bytes[1] != 0 || bytes[3] == 0) {
    char magic[16];
    std::snprintf(magic, sizeof magic, "0x%02X%02X%02X%02X", bytes[0], bytes[1], bytes[2], bytes[3]);
    throw InputError(std::string("bad IDX magic number ") + magic + " (expected 0x0000TTNN)",
                     ErrorContext(path, "magic", magic));
  }
  const ElementCodec codec = idx_codec(bytes[2], path);
  const std::size_t ndims = bytes[3], header = 4 + 4 * ndims;
  if (bytes.size() < header) {
    throw InputError("file is truncated: the IDX header declares " + std::to_string(ndims) + " dimensions",
                     ErrorContext(path, "dimensions", std::to_string(ndims)));
  }
  std::vector<std::uint64_t> shape(ndims);
  for (std::size_t i = 0; i < ndims; ++i) shape[i] = load_bits(&bytes[4 + 4 * i], 4, true);
  return decode_array(bytes, header, std::move(shape), codec, path);
}

NumericArray read_npy(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (bytes.size() < 10 || !std::equal(std::begin(magic), std::end(magic), bytes.begin())) {
    throw InputError("not an NPY file (bad magic string)", ErrorContext(path));
  }
  const int major = bytes[6];
  if (major < 1 || major > 3) {
    throw InputError(
        "unsupported NPY format version " + std::to_string(major) + "." + std::to_string(bytes[7]),
        ErrorContext(path, "version", std::to_string(major)));
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4, start = 8 + length_bytes;
  if (bytes.size() < start) throw InputError("file is truncated: incomplete NPY header", ErrorContext(path));
  const std::size_t header_length = load_bits(&bytes[8], length_bytes, false);
  if (bytes.size() < start + header_length)
    throw InputError("file is truncated: incomplete NPY header", ErrorContext(path));
  const std::string header(bytes.begin() + start, bytes.begin() + start + header_length);
  const ElementCodec codec = npy_codec(parse_descr(header, path), path);
  return decode_array(bytes, start + header_length, parse_shape(header, path), codec, path,
                      parse_fortran_order(header, path));
}

}  // namespace gplvm
