// Request lines through nlohmann-json without exceptions escaping: size and depth guards, NaN/Infinity fallback.
#include "cli/json_text.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace rv::cli {
namespace {
using json = nlohmann::ordered_json;

// A SAX consumer that accepts everything and keeps the parser's error message (nlohmann hands it the exception
// object instead of throwing it).
struct ErrorOnly : nlohmann::json_sax<json> {
  std::string message = "not valid JSON";
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    message = ex.what();
    return false;
  }
};

}  // namespace

std::optional<Error> check_json_text(std::string_view text, std::size_t max_bytes, int max_depth) {
  if (text.size() > max_bytes)
    return bad_request("JSON text of " + std::to_string(text.size()) + " bytes is over the limit of " +
                       std::to_string(max_bytes) + " bytes");
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\')
        ++i;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth)
        return bad_request("JSON nests deeper than the limit of " + std::to_string(max_depth) + " levels");
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

std::optional<std::string> quote_nonfinite_literals(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false, found = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (ch == '"')
        in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    bool replaced = false;
    for (std::string_view word :
         {std::string_view("NaN"), std::string_view("-Infinity"), std::string_view("Infinity")}) {
      if (text.substr(i, word.size()) == word) {
        out += '"';
        out += word;
        out += '"';
        i += word.size() - 1;
        replaced = found = true;
        break;
      }
    }
    if (!replaced && (ch == '-' || (ch >= '0' && ch <= '9'))) {
      // A number literal past a double's range (1e400, 400 nines) reads as an infinity, named by its field.
      std::size_t end = i + 1;
      while (end < text.size() && std::strchr("0123456789.eE+-", text[end])) ++end;
      const std::string literal(text.substr(i, end - i));
      if (std::isinf(std::strtod(literal.c_str(), nullptr))) {
        out += literal[0] == '-' ? "\"-Infinity\"" : "\"Infinity\"";
        replaced = found = true;
      } else {
        out += literal;
        replaced = true;
      }
      i = end - 1;
    }
    if (!replaced) out += ch;
  }
  if (!found) return std::nullopt;
  return out;
}

Expected<json> parse_json_text(std::string_view text, std::size_t max_bytes) {
  if (auto e = check_json_text(text, max_bytes)) return *e;
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (!j.is_discarded()) return j;
  if (auto quoted = quote_nonfinite_literals(text)) {
    json k = json::parse(*quoted, nullptr, false);
    if (!k.is_discarded()) return k;
  }
  ErrorOnly handler;  // parse again, only to get nlohmann's message with the position, without a throw
  json::sax_parse(text.begin(), text.end(), &handler);
  return bad_request("malformed JSON: " + handler.message);
}

}  // namespace rv::cli
