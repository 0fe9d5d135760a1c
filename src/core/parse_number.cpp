#include "gplvm/core/parse_number.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

namespace gplvm {
namespace {

// Integers written in decimal or exponent form must be exact in a double: beyond 2^53 "…1.0"
// could silently become a neighbour.
constexpr double kExactIntegerLimit = 9007199254740992.0;

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

bool has_sign(std::string_view s) {
  return !s.empty() && (s.front() == '+' || s.front() == '-');
}

// std::from_chars rejects an explicit '+'; drop exactly one, and never before another sign.
std::string_view without_plus(std::string_view s) {
  if (s.size() > 1 && s.front() == '+' && s[1] != '+' && s[1] != '-') s.remove_prefix(1);
  return s;
}

template <class T>
std::optional<T> whole(std::string_view s) {
  T value{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// Digits with an optional sign: the integer type reads it (and reports overflow).
bool looks_like_plain_integer(std::string_view s) {
  return all_digits(has_sign(s) ? s.substr(1) : s);
}

// An exact integer in decimal or exponent form ("1e5", "-100.0").
std::optional<std::int64_t> integral_real(std::string_view s) {
  const auto v = read_real(s);
  return v ? exact_integer(*v) : std::nullopt;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

template <class T>
std::string range_text(T min, T max) {
  auto text = [](T v) {
    if constexpr (std::is_floating_point_v<T>)
      return number_text(v);
    else
      return std::to_string(v);
  };
  const bool no_min = min == std::numeric_limits<T>::lowest(), no_max = max == std::numeric_limits<T>::max();
  if (no_min && no_max) return "";
  if (no_max) return " >= " + text(min);
  if (no_min) return " <= " + text(max);
  return " in [" + text(min) + ", " + text(max) + "]";
}

[[noreturn]] void fail(const std::string& what, const ErrorContext& where, std::string_view text) {
  throw InputError(what, ErrorContext(where.file, where.key, std::string(text)));
}

// Why `text` is not an integer: a fraction, too large, or not a number at all.
[[noreturn]] void fail_integer(std::string_view text, const ErrorContext& where, const std::string& wanted) {
  if (text.empty()) fail("expected " + wanted + ", got an empty value", where, text);
  const auto v = read_real(text);
  if (v && std::isfinite(*v) && *v != std::trunc(*v))
    fail("expected " + wanted + ", not a fractional value", where, text);
  if (v && (std::isfinite(*v) || looks_like_plain_integer(text)))
    fail("out of range: expected " + wanted, where, text);
  fail("expected " + wanted + " (digits only, the whole value)", where, text);
}

}  // namespace

std::optional<std::int64_t> exact_integer(double v) {
  if (!std::isfinite(v) || v != std::trunc(v) || std::fabs(v) > kExactIntegerLimit) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::optional<double> read_real(std::string_view text) {
  return whole<double>(without_plus(text));
}

std::optional<std::int64_t> read_integer(std::string_view text) {
  const std::string_view s = without_plus(text);
  if (looks_like_plain_integer(s)) return whole<std::int64_t>(s);
  return integral_real(text);
}

std::optional<std::uint64_t> read_unsigned(std::string_view text) {
  if (has_sign(text)) return std::nullopt;
  if (all_digits(text)) return whole<std::uint64_t>(text);
  const auto v = integral_real(text);
  if (!v) return std::nullopt;
  return static_cast<std::uint64_t>(*v);  // no sign, so not negative
}

std::optional<double> read_fraction(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    const auto v = read_real(text);
    return v && std::isfinite(*v) ? v : std::nullopt;
  }
  const auto numerator = read_real(text.substr(0, slash));
  const auto denominator = read_real(text.substr(slash + 1));
  if (!numerator || !denominator || *denominator == 0) return std::nullopt;
  const double v = *numerator / *denominator;
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::int64_t parse_integer(std::string_view text, const ErrorContext& where, std::int64_t min,
                           std::int64_t max) {
  const std::string wanted = "an integer" + range_text(min, max);
  const auto v = read_integer(text);
  if (!v) fail_integer(text, where, wanted);
  if (*v < min || *v > max) fail("out of range: expected " + wanted, where, text);
  return *v;
}

std::uint64_t parse_unsigned(std::string_view text, const ErrorContext& where, std::uint64_t min,
                             std::uint64_t max) {
  const std::string wanted = "a non-negative integer" + range_text(min, max);
  if (has_sign(text)) fail("expected " + wanted + " without a sign", where, text);
  const auto v = read_unsigned(text);
  if (!v) fail_integer(text, where, wanted);
  if (*v < min || *v > max) fail("out of range: expected " + wanted, where, text);
  return *v;
}

double parse_real(std::string_view text, const ErrorContext& where, double min, double max) {
  const std::string wanted = "a finite number" + range_text(min, max);
  const auto v = read_real(text);
  if (!v || !std::isfinite(*v)) fail("expected " + wanted, where, text);
  if (*v < min || *v > max) fail("out of range: expected " + wanted, where, text);
  return *v;
}

double parse_fraction(std::string_view text, const ErrorContext& where) {
  const auto v = read_fraction(text);
  if (!v) fail("expected a finite number or a fraction a/b with b != 0, such as 1/255", where, text);
  return *v;
}

}  // namespace gplvm
