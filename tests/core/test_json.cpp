// parse_json: the values it builds, and the line, column and expectation of each error.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "core/base/json_fields.hpp"
#include "core/base/json_value.hpp"
#include "core/base/json_writer.hpp"
#include "core/base/utf8.hpp"

using namespace rv;
using Kind = JsonValue::Kind;

namespace {
JsonValue parsed(std::string_view text) {
  auto v = parse_json(text);
  REQUIRE_MESSAGE(v.ok(), (v ? std::string() : v.error().message));
  return *v;
}

std::string error_of(std::string_view text, std::size_t max_bytes = kMaxJsonBytes, int max_depth = kMaxJsonDepth) {
  auto v = parse_json(text, max_bytes, max_depth);
  if (v) return "(no error)";
  CHECK(v.error().type == "BadRequest");
  return v.error().message;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}
}  // namespace

TEST_CASE("parse_json: nested values keep their kinds and member order") {
  const JsonValue v = parsed(R"({"a":[1,{"b":null}],"c":{"d":true,"e":false},"s":"x"})");
  REQUIRE(v.kind == Kind::Object);
  REQUIRE(v.object.size() == 3);
  CHECK(v.object[0].first == "a");
  CHECK(v.object[1].first == "c");
  CHECK(v.object[2].first == "s");
  const JsonValue& a = *v.find("a");
  REQUIRE(a.kind == Kind::Array);
  REQUIRE(a.array.size() == 2);
  CHECK(a.array[0].kind == Kind::Number);
  CHECK(a.array[0].number == 1.0);
  REQUIRE(a.array[1].find("b") != nullptr);
  CHECK(a.array[1].find("b")->kind == Kind::Null);
  CHECK(v.find("c")->find("d")->boolean);
  CHECK(v.find("c")->find("e")->kind == Kind::Boolean);
  CHECK_FALSE(v.find("c")->find("e")->boolean);
  CHECK(v.find("s")->string == "x");
  CHECK(v.find("missing") == nullptr);
  CHECK(a.find("a") == nullptr);  // not an object
}

TEST_CASE("parse_json: scalars and empty containers at the top level") {
  CHECK(parsed("true").boolean);
  CHECK(parsed("null").kind == Kind::Null);
  CHECK(parsed(R"("")").kind == Kind::String);
  CHECK(parsed("42").number == 42.0);
  CHECK(parsed("[]").array.empty());
  CHECK(parsed("{}").object.empty());
  CHECK(parsed(R"({"":{}})").find("")->kind == Kind::Object);
  CHECK(parsed("[[]]").array.at(0).kind == Kind::Array);
}

TEST_CASE("parse_json: escapes, \\u escapes and surrogate pairs become UTF-8") {
  CHECK(parsed(R"("\"\\\/\b\f\n\r\t")").string == "\"\\/\b\f\n\r\t");
  CHECK(parsed(R"("caf\u00e9")").string == "caf\xC3\xA9");
  CHECK(parsed("\"caf\xC3\xA9\"").string == "caf\xC3\xA9");  // raw UTF-8 is kept
  CHECK(parsed(R"("\u20AC")").string == "\xE2\x82\xAC");
  CHECK(parsed(R"("\uD83D\uDE00")").string == "\xF0\x9F\x98\x80");
  CHECK(parsed(R"("\u0000")").string == std::string(1, '\0'));
}

TEST_CASE("parse_json: numbers, their integer flag and the NaN/Infinity tokens") {
  for (const char* text : {"1e3", "1E3", "1e+3", "1000.0", "10e2"}) {
    CAPTURE(text);
    const JsonValue v = parsed(text);
    CHECK(v.number == 1000.0);
    CHECK_FALSE(v.integer);
  }
  CHECK(parsed("2.5E-1").number == 0.25);
  CHECK(parsed("1000").integer);
  const JsonValue minus_zero = parsed("-0");
  CHECK(minus_zero.integer);
  CHECK(minus_zero.number == 0.0);
  CHECK(std::signbit(minus_zero.number));
  CHECK(parsed("-0.0e0").number == 0.0);
  CHECK(parsed("9007199254740993").number == 9007199254740992.0);  // rounded to the nearest double
  CHECK(parsed("18446744073709551616").integer);
  CHECK(parsed("1e-400").number == 0.0);  // underflow is not an error
  CHECK(parsed("4.9e-324").number > 0.0);
  CHECK(std::isnan(parsed("NaN").number));
  CHECK(parsed("Infinity").number == HUGE_VAL);
  CHECK(parsed("[-Infinity]").array.at(0).number == -HUGE_VAL);
  CHECK(parsed("-Infinity").kind == Kind::Number);
}

