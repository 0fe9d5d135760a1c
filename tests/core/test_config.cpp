#include <gtest/gtest.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "gplvm/core/config.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;
using Ints = std::vector<std::int64_t>;
using Doubles = std::vector<double>;

// ---------------------------------------------------------------- a strict little JSON reader
// Enough of RFC 8259 to prove the output is JSON: it rejects raw control characters in strings,
// unquoted keys, trailing commas and anything after the document.
struct Json {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json& at(const std::string& key) const {
    for (const auto& [k, v] : members)
      if (k == key) return v;
    throw std::runtime_error("no member " + key);
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}
  Json document() {
    Json v = value();
    skip_ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("invalid JSON at " + std::to_string(i_) + ": " + what);
  }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool eat_word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  Json value() {
    skip_ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    if (eat_word("null")) return v;
    if (eat_word("true") || eat_word("false")) return v.kind = Json::boolean, v.b = s_[i_ - 1] == 'e', v;
    if (s_[i_] == '"') return v.kind = Json::string, v.str = string(), v;
    if (s_[i_] == '[') return array();
    if (s_[i_] == '{') return object();
    return v.kind = Json::number, v.num = number(), v;
  }
  Json array() {
    Json v;
    v.kind = Json::array;
    ++i_;
    if (eat(']')) return v;
    do v.items.push_back(value());
    while (eat(','));
    if (!eat(']')) fail("expected ]");
    return v;
  }
  Json object() {
    Json v;
    v.kind = Json::object;
    ++i_;
    if (eat('}')) return v;
    do {
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != '"') fail("key must be a quoted string");
      std::string key = string();
      if (!eat(':')) fail("expected :");
      v.members.emplace_back(std::move(key), value());
    } while (eat(','));
    if (!eat('}')) fail("expected }");
    return v;
  }
  std::string string() {
    std::string out;
    for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
      const char c = s_[i_];
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      out += escape();
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  std::string escape() {
    if (++i_ >= s_.size()) fail("dangling backslash");
    switch (s_[i_]) {
      case '"':
        return "\"";
      case '\\':
        return "\\";
      case '/':
        return "/";
      case 'b':
        return "\b";
      case 'f':
        return "\f";
      case 'n':
        return "\n";
      case 'r':
        return "\r";
      case 't':
        return "\t";
      case 'u':
        break;
      default:
        fail("bad escape");
    }
    unsigned code = 0;
    const auto [end, ec] = std::from_chars(s_.data() + i_ + 1, s_.data() + i_ + 5, code, 16);
    if (ec != std::errc() || end != s_.data() + i_ + 5) fail("bad \\u escape");
    if (code >= 0x80) fail("test reader only decodes ASCII \\u escapes");
    i_ += 4;
    return std::string(1, static_cast<char>(code));
  }
  double number() {
    const std::size_t start = i_;
    auto digits = [&] {
      const std::size_t d = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      return i_ > d;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0')
      ++i_;
    else if (!digits())
      fail("bad number");
    if (i_ < s_.size() && s_[i_] == '.' && (++i_, !digits())) fail("bad fraction");
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits()) fail("bad exponent");
    }
    double v = 0;
    std::from_chars(s_.data() + start, s_.data() + i_, v);
    return v;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// ---------------------------------------------------------------- fixtures

ConfigSchema test_schema() {
  ConfigSchema schema;
  schema.add_int("train.batch_size", 256, "minibatch size B", {ConfigRule::range(1, 1 << 20)})
      .add_double("train.lr", 1e-3, "Adam learning rate", {ConfigRule::greater_than(0)})
      .add_bool("train.shuffle", true, "reshuffle every epoch")
      .add_string("train.optimizer", "adam", "optimiser", {ConfigRule::one_of({"adam", "sgd", "lbfgs"})})
      .add_int("train.seed", 0, "RNG seed")
      .add_int_list("model.encoder_hidden", {512, 256}, "encoder hidden widths", {ConfigRule::at_least(1)})
      .add_double("model.kernel.lengthscale", 1.0, "initial lengthscale")
      .add_double_list("model.kernel.init", {0.5, 2.0}, "initial kernel parameters")
      .add_string("data.path", "data.h5", "HDF5 input file", {ConfigRule::non_empty()})
      .add_string_list("data.labels", {"a", "b"}, "label names");
  return schema;
}

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::temp_directory_path() / ("gplvm_test_config_" + std::to_string(::getpid()) + "_" + name);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  // The InputError message from resolving `toml` (written to a file) with `overrides`.
  std::string error_from(const std::string& toml, const Strings& overrides = {}) const {
    const std::string path = write("bad.toml", toml);
    try {
      resolve_config(schema_, path, overrides);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError for:\n" << toml;
    return "";
  }

  bool contains(const std::string& text, const std::string& part) const {
    return text.find(part) != std::string::npos;
  }

  fs::path dir_;
  ConfigSchema schema_ = test_schema();
};

// ---------------------------------------------------------------- resolution

TEST_F(ConfigTest, DefaultsWhenNothingIsGiven) {
  const Config config = resolve_config(schema_, "", {});
  EXPECT_EQ(config.get_int("train.batch_size"), 256);
  EXPECT_EQ(config.get_double("train.lr"), 1e-3);
  EXPECT_TRUE(config.get_bool("train.shuffle"));
  EXPECT_EQ(config.get_string("train.optimizer"), "adam");
  EXPECT_EQ(config.get_int_list("model.encoder_hidden"), (Ints{512, 256}));
  EXPECT_EQ(config.get_double_list("model.kernel.init"), (Doubles{0.5, 2.0}));
  EXPECT_EQ(config.get_string_list("data.labels"), (Strings{"a", "b"}));
  for (const auto& key : schema_.keys()) {
    EXPECT_FALSE(config.was_set(key.name)) << key.name;
    EXPECT_EQ(config.get(key.name), *key.default_value) << key.name;
  }
}

TEST_F(ConfigTest, FileValuesReplaceDefaults) {
  const std::string path = write("run.toml", R"(
[train]
batch_size = 128
lr = 0.01
shuffle = false

[model.kernel]
lengthscale = 2.5

[data]
labels = ["cat", "dog", "emu"]
)");
  const Config config = resolve_config(schema_, path, {});
  EXPECT_EQ(config.get_int("train.batch_size"), 128);
  EXPECT_EQ(config.get_double("train.lr"), 0.01);
  EXPECT_FALSE(config.get_bool("train.shuffle"));
  EXPECT_EQ(config.get_double("model.kernel.lengthscale"), 2.5);
  EXPECT_EQ(config.get_string_list("data.labels"), (Strings{"cat", "dog", "emu"}));
  EXPECT_TRUE(config.was_set("train.batch_size"));
  EXPECT_EQ(config.source("model.kernel.lengthscale"), ConfigSource::file);
  EXPECT_FALSE(config.was_set("train.optimizer"));
  EXPECT_EQ(config.get_string("train.optimizer"), "adam");
}

TEST_F(ConfigTest, EmptyOrCommentOnlyFileGivesDefaults) {
  EXPECT_EQ(resolve_config(schema_, write("empty.toml", ""), {}), resolve_config(schema_, "", {}));
  const Config config = resolve_config(schema_, write("comments.toml", "# nothing set\n[train]\n"), {});
  EXPECT_EQ(config.get_int("train.batch_size"), 256);
  EXPECT_FALSE(config.was_set("train.batch_size"));
}

TEST_F(ConfigTest, DottedKeysAndInlineTablesAreTheSameKeys) {
  const std::string path =
      write("dotted.toml", "train.batch_size = 64\nmodel = { kernel = { lengthscale = 3.0 } }\n");
  const Config config = resolve_config(schema_, path, {});
  EXPECT_EQ(config.get_int("train.batch_size"), 64);
  EXPECT_EQ(config.get_double("model.kernel.lengthscale"), 3.0);
}

TEST_F(ConfigTest, OverrideBeatsFileAndLaterOverrideWins) {
  const std::string path = write("run.toml", "[train]\nbatch_size = 128\nlr = 0.5\n");
  const Config config =
      resolve_config(schema_, path, {"train.batch_size=64", "train.lr=1e-4", "train.lr=2e-4"});
  EXPECT_EQ(config.get_int("train.batch_size"), 64);
  EXPECT_EQ(config.get_double("train.lr"), 2e-4);
  EXPECT_EQ(config.source("train.batch_size"), ConfigSource::command_line);
  EXPECT_TRUE(config.was_set("train.lr"));
}

TEST_F(ConfigTest, OverrideScalarsAreParsedByType) {
  const Config config = resolve_config(schema_, "",
                                       {"train.shuffle=false", "data.path='my data.h5'",
                                        "train.batch_size=1e3", "train.lr=+.5", "train.seed= -7 "});
  EXPECT_FALSE(config.get_bool("train.shuffle"));
  EXPECT_EQ(config.get_string("data.path"), "my data.h5");
  EXPECT_EQ(config.get_int("train.batch_size"), 1000);  // an integral double is an int
  EXPECT_EQ(config.get_double("train.lr"), 0.5);
  EXPECT_EQ(config.get_int("train.seed"), -7);
  // Strings are verbatim apart from one pair of outer quotes: spaces and '=' survive.
  EXPECT_EQ(resolve_config(schema_, "", {"data.path= a=b "}).get_string("data.path"), " a=b ");
}

TEST_F(ConfigTest, ListOverridesInBothSyntaxes) {
  for (const std::string text : {"512,256,128", "[512, 256, 128]", " 512 , 256,128 "}) {
    const Config config = resolve_config(schema_, "", {"model.encoder_hidden=" + text});
    EXPECT_EQ(config.get_int_list("model.encoder_hidden"), (Ints{512, 256, 128})) << text;
  }
  const Config doubles = resolve_config(schema_, "", {"model.kernel.init=0.1,1e-3,4", "data.labels=x, y"});
  EXPECT_EQ(doubles.get_double_list("model.kernel.init"), (Doubles{0.1, 1e-3, 4.0}));
  EXPECT_EQ(doubles.get_string_list("data.labels"), (Strings{"x", "y"}));
  const Config arrays =
      resolve_config(schema_, "", {R"(data.labels=["x,1", 'y'])", "model.kernel.init=[1, 2.5]"});
  EXPECT_EQ(arrays.get_string_list("data.labels"), (Strings{"x,1", "y"}));
  EXPECT_EQ(arrays.get_double_list("model.kernel.init"), (Doubles{1.0, 2.5}));
  const Config empty = resolve_config(schema_, "", {"data.labels=", "model.kernel.init=[]"});
  EXPECT_TRUE(empty.get_string_list("data.labels").empty());
  EXPECT_TRUE(empty.get_double_list("model.kernel.init").empty());
}

TEST_F(ConfigTest, BadOverrideValuesNameKeyTypeAndCommandLine) {
  for (const std::string bad :
       {"model.encoder_hidden=512,abc", "model.encoder_hidden=[512, 256", "train.shuffle=yes",
        "train.batch_size=2.5", "train.lr=fast", "train.seed=99999999999999999999"}) {
    try {
      resolve_config(schema_, "", {bad});
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      const std::string key = bad.substr(0, bad.find('='));
      EXPECT_TRUE(contains(e.what(), "'" + key + "'")) << e.what();
      EXPECT_TRUE(contains(e.what(), "command line")) << e.what();
      EXPECT_TRUE(contains(e.what(), std::string(config_type_name(schema_.find(key)->type)))) << e.what();
      EXPECT_EQ(e.context().value, bad.substr(bad.find('=') + 1));
    }
  }
  EXPECT_THROW(resolve_config(schema_, "", {"train.batch_size"}), InputError);  // no '='
  EXPECT_THROW(resolve_config(schema_, "", {"model.encoder_hidden=[1]\nz = 2"}), InputError);
  EXPECT_THROW(resolve_config(schema_, "", {"data.path=\xff\xfe"}), InputError);  // not UTF-8
}

TEST_F(ConfigTest, UnknownKeyInFileNamesKeyFileAndSuggestion) {
  const std::string path = write("typo.toml", "[train]\nbatchsize = 3\n");
  try {
    resolve_config(schema_, path, {});
    FAIL() << "accepted an unknown key";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.context().key, "train.batchsize");
    EXPECT_EQ(e.context().file, path);
    EXPECT_TRUE(contains(what, "'train.batchsize'")) << what;
    EXPECT_TRUE(contains(what, path)) << what;
    EXPECT_TRUE(contains(what, "line 2, column 1;")) << what;  // points at the key, not its value
    EXPECT_TRUE(contains(what, "did you mean train.batch_size?")) << what;
  }
}

