#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"

namespace gplvm {
namespace {

double read_double(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  EXPECT_EQ(ec, std::errc()) << text;
  EXPECT_EQ(end, text.data() + text.size()) << text;
  return v;
}

TEST(JsonWriter, CompactNestedStructure) {
  JsonWriter json(0);
  json.begin_object();
  json.key("a").value(1);
  json.key("b").begin_array().value(true).null().value("x").value(-2.5).end_array();
  json.key("c").begin_object().key("d").begin_array().end_array().key("e").begin_object().end_object();
  json.end_object();
  json.end_object();
  EXPECT_EQ(json.str(), R"({"a":1,"b":[true,null,"x",-2.5],"c":{"d":[],"e":{}}})");
}

TEST(JsonWriter, PrettyPrintPutsEveryMemberAndElementOnItsOwnLine) {
  JsonWriter json(2);
  json.begin_object();
  json.key("hidden").begin_array().value(512).value(256).end_array();
  json.key("runs").begin_array();
  json.begin_object().key("rank").value(0u).end_object();
  json.end_array();
  json.key("empty").begin_object().end_object();
  json.end_object();
  EXPECT_EQ(json.str(),
            "{\n"
            "  \"hidden\": [\n"
            "    512,\n"
            "    256\n"
            "  ],\n"
            "  \"runs\": [\n"
            "    {\n"
            "      \"rank\": 0\n"
            "    }\n"
            "  ],\n"
            "  \"empty\": {}\n"
            "}");
}

TEST(JsonWriter, IntegersAtTheLimits) {
  JsonWriter json(0);
  json.begin_array()
      .value(std::numeric_limits<std::int64_t>::min())
      .value(std::numeric_limits<std::uint64_t>::max())
      .value(static_cast<short>(-3))
      .end_array();
  EXPECT_EQ(json.str(), "[-9223372036854775808,18446744073709551615,-3]");
}

TEST(JsonWriter, QuoteEscapesEveryControlCharacter) {
  EXPECT_EQ(json_quote("plain"), "\"plain\"");
  EXPECT_EQ(json_quote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_quote("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(json_quote(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(json_quote(std::string("nul\0here", 8)), R"("nul\u0000here")");
  // DEL and UTF-8 are legal in JSON strings and pass through unchanged.
  EXPECT_EQ(json_quote("\x7f\xc3\xa9"), "\"\x7f\xc3\xa9\"");
  JsonWriter json(0);
  json.begin_object().key("k\"ey").value("v\nal").end_object();
  EXPECT_EQ(json.str(), R"({"k\"ey":"v\nal"})");
}

// Names and values come from files and command lines: invalid UTF-8 still gives valid JSON.
TEST(JsonWriter, InvalidUtf8IsReplaced) {
  EXPECT_EQ(json_quote("bad\xff!"), "\"bad\xef\xbf\xbd!\"");
}

TEST(JsonWriter, DoublesRoundTripExactly) {
  std::vector<double> values = {0.1,
                                1.0 / 3.0,
                                -2.0 / 7.0,
                                1e-300,
                                5e-324,  // smallest subnormal
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(),
                                9007199254740993.0,
                                123456789.0,
                                1e20,
                                -0.0};
  std::mt19937_64 bits(12345);
  while (values.size() < 5000) {
    const double v = std::bit_cast<double>(bits());
    if (std::isfinite(v)) values.push_back(v);
  }
  for (const double v : values) {
    const std::string text = json_number(v);
    const double back = read_double(text);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back), std::bit_cast<std::uint64_t>(v)) << text;
  }
}

TEST(JsonWriter, IntegralDoublesStayFloats) {
  EXPECT_EQ(json_number(3.0), "3.0");
  EXPECT_EQ(json_number(-0.0), "-0.0");
  EXPECT_EQ(json_number(1e20), "1e+20");
  EXPECT_EQ(json_number(0.5), "0.5");
}

// JSON cannot spell NaN or infinity; the writer documents that it writes null for them.
TEST(JsonWriter, NonFiniteDoublesAreNull) {
  EXPECT_EQ(json_number(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "null");
  JsonWriter json(0);
  json.begin_array().value(std::nan("")).value(1.5).end_array();
  EXPECT_EQ(json.str(), "[null,1.5]");
}

TEST(JsonWriter, StructuralMisuseThrows) {
  {
    JsonWriter json;
    json.begin_object();
    EXPECT_THROW(json.value(1), Error);  // member without a key
    EXPECT_THROW(json.end_array(), Error);
    EXPECT_THROW(json.str(), Error);  // unfinished
    json.key("a");
    EXPECT_THROW(json.key("b"), Error);
    EXPECT_THROW(json.end_object(), Error);  // key without value
    json.value(1);
    EXPECT_THROW(json.key("a"), Error);  // the same key twice
  }
  {
    JsonWriter json;
    json.begin_array();
    EXPECT_THROW(json.key("a"), Error);
    json.end_array();
    EXPECT_TRUE(json.complete());
    EXPECT_THROW(json.value(2), Error);  // a second top-level value
  }
  JsonWriter json;
  EXPECT_FALSE(json.complete());
  EXPECT_THROW(json.end_object(), Error);
}

}  // namespace
}  // namespace gplvm