TEST_CASE("parse_json: duplicate keys are kept in order, find returns the last") {
  const JsonValue v = parsed(R"({"a":1,"b":2,"a":3})");
  REQUIRE(v.object.size() == 3);
  CHECK(v.find("a")->number == 3.0);
  CHECK(v.object[0].second.number == 1.0);
}

TEST_CASE("parse_json: whitespace around every token; depth and size up to their limits") {
  const JsonValue v = parsed(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] }\r\n");
  CHECK(v.find("a")->array.size() == 2);
  CHECK(parsed(nested(64)).kind == Kind::Array);
  CHECK(parse_json("[1]", 3).ok());
  CHECK(parse_json("[[1]]", kMaxJsonBytes, 2).ok());
}

TEST_CASE("parse_json: each error names its line, column and what was expected") {
  const std::string M = "malformed JSON at line ";
  const std::pair<std::string, std::string> cases[] = {
      {"[1,2,]", M + "1, column 6: expected a value, got ']'"},
      {R"({"a":1,})", M + "1, column 8: expected a string key, got '}'"},
      {"01", M + "1, column 2: expected no digit after a leading 0, got '1'"},
      {"[-012]", M + "1, column 4: expected no digit after a leading 0, got '1'"},
      {R"("\uDC00")", M + "1, column 2: expected a high surrogate before \\uDC00"},
      {R"("\uD800")", M + "1, column 2: expected a low surrogate after \\uD800"},
      {R"(["\uD83D\u0041"])", M + "1, column 3: expected a low surrogate after \\uD83D"},
      {"\"a\tb\"", M + "1, column 3: expected a string character or an escape, got byte 0x09"},
      {"\"a\nb\"", M + "1, column 3: expected a string character or an escape, got byte 0x0A"},
      {R"({"abc)", M + "1, column 6: expected '\"' to end the string, got the end of the text"},
      {"{} x", M + "1, column 4: expected the end of the text, got 'x'"},
      {"[1]\n]", M + "2, column 1: expected the end of the text, got ']'"},
      {std::string("[1]\0", 4), M + "1, column 4: expected the end of the text, got byte 0x00"},
      {"", M + "1, column 1: expected a value, got the end of the text"},
      {"  \n ", M + "2, column 2: expected a value, got the end of the text"},
      {"-", M + "1, column 2: expected a digit, got the end of the text"},
      {"1.", M + "1, column 3: expected a digit after '.', got the end of the text"},
      {"1.e5", M + "1, column 3: expected a digit after '.', got 'e'"},
      {"1e+", M + "1, column 4: expected a digit in the exponent, got the end of the text"},
      {".5", M + "1, column 1: expected a value, got '.'"},
      {"+1", M + "1, column 1: expected a value, got '+'"},
      {"-NaN", M + "1, column 2: expected a digit, got 'N'"},
      {"[1e400]", M + "1, column 2: expected a number within the range of a double, got 1e400"},
      {"-1e999", M + "1, column 1: expected a number within the range of a double, got -1e999"},
      {R"("\x")", M + "1, column 3: expected an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX, got 'x'"},
      {R"("\u12G4")", M + "1, column 6: expected a hex digit (\\u takes four), got 'G'"},
      {"\"\xFF\"", M + "1, column 2: expected UTF-8 text, got byte 0xFF"},
      {"\"\xC0\xAF\"", M + "1, column 2: expected UTF-8 text, got byte 0xC0"},      // overlong '/'
      {"\"\xED\xA0\x80\"", M + "1, column 2: expected UTF-8 text, got byte 0xED"},  // an encoded surrogate
      {"\"\xE2\x82\"", M + "1, column 2: expected UTF-8 text, got byte 0xE2"},      // cut short
      {"{\n  \"a\": 1,\n  \"b\": tru\n}", M + "3, column 8: expected a value, got 't'"},
      {"// comment\n{}", M + "1, column 1: expected a value, got '/'"},
      {"{'a':1}", M + "1, column 2: expected a string key, got '''"},
      {R"({"a" 1})", M + "1, column 6: expected ':', got '1'"},
      {"[1 2]", M + "1, column 4: expected ',' or ']', got '2'"},
      {R"({"a":1 "b":2})", M + "1, column 8: expected ',' or '}', got '\"'"},
      {"[", M + "1, column 2: expected a value, got the end of the text"},
      {"nul", M + "1, column 1: expected a value, got 'n'"},
      {nested(65), "JSON nests deeper than the limit of 64 levels at line 1, column 65"},
      {"[" + repeat(R"({"a":)", 64), "JSON nests deeper than the limit of 64 levels at line 1, column 317"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.first);
    CHECK(error_of(c.first) == c.second);
  }
}

