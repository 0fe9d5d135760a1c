#pragma once
// A streaming JSON writer for `--json` summaries and Config::to_json(), on top of nlohmann-json
// (nlohmann::ordered_json: members stay in the order they are written).
//
// Output is RFC 8259 JSON in UTF-8, escaped and formatted by nlohmann-json: doubles as a decimal
// that reads back to the identical value (integral values keep a ".0", so readers keep them
// floats); invalid UTF-8 in a string is replaced by U+FFFD rather than written as is. JSON has
// no spelling for NaN or infinity, so non-finite doubles are written as `null` (readers see "no
// value", never a wrong number). Misuse of the structure (a value where a key is due, a key given
// twice in one object, unbalanced end_*, str() on an unfinished document) is a programming error
// and throws gplvm::Error.
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace gplvm {

// `s` as a quoted JSON string literal.
std::string json_quote(std::string_view s);

// A finite double as JSON writes it ("3.0", "1e+20", "-0.0"); "null" for NaN and infinities.
std::string json_number(double v);

class JsonWriter {
 public:
  // indent > 0: pretty-printed, every member and element on its own line. indent == 0: compact,
  // no whitespace at all.
  explicit JsonWriter(int indent = 2);
  ~JsonWriter();
  JsonWriter(JsonWriter&&) noexcept;
  JsonWriter& operator=(JsonWriter&&) noexcept;

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
      return write_signed(static_cast<std::int64_t>(v));
    else
      return write_unsigned(static_cast<std::uint64_t>(v));
  }
  JsonWriter& null();

  // True once exactly one top-level value has been written and every container is closed.
  bool complete() const;
  // The document; throws gplvm::Error unless complete().
  const std::string& str() const;

 private:
  struct Document;  // the nlohmann tree and the containers still open
  JsonWriter& write_signed(std::int64_t v);
  JsonWriter& write_unsigned(std::uint64_t v);

  int indent_;
  std::unique_ptr<Document> doc_;
  mutable std::string text_;  // str()'s last serialisation
};

}  // namespace gplvm
