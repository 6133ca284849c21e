// Request lines through core's JSON reader: size and depth guards, NaN/Infinity fallback; values written back.
#include "cli/json_text.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace rv::cli {
namespace {
using Kind = JsonValue::Kind;

// Non-finite numbers to the strings Python's tokens spell, -0 (an integer token) to 0.
void settle_numbers(JsonValue& v) {
  if (v.kind == Kind::Number && !std::isfinite(v.number)) {
    v.kind = Kind::String;
    v.string = std::isnan(v.number) ? "NaN" : (v.number > 0 ? "Infinity" : "-Infinity");
    v.number = 0.0;
  } else if (v.kind == Kind::Number && v.exact) {
    v.number = static_cast<double>(*v.exact);
  }
  for (JsonValue& e : v.array) settle_numbers(e);
  for (auto& member : v.object) settle_numbers(member.second);
}

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

Expected<JsonValue> parse_json_text(std::string_view text, std::size_t max_bytes) {
  if (auto e = check_json_text(text, max_bytes)) return *e;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  Expected<JsonValue> j = parse_json(text, max_bytes);
  if (!j)
    if (auto quoted = quote_nonfinite_literals(text))
      if (Expected<JsonValue> k = parse_json(*quoted, quoted->size())) j = std::move(k);
  if (!j) return j.error();
  settle_numbers(j.value());
  return j;
}

void write_json(JsonWriter& w, const JsonValue& v) {
  switch (v.kind) {
    case Kind::Null:
      w.null();
      break;
    case Kind::Boolean:
      w.value(v.boolean);
      break;
    case Kind::Number:
      if (v.exact)
        w.value(*v.exact);
      else
        w.value(v.number);
      break;
    case Kind::String:
      w.value(v.string);
      break;
    case Kind::Array:
      w.begin_array();
      for (const JsonValue& e : v.array) write_json(w, e);
      w.end_array();
      break;
    case Kind::Object:
      w.begin_object();
      for (std::size_t i = 0; i < v.object.size(); ++i) {
        const std::string& key = v.object[i].first;
        bool seen = false;
        for (std::size_t k = 0; k < i && !seen; ++k) seen = v.object[k].first == key;
        if (seen) continue;
        w.key(key);
        write_json(w, *v.find(key));
      }
      w.end_object();
      break;
  }
}

std::string json_text(const JsonValue& v) {
  JsonWriter w = response_writer();
  write_json(w, v);
  return w.str();
}

}  // namespace rv::cli