TEST_CASE("parse_json: the size limit comes first, the depth limit is a parameter, deep input does not recurse") {
  CHECK(error_of("[1, 2]", 3) == "JSON text of 6 bytes is over the limit of 3 bytes");
  CHECK(error_of(std::string(1000, '['), 10) == "JSON text of 1000 bytes is over the limit of 10 bytes");
  CHECK(error_of("[[1]]", kMaxJsonBytes, 1) == "JSON nests deeper than the limit of 1 levels at line 1, column 2");
  CHECK(error_of(nested(1000000)) == "JSON nests deeper than the limit of 64 levels at line 1, column 65");
}

TEST_CASE("JsonWriter: float_point spells doubles as the CLI does; escapes and bytes that are not UTF-8") {
  rv::JsonWriter w(false, true);
  w.begin_array().value(1.0).value(-0.0).value(0.0001).value(1e-5).value(1e15).value(123456789012345.6).value(2.5e-7);
  w.value(1e300).value(7LL).end_array();
  CHECK(w.str() == "[1.0,-0.0,0.0001,1e-05,1e+15,123456789012345.6,2.5e-07,1e+300,7]");
  CHECK(w.finite());
  rv::JsonWriter s;
  s.value(std::string("a\nb\t\x01\xff\xe2\x82", 7)).value(std::nan(""));
  CHECK(s.str() == "\"a\\nb\\t\\u0001\xEF\xBF\xBD\xEF\xBF\xBD\",null");
  CHECK(!s.finite());
}

TEST_CASE("FieldReader: integer tokens are exact within long long's range, messages name the field") {
  auto j = rv::parse_json(R"({"a":9007199254740993,"b":18446744073709551615,"c":4.0,"d":"x","o":{"f":1.5}})");
  REQUIRE(j);
  rv::FieldReader r(*j);
  CHECK(r.integer("a") == 9007199254740993LL);
  CHECK(!r.error);
  CHECK(r.integer("c") == 4);
  r.integer("b");
  CHECK(r.error->message == "\"b\" is too large");
  rv::FieldReader o(*j->find("o"), "o.");
  o.integer("f");
  CHECK(o.error->message == "\"o.f\" must be an integer, got 1.5");
}

TEST_CASE("utf8: maximal subparts, code points and their bytes, one reader for JSON and tokenizers") {
  const std::string s =
      "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xE2\x82"
      "b\xC0\xED\xA0\x80";
  struct Seq {
    std::size_t n;
    bool whole;
    char32_t cp;
  };
  const Seq want[] = {{1, true, U'a'}, {2, true, 0xE9}, {3, true, 0x20AC}, {4, true, 0x1F600},
                      {2, false, 0},   {1, true, U'b'}, {1, false, 0},     {1, false, 0},
                      {1, false, 0},   {1, false, 0}};  // "\xE2\x82" cut short; C0 never leads; ED A0 is a surrogate
  std::size_t i = 0;
  for (const Seq& w : want) {
    REQUIRE(i < s.size());
    bool whole = false;
    const std::size_t n = rv::utf8_sequence(s, i, whole);
    CHECK(n == w.n);
    CHECK(whole == w.whole);
    if (whole) CHECK(rv::utf8_code_point(s, i, n) == w.cp);
    i += n;
  }
  CHECK(i == s.size());
  std::string out;
  for (char32_t c : {char32_t(0x41), char32_t(0xE9), char32_t(0x20AC), char32_t(0x1F600), char32_t(0xD800)})
    rv::append_utf8(out, c);
  CHECK(out == "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD");
}