TEST_F(ConfigTest, UnknownKeySuggestionsAreOnlyForNearMisses) {
  // A misspelt table: the full dotted path of the first key under it is reported.
  EXPECT_TRUE(contains(error_from("[trian]\nbatch_size = 3\n"), "'trian.batch_size'"));
  EXPECT_TRUE(contains(error_from("[trian]\nbatch_size = 3\n"), "did you mean train.batch_size?"));
  // A forgotten [train] header: same final name in another table.
  EXPECT_TRUE(contains(error_from("batch_size = 3\n"), "did you mean train.batch_size?"));
  const std::string far = error_from("[train]\ncompletely_unrelated = 1\n");
  EXPECT_TRUE(contains(far, "'train.completely_unrelated'")) << far;
  EXPECT_FALSE(contains(far, "did you mean")) << far;
  // A quoted key containing a dot is not the nested key it looks like.
  EXPECT_TRUE(contains(error_from("[train]\n\"batch.size\" = 3\n"), "unknown config key"));
}

TEST_F(ConfigTest, UnknownOverrideKeyNamesCommandLine) {
  try {
    resolve_config(schema_, "", {"train.batchsize=3"});
    FAIL() << "accepted an unknown override";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.context().key, "train.batchsize");
    EXPECT_TRUE(contains(what, "command line")) << what;
    EXPECT_TRUE(contains(what, "did you mean train.batch_size?")) << what;
  }
}

