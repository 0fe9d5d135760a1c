#include "gplvm/core/json_writer.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

using Json = nlohmann::ordered_json;

// Names and values come from files and command lines: a stray invalid byte must not turn a
// summary into an exception, so it is replaced (U+FFFD) instead of rejected.
std::string dump(const Json& j, int indent) {
  return j.dump(indent > 0 ? indent : -1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string json_quote(std::string_view s) {
  return dump(Json(s), 0);
}

std::string json_number(double v) {
  return std::isfinite(v) ? dump(Json(v), 0) : "null";
}

struct JsonWriter::Document {
  Json root;
  bool has_root = false;
  // The containers still open, outermost first. Pointers stay valid: only the innermost one grows.
  std::vector<Json*> open;
  std::optional<std::string> pending_key;  // key() given, its value due (innermost object)

  Json& insert(Json v);
  void begin(Json container) { open.push_back(&insert(std::move(container))); }
  void end(bool is_object);
  void set_key(std::string_view name);
};

Json& JsonWriter::Document::insert(Json v) {
  if (open.empty()) {
    if (has_root) throw Error("JSON writer: the document already has its top-level value");
    has_root = true;
    root = std::move(v);
    return root;
  }
  Json& top = *open.back();
  if (top.is_array()) {
    top.push_back(std::move(v));
    return top.back();
  }
  if (!pending_key) throw Error("JSON writer: an object member needs key() before its value");
  Json& member = top[*pending_key];
  pending_key.reset();
  member = std::move(v);
  return member;
}

void JsonWriter::Document::end(bool is_object) {
  if (open.empty() || open.back()->is_object() != is_object)
    throw Error(is_object ? "JSON writer: end_object() without a matching begin_object()"
                          : "JSON writer: end_array() without a matching begin_array()");
  if (pending_key) throw Error("JSON writer: object closed after key() without a value");
  open.pop_back();
}

void JsonWriter::Document::set_key(std::string_view name) {
  if (open.empty() || !open.back()->is_object()) throw Error("JSON writer: key() outside an object");
  if (pending_key) throw Error("JSON writer: two keys in a row", ErrorContext("", std::string(name)));
  // ordered_json would silently replace the first value: a caller writing a key twice has a bug.
  if (open.back()->contains(name))
    throw Error("JSON writer: a key given twice in one object", ErrorContext("", std::string(name)));
  pending_key = std::string(name);
}

JsonWriter::JsonWriter(int indent) : indent_(indent < 0 ? 0 : indent), doc_(std::make_unique<Document>()) {}
JsonWriter::~JsonWriter() = default;
JsonWriter::JsonWriter(JsonWriter&&) noexcept = default;
JsonWriter& JsonWriter::operator=(JsonWriter&&) noexcept = default;

JsonWriter& JsonWriter::begin_object() {
  doc_->begin(Json::object());
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  doc_->begin(Json::array());
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  doc_->end(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  doc_->end(false);
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view name) {
  doc_->set_key(name);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  doc_->insert(v);
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  doc_->insert(std::isfinite(v) ? Json(v) : Json(nullptr));
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view v) {
  doc_->insert(Json(v));
  return *this;
}
JsonWriter& JsonWriter::write_signed(std::int64_t v) {
  doc_->insert(v);
  return *this;
}
JsonWriter& JsonWriter::write_unsigned(std::uint64_t v) {
  doc_->insert(v);
  return *this;
}
JsonWriter& JsonWriter::null() {
  doc_->insert(nullptr);
  return *this;
}

bool JsonWriter::complete() const {
  return doc_->has_root && doc_->open.empty();
}

const std::string& JsonWriter::str() const {
  if (!complete()) throw Error("JSON writer: str() called on an unfinished document");
  text_ = dump(doc_->root, indent_);
  return text_;
}

}  // namespace gplvm
