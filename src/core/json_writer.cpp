#include "gplvm/core/json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

const char* short_escape(char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return nullptr;
  }
}

}  // namespace

std::string json_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (const char* esc = short_escape(c)) {
      out += esc;
    } else if (byte < 0x20) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::array<char, 32> buf;  // shortest form of a double needs at most 24 characters
  const auto result = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  std::string text(buf.data(), result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string json_number(double v) {
  return std::isfinite(v) ? format_double(v) : "null";
}

JsonWriter::JsonWriter(int indent) : indent_(indent < 0 ? 0 : indent) {}

void JsonWriter::newline(std::size_t depth) {
  if (indent_ == 0) return;
  out_ += '\n';
  out_.append(depth * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::before_value(bool is_container) {
  if (stack_.empty()) {
    if (done_) throw Error("JSON writer: the document already has its top-level value");
    done_ = true;
    return;
  }
  Frame& top = stack_.back();
  if (top.is_object) {
    if (!top.key_pending) throw Error("JSON writer: an object member needs key() before its value");
    top.key_pending = false;
    return;
  }
  if (!top.empty) out_ += ',';
  top.has_container = top.has_container || is_container;
  // Scalars in an array stay on one line; containers (and everything after one) get their own line.
  if (top.has_container)
    newline(stack_.size());
  else if (!top.empty && indent_ > 0)
    out_ += ' ';
  top.empty = false;
}

JsonWriter& JsonWriter::begin_object() {
  before_value(true);
  out_ += '{';
  stack_.push_back({true});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value(true);
  out_ += '[';
  stack_.push_back({false});
  return *this;
}

JsonWriter& JsonWriter::close(bool is_object) {
  if (stack_.empty() || stack_.back().is_object != is_object)
    throw Error(is_object ? "JSON writer: end_object() without a matching begin_object()"
                          : "JSON writer: end_array() without a matching begin_array()");
  const Frame top = stack_.back();
  if (top.key_pending) throw Error("JSON writer: object closed after key() without a value");
  stack_.pop_back();
  if (is_object ? !top.empty : top.has_container) newline(stack_.size());
  out_ += is_object ? '}' : ']';
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  return close(true);
}
JsonWriter& JsonWriter::end_array() {
  return close(false);
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (stack_.empty() || !stack_.back().is_object) throw Error("JSON writer: key() outside an object");
  Frame& top = stack_.back();
  if (top.key_pending) throw Error("JSON writer: two keys in a row", ErrorContext("", std::string(name)));
  if (!top.empty) out_ += ',';
  newline(stack_.size());
  out_ += json_quote(name);
  out_ += indent_ > 0 ? ": " : ":";
  top.empty = false;
  top.key_pending = true;
  return *this;
}

JsonWriter& JsonWriter::write_scalar(std::string_view text) {
  before_value(false);
  out_ += text;
  return *this;
}

JsonWriter& JsonWriter::write_integer(const std::string& digits) {
  return write_scalar(digits);
}
JsonWriter& JsonWriter::value(bool v) {
  return write_scalar(v ? "true" : "false");
}
JsonWriter& JsonWriter::value(double v) {
  return write_scalar(json_number(v));
}
JsonWriter& JsonWriter::value(std::string_view v) {
  return write_scalar(json_quote(v));
}
JsonWriter& JsonWriter::null() {
  return write_scalar("null");
}

const std::string& JsonWriter::str() const {
  if (!complete()) throw Error("JSON writer: str() called on an unfinished document");
  return out_;
}

}  // namespace gplvm