TEST_F(ConfigTest, MalformedTomlNamesFileLineAndColumn) {
  const std::string what = error_from("[train]\nbatch_size = 3\nlr = = 0.1\n");
  EXPECT_TRUE(contains(what, "bad.toml")) << what;
  EXPECT_TRUE(contains(what, "line 3")) << what;
  EXPECT_TRUE(contains(what, "column")) << what;
  EXPECT_TRUE(contains(what, "malformed TOML")) << what;
  // A duplicated key is also the parser's to report.
  EXPECT_TRUE(contains(error_from("[train]\nseed = 1\nseed = 2\n"), "line 3"));
}

TEST_F(ConfigTest, MissingFileIsAnInputErrorNamingIt) {
  const std::string path = (dir_ / "absent.toml").string();
  try {
    resolve_config(schema_, path, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().file, path);
  }
}

TEST_F(ConfigTest, TypeMismatchNamesKeyExpectedTypeAndValue) {
  const std::string what = error_from("[train]\nbatch_size = \"big\"\n");
  EXPECT_TRUE(contains(what, "'train.batch_size'")) << what;
  EXPECT_TRUE(contains(what, "expected int")) << what;
  EXPECT_TRUE(contains(what, "big")) << what;
  EXPECT_TRUE(contains(what, "line 2")) << what;
  EXPECT_TRUE(contains(error_from("[train]\nbatch_size = 2.5\n"), "expected int"));
  EXPECT_TRUE(contains(error_from("[train]\nshuffle = 1\n"), "expected bool"));
  EXPECT_TRUE(contains(error_from("[model]\nencoder_hidden = [512, \"x\"]\n"), "expected list of int"));
  EXPECT_TRUE(contains(error_from("[model]\nencoder_hidden = 512\n"), "expected list of int"));
  EXPECT_TRUE(contains(error_from("[train.seed]\nx = 1\n"), "expected int, got table"));
  EXPECT_TRUE(contains(error_from("model = 3\n"), "expected a table"));
}

