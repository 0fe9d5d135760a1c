// The strict number parser: whole text, ranges, signs, fractions, overflow, and errors naming the
// option and its value.
#include "gplvm/core/parse_number.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace gplvm {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The InputError message for parsing `text` with `parse`; fails the test if it parses.
template <class Parse>
std::string error_of(Parse parse, const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "--opt") << text;
    EXPECT_EQ(e.context().value, text);
    return e.what();
  }
  ADD_FAILURE() << "accepted '" << text << "'";
  return "";
}

TEST(ParseNumber, IntegersAreTheWholeText) {
  EXPECT_EQ(read_integer("64"), 64);
  EXPECT_EQ(read_integer("-7"), -7);
  EXPECT_EQ(read_integer("+7"), 7);
  EXPECT_EQ(read_integer("0"), 0);
  EXPECT_EQ(read_integer("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(read_integer("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  for (const char* bad : {"",
                          " ",
                          "64x",
                          "1x2",
                          "abc",
                          "6 4",
                          " 64",
                          "64 ",
                          "0x10",
                          "--5",
                          "+-5",
                          "++5",
                          "-",
                          "1e3x",
                          "1/2",
                          "9223372036854775808",
                          "-9223372036854775809",
                          "2.5",
                          "nan",
                          "inf"})
    EXPECT_FALSE(read_integer(bad).has_value()) << "'" << bad << "'";
}

TEST(ParseNumber, ExactIntegersInDecimalOrExponentForm) {
  EXPECT_EQ(read_integer("1e5"), 100000);
  EXPECT_EQ(read_integer("100.0"), 100);
  EXPECT_EQ(read_integer("-2e3"), -2000);
  EXPECT_EQ(read_integer("9007199254740992.0"), std::int64_t{1} << 53);
  EXPECT_FALSE(read_integer("9007199254740994.0").has_value());  // beyond 2^53 a double may round
  EXPECT_FALSE(read_integer("1e19").has_value());
  EXPECT_FALSE(read_integer("1.5e0").has_value());
}

TEST(ParseNumber, UnsignedIntegersTakeNoSign) {
  EXPECT_EQ(read_unsigned("0"), 0u);
  EXPECT_EQ(read_unsigned("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(read_unsigned("1e3"), 1000u);
  for (const char* bad : {"-1", "-0", "+1", "-3", "18446744073709551616", "1.5", "3junk", "", "1e3x"})
    EXPECT_FALSE(read_unsigned(bad).has_value()) << "'" << bad << "'";
}

TEST(ParseNumber, RealsAreTheWholeText) {
  EXPECT_EQ(read_real("0.5"), 0.5);
  EXPECT_EQ(read_real("+.5"), 0.5);
  EXPECT_EQ(read_real("-1e-3"), -1e-3);
  EXPECT_EQ(read_real("5."), 5.0);
  EXPECT_TRUE(std::isnan(*read_real("nan")));  // TOML spells them so; the throwing form rejects them
  EXPECT_TRUE(std::isinf(*read_real("-inf")));
  for (const char* bad : {"", "1/0", "2junk", "1e3x", "0x1p3", "1,5", " 1", "1 ", "e5", ".", "+-1", "1e999"})
    EXPECT_FALSE(read_real(bad).has_value()) << "'" << bad << "'";
}

TEST(ParseNumber, FractionsNeedANonZeroDenominatorAndAFiniteResult) {
  EXPECT_DOUBLE_EQ(*read_fraction("1/255"), 1.0 / 255.0);
  EXPECT_DOUBLE_EQ(*read_fraction("-3/4"), -0.75);
  EXPECT_DOUBLE_EQ(*read_fraction("0.00392"), 0.00392);
  for (const char* bad : {"1/0", "0/0", "nan", "inf", "-inf", "2junk", "1/", "/2", "1/2/3", "1/2x",
                          "1e308/1e-308", "nan/1", "1/inf/"})
    EXPECT_FALSE(read_fraction(bad).has_value()) << "'" << bad << "'";
}

TEST(ParseNumber, ExactIntegerOfADouble) {
  EXPECT_EQ(exact_integer(3.0), 3);
  EXPECT_EQ(exact_integer(-0.0), 0);
  EXPECT_FALSE(exact_integer(2.5).has_value());
  EXPECT_FALSE(exact_integer(std::nan("")).has_value());
  EXPECT_FALSE(exact_integer(std::ldexp(1.0, 60)).has_value());
}

TEST(ParseNumber, IntegerErrorsSayWhyAndNameTheOption) {
  const auto block = [](const std::string& t) { return parse_integer(t, {"", "--opt"}, 1, 4096); };
  EXPECT_EQ(block("64"), 64);
  EXPECT_TRUE(contains(error_of(block, "abc"), "expected an integer in [1, 4096]"));
  EXPECT_TRUE(contains(error_of(block, "64x"), "key '--opt', value '64x'"));
  EXPECT_TRUE(contains(error_of(block, "2.5"), "not a fractional value"));
  EXPECT_TRUE(contains(error_of(block, "0"), "out of range"));
  EXPECT_TRUE(contains(error_of(block, "4097"), "out of range"));
  EXPECT_TRUE(contains(error_of(block, "99999999999999999999"), "out of range"));
  EXPECT_TRUE(contains(error_of(block, ""), "empty value"));
}

TEST(ParseNumber, UnsignedErrorsRejectSignsAndOverflow) {
  const auto seed = [](const std::string& t) { return parse_unsigned(t, {"", "--opt"}); };
  EXPECT_EQ(seed("42"), 42u);
  EXPECT_TRUE(contains(error_of(seed, "-1"), "without a sign"));
  EXPECT_TRUE(contains(error_of(seed, "-3"), "non-negative integer"));
  EXPECT_TRUE(contains(error_of(seed, "1e3x"), "non-negative integer"));
  EXPECT_TRUE(contains(error_of(seed, "18446744073709551616"), "out of range"));
  const auto count = [](const std::string& t) { return parse_unsigned(t, {"", "--opt"}, 1, 10); };
  EXPECT_TRUE(contains(error_of(count, "11"), "in [1, 10]"));
}

TEST(ParseNumber, RealErrorsRejectNonFiniteAndOutOfRange) {
  const auto noise = [](const std::string& t) {
    return parse_real(t, {"", "--opt"}, 0, std::numeric_limits<double>::max());
  };
  EXPECT_EQ(noise("0.01"), 0.01);
  EXPECT_TRUE(contains(error_of(noise, "nan"), "finite"));
  EXPECT_TRUE(contains(error_of(noise, "inf"), "finite"));
  EXPECT_TRUE(contains(error_of(noise, "-0.5"), "out of range: expected a finite number >= 0"));
  EXPECT_TRUE(contains(error_of(noise, "0.1junk"), "expected a finite number"));
}

TEST(ParseNumber, FractionErrorsNameTheOption) {
  const auto scale = [](const std::string& t) { return parse_fraction(t, {"", "--opt"}); };
  EXPECT_DOUBLE_EQ(scale("1/255"), 1.0 / 255.0);
  for (const char* bad : {"1/0", "nan", "inf", "2junk"})
    EXPECT_TRUE(contains(error_of(scale, bad), "fraction a/b with b != 0")) << bad;
}

TEST(ParseNumber, ErrorsKeepTheFileOfTheContext) {
  try {
    parse_integer("x", {"run.toml", "train.seed"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().file, "run.toml");
    EXPECT_EQ(e.context().key, "train.seed");
    EXPECT_EQ(e.context().value, "x");
  }
}

}  // namespace
}  // namespace gplvm
