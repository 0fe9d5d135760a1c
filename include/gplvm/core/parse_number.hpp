#pragma once
// The one reader of numbers typed by users: command-line options, config overrides, scale factors.
// The whole text must be the number: no blanks, no trailing junk ("64x", "1x2junk"), no empty text.
//
// Integers are written as digits with an optional sign, or as an exact integer in decimal or exponent
// form ("1e5", "100.0", as TOML files are allowed to); fractional values ("2.5") are not integers,
// and neither is anything beyond 2^53 in that form (a double would round it). Unsigned integers take
// no sign at all ("-3" and "+3" both fail), so a negative count never wraps around. Reals are decimal
// or exponent numbers; the throwing forms accept only finite ones.
//
// The throwing forms raise InputError (exit code 2) whose context names the option or key and the
// text as given, and whose message says what was expected, including the allowed range.
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "gplvm/core/error.hpp"

namespace gplvm {

// nullopt unless `text` is exactly one number of the kind (see above). read_real accepts "nan" and
// "inf" (TOML spells them so); read_fraction accepts "a" or "a/b" with b != 0 and a finite result.
std::optional<std::int64_t> read_integer(std::string_view text);
std::optional<std::uint64_t> read_unsigned(std::string_view text);
std::optional<double> read_real(std::string_view text);
std::optional<double> read_fraction(std::string_view text);
// A double stands in for an integer only when it is one exactly, within 2^53 ("steps = 1e5" in TOML).
std::optional<std::int64_t> exact_integer(double v);

// `where` names the culprit (its key: "--block", "train.seed"; its file, if any); the text becomes its
// value. The message distinguishes junk, fractions, signs and values outside [min, max].
std::int64_t parse_integer(std::string_view text, const ErrorContext& where,
                           std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                           std::int64_t max = std::numeric_limits<std::int64_t>::max());
std::uint64_t parse_unsigned(std::string_view text, const ErrorContext& where, std::uint64_t min = 0,
                             std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
// A finite real in [min, max].
double parse_real(std::string_view text, const ErrorContext& where,
                  double min = -std::numeric_limits<double>::max(),
                  double max = std::numeric_limits<double>::max());
// A finite real or a fraction "a/b" (b != 0), e.g. a scale factor "1/255".
double parse_fraction(std::string_view text, const ErrorContext& where);

}  // namespace gplvm