TEST_F(ConfigTest, IntegersAreAcceptedForDoublesAndIntegralDoublesForInts) {
  const std::string path =
      write("ints.toml", "[train]\nlr = 2\nbatch_size = 128.0\n[model.kernel]\ninit = [1, 2.5]\n");
  const Config config = resolve_config(schema_, path, {"model.kernel.lengthscale=3"});
  EXPECT_EQ(config.get_double("train.lr"), 2.0);
  EXPECT_EQ(config.get_int("train.batch_size"), 128);
  EXPECT_EQ(config.get_double_list("model.kernel.init"), (Doubles{1.0, 2.5}));
  EXPECT_EQ(config.get_double("model.kernel.lengthscale"), 3.0);
}

TEST_F(ConfigTest, RequiredKeyMustBeGiven) {
  ConfigSchema schema = test_schema();
  schema.add_required("data.output", ConfigType::string, "result file");
  try {
    resolve_config(schema, "", {});
    FAIL() << "missing required key accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "data.output");
    EXPECT_TRUE(contains(e.what(), "data.output")) << e.what();
  }
  EXPECT_EQ(resolve_config(schema, "", {"data.output=r.h5"}).get_string("data.output"), "r.h5");
  const std::string path = write("out.toml", "[data]\noutput = \"f.h5\"\n");
  EXPECT_EQ(resolve_config(schema, path, {}).get_string("data.output"), "f.h5");
  EXPECT_TRUE(contains(schema.help_text(), "required"));
}

