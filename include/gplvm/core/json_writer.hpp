#pragma once
// A small streaming JSON writer for `--json` summaries and Config::to_json().
//
// Output is RFC 8259 JSON in UTF-8. Strings are escaped (quote, backslash, every control character);
// bytes >= 0x80 pass through unchanged, so callers must hand in valid UTF-8. Doubles are written as the
// shortest decimal that std::from_chars reads back to the identical value. JSON has no spelling for
// NaN or infinity, so non-finite doubles are written as `null` (readers see "no value", never a wrong
// number). Misuse of the structure (a value where a key is due, unbalanced end_*, str() on an
// unfinished document) is a programming error and throws gplvm::Error.
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gplvm {

// `s` as a quoted JSON string literal.
std::string json_quote(std::string_view s);

// Shortest round-trip decimal for a finite double, with ".0" added to integral values so that
// readers keep the value a float ("3.0", "1e+20", "-0.0"); "null" for NaN and infinities.
std::string json_number(double v);

// Shortest round-trip decimal (std::to_chars), ".0" added to integral values; non-finite values are
// spelled "inf", "-inf", "nan" (the TOML spelling). Shared by the JSON and TOML writers.
std::string format_double(double v);

class JsonWriter {
 public:
  // indent > 0: pretty-printed, nested containers on their own lines; arrays of scalars stay on one
  // line ("[1, 2, 3]"). indent == 0: compact, no whitespace at all.
  explicit JsonWriter(int indent = 2);

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The next member's name; only valid directly inside an object.
  JsonWriter& key(std::string_view name);

  JsonWriter& value(bool v);
  JsonWriter& value(double v);  // non-finite -> null
  JsonWriter& value(std::string_view v);
  // Without these, a string literal would convert to bool (a standard conversion beats string_view's).
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& value(T v) {
    if constexpr (std::is_signed_v<T>)
      return write_integer(std::to_string(static_cast<std::int64_t>(v)));
    else
      return write_integer(std::to_string(static_cast<std::uint64_t>(v)));
  }
  JsonWriter& null();

  // True once exactly one top-level value has been written and every container is closed.
  bool complete() const { return done_ && stack_.empty(); }
  // The document; throws gplvm::Error unless complete().
  const std::string& str() const;

 private:
  struct Frame {
    bool is_object;
    bool empty = true;
    bool key_pending = false;    // object: key() written, value due
    bool has_container = false;  // array: some element is an object/array (closing bracket on own line)
  };
  JsonWriter& write_integer(const std::string& digits);
  JsonWriter& write_scalar(std::string_view text);
  void before_value(bool is_container);
  void newline(std::size_t depth);
  JsonWriter& close(bool is_object);

  int indent_;
  bool done_ = false;
  std::vector<Frame> stack_;
  std::string out_;
};

}  // namespace gplvm