TEST_F(ConfigTest, ValidationFailuresNameKeyValueRuleAndOrigin) {
  const std::string what = error_from("[train]\nbatch_size = 0\n");
  EXPECT_TRUE(contains(what, "'train.batch_size'")) << what;
  EXPECT_TRUE(contains(what, "value '0'")) << what;
  EXPECT_TRUE(contains(what, "must be in [1, 1048576]")) << what;
  EXPECT_TRUE(contains(what, "line 2")) << what;
  EXPECT_TRUE(contains(what, "bad.toml")) << what;
  try {
    resolve_config(schema_, "", {"train.lr=-1"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "must be > 0")) << e.what();
    EXPECT_TRUE(contains(e.what(), "command line")) << e.what();
  }
  EXPECT_TRUE(contains(error_from("[model]\nencoder_hidden = [512, 0]\n"), "every element must be >= 1"));
  EXPECT_TRUE(contains(error_from("[train]\noptimizer = \"adamw\"\n"), "must be one of: adam, sgd, lbfgs"));
  EXPECT_TRUE(contains(error_from("[data]\npath = \"\"\n"), "must be non-empty"));
  EXPECT_TRUE(contains(error_from("[train]\nlr = nan\n"), "must be > 0"));
  // Rules are checked on the final value: a bad file value fixed on the command line is fine.
  const std::string path = write("fixed.toml", "[train]\nbatch_size = 0\n");
  EXPECT_EQ(resolve_config(schema_, path, {"train.batch_size=8"}).get_int("train.batch_size"), 8);
  EXPECT_EQ(resolve_config(schema_, "", {"train.batch_size=1048576"}).get_int("train.batch_size"), 1 << 20);
}

// ---------------------------------------------------------------- accessors and schema declaration

TEST_F(ConfigTest, AccessorMisuseIsAProgrammingError) {
  const Config config = resolve_config(schema_, "", {});
  auto is_plain_error = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const InputError&) {
      return false;
    } catch (const Error&) {
      return true;
    }
    return false;
  };
  EXPECT_TRUE(is_plain_error([&] { config.get_int("train.nope"); }));
  EXPECT_TRUE(is_plain_error([&] { config.get_double("train.batch_size"); }));
  EXPECT_TRUE(is_plain_error([&] { config.get_string_list("model.encoder_hidden"); }));
  EXPECT_TRUE(is_plain_error([&] { config.was_set("nope.nope"); }));
}

TEST(ConfigSchema, DeclarationMistakesThrow) {
  ConfigSchema schema;
  schema.add_int("train.steps", 10, "steps");
  EXPECT_THROW(schema.add_int("train.steps", 1, "again"), Error);
  EXPECT_THROW(schema.add_int("steps", 1, "no section"), Error);
  EXPECT_THROW(schema.add_int("train..x", 1, "empty segment"), Error);
  EXPECT_THROW(schema.add_int("train.bad key", 1, "space"), Error);
  EXPECT_THROW(schema.add_int("train.steps.sub", 1, "key used as a table"), Error);
  EXPECT_THROW(schema.add_int("train", 1, "no section"), Error);
  schema.add_int("model.kernel.q", 2, "latent dimension");
  EXPECT_THROW(schema.add_int("model.kernel", 1, "table used as a key"), Error);
  EXPECT_THROW(schema.add_int("train.a", 0, "default breaks rule", {ConfigRule::greater_than(0)}), Error);
  EXPECT_THROW(schema.add_string("train.b", "x", "rule of wrong type", {ConfigRule::range(0, 1)}), Error);
  EXPECT_THROW(schema.add_int("train.c", 1, "two\nlines"), Error);
  EXPECT_THROW(schema.add({"train.d", ConfigType::int64, ConfigValue(1.5), "default of wrong type", {}}),
               Error);
  EXPECT_EQ(schema.keys().size(), 2u);
}

TEST(ConfigSchema, HelpTextListsEveryKeyWithTypeDefaultAndDescription) {
  const ConfigSchema schema = test_schema();
  const std::string help = schema.help_text();
  for (const auto& key : schema.keys()) {
    const auto line_start = help.find("  " + key.name + " ");
    ASSERT_NE(line_start, std::string::npos) << key.name;
    const std::string line = help.substr(line_start, help.find('\n', line_start) - line_start);
    EXPECT_NE(line.find(config_type_name(key.type)), std::string::npos) << line;
    EXPECT_NE(line.find(config_value_to_toml(*key.default_value)), std::string::npos) << line;
    EXPECT_NE(line.find(key.description), std::string::npos) << line;
  }
  EXPECT_NE(help.find("must be in [1, 1048576]"), std::string::npos) << help;
}

// ---------------------------------------------------------------- serialisation

TEST_F(ConfigTest, ToTomlRoundTripsAwkwardValues) {
  const Strings overrides = {"data.path=q\"uote \\back\nnew\ttab \x01\x7f caf\xc3\xa9",
                             "data.labels=[\"a,b\", \"\", \"'single'\"]",
                             "train.seed=-9223372036854775808",
                             "train.lr=5e-324",
                             "model.kernel.lengthscale=-0.0",
                             "model.kernel.init=[0.1, 1e20, 1.7976931348623157e308, 0.30000000000000004]",
                             "model.encoder_hidden=[]"};
  const Config original = resolve_config(schema_, "", overrides);
  const std::string toml = original.to_toml();
  const Config again = resolve_config(schema_, write("resolved.toml", toml), {});
  EXPECT_EQ(again, original) << toml;
  EXPECT_EQ(again.to_toml(), toml);
  for (const auto& key : schema_.keys())
    EXPECT_TRUE(again.was_set(key.name)) << key.name;  // every key written
  EXPECT_TRUE(std::signbit(again.get_double("model.kernel.lengthscale")));
  EXPECT_EQ(resolve_config(schema_, "", {}),
            resolve_config_text(schema_, resolve_config(schema_, "", {}).to_toml(), "stored", {}));
}

TEST_F(ConfigTest, ToTomlGroupsTablesInSchemaOrder) {
  const std::string toml = resolve_config(schema_, "", {}).to_toml();
  const auto train = toml.find("[train]\n");
  const auto model = toml.find("[model]\n");
  const auto kernel = toml.find("[model.kernel]\n");
  const auto data = toml.find("[data]\n");
  ASSERT_NE(data, std::string::npos) << toml;
  EXPECT_LT(train, model);
  EXPECT_LT(model, kernel);
  EXPECT_LT(kernel, data);
  EXPECT_LT(toml.find("batch_size = 256"), toml.find("lr = 0.001"));
  EXPECT_NE(toml.find("encoder_hidden = [512, 256]"), std::string::npos) << toml;
}

TEST_F(ConfigTest, ToJsonIsValidNestedAndEscaped) {
  const std::string nasty = "q\"uote \\back\nnew\ttab \x01\x1f end";
  const Config config =
      resolve_config(schema_, "", {"data.path=" + nasty, "train.lr=0.1", "data.labels=[\"}\", \"]\"]"});
  for (const int indent : {0, 2}) {
    const std::string text = config.to_json(indent);
    Json doc;
    ASSERT_NO_THROW(doc = JsonReader(text).document()) << text;
    ASSERT_EQ(doc.kind, Json::object);
    EXPECT_EQ(doc.members.size(), 3u);  // train, model, data
    EXPECT_EQ(doc.at("train").at("batch_size").num, 256);
    EXPECT_EQ(doc.at("train").at("lr").num, 0.1);
    EXPECT_TRUE(doc.at("train").at("shuffle").b);
    EXPECT_EQ(doc.at("data").at("path").str, nasty);
    EXPECT_EQ(doc.at("data").at("labels").items.at(0).str, "}");
    EXPECT_EQ(doc.at("model").at("encoder_hidden").items.size(), 2u);
    EXPECT_EQ(doc.at("model").at("kernel").at("init").items.at(1).num, 2.0);
  }
  EXPECT_THROW(JsonReader("{\"a\": \"raw\nnewline\"}").document(),
               std::runtime_error);  // the reader is strict
}

TEST_F(ConfigTest, ToJsonWritesNonFiniteAsNull) {
  ConfigSchema schema;
  schema.add_double("train.clip", std::numeric_limits<double>::infinity(), "gradient clip (inf: off)");
  const Config config = resolve_config(schema, "", {});
  const Json doc = JsonReader(config.to_json()).document();
  EXPECT_EQ(doc.at("train").at("clip").kind, Json::null);
  // TOML can spell infinity, so to_toml still round-trips it.
  EXPECT_NE(config.to_toml().find("clip = inf"), std::string::npos) << config.to_toml();
  EXPECT_EQ(resolve_config_text(schema, config.to_toml(), "stored", {}), config);
}

}  // namespace
}  // namespace gplvm
