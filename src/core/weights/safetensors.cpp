// The safetensors header, its checks, the four float dtypes and the writer (core/weights/safetensors.hpp).
#include "core/weights/safetensors.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/constants.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/base/format.hpp"
#include "core/base/json_value.hpp"
#include "core/base/json_writer.hpp"
#include "core/rope/precision.hpp"

namespace rv {
namespace {

// Bytes per element of every dtype safetensors defines; 0 for a name it does not.
int dtype_size(std::string_view d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  return 0;
}

bool readable(std::string_view d) {
  return d == "F64" || d == "F32" || d == "F16" || d == "BF16";
}

std::string in_quotes(const std::string& s) {
  return "\"" + s + "\"";
}

// A JSON number that is a whole number in [0, 2^53] (as_integer: exact as written).
bool whole(const JsonValue& v, std::uint64_t& out) {
  const std::optional<long long> i = as_integer(v);
  if (!i || *i < 0 || *i > kExactWholeMax) return false;
  out = std::uint64_t(*i);
  return true;
}

Expected<TensorInfo> tensor_entry(const std::string& name, const JsonValue& v, std::uint64_t data_start,
                                  std::uint64_t data_bytes, const std::string& file) {
  const std::string at = "tensor " + in_quotes(name);
  if (v.kind != JsonValue::Kind::Object)
    return bad_request(at + ": expected an object with dtype, shape, data_offsets");
  const JsonValue* dtype = v.find("dtype");
  const JsonValue* shape = v.find("shape");
  const JsonValue* offsets = v.find("data_offsets");
  if (!dtype || dtype->kind != JsonValue::Kind::String) return bad_request(at + ": \"dtype\" must be a string");
  if (!shape || shape->kind != JsonValue::Kind::Array) return bad_request(at + ": \"shape\" must be an array");
  if (!offsets || offsets->kind != JsonValue::Kind::Array || offsets->array.size() != 2)
    return bad_request(at + ": \"data_offsets\" must be [begin, end]");
  TensorInfo t;
  t.name = name;
  t.dtype = dtype->string;
  t.file = file;
  const int size = dtype_size(t.dtype);
  if (size == 0) return bad_request(at + " has dtype " + in_quotes(t.dtype) + ", which safetensors does not define");
  double count = 1;
  for (const JsonValue& s : shape->array) {
    std::uint64_t n = 0;
    if (!whole(s, n)) return bad_request(at + ": shape entries must be whole numbers >= 0");
    t.shape.push_back((long long)n);
    count *= double(n);
  }
  std::uint64_t begin = 0, end = 0;
  if (!whole(offsets->array[0], begin) || !whole(offsets->array[1], end))
    return bad_request(at + ": data_offsets must be whole numbers >= 0");
  if (begin > end)
    return bad_request(at + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] are reversed");
  if (end > data_bytes)
    return bad_request(at + ": data_offsets end " + std::to_string(end) + " is outside the data (" +
                       std::to_string(data_bytes) + " bytes)");
  if (double(end - begin) != count * size)
    return bad_request(at + ": " + std::to_string(end - begin) + " bytes, but its shape and dtype " + t.dtype +
                       " need " + format_number(count * size));
  t.begin = data_start + begin;
  t.end = data_start + end;
  return t;
}

}  // namespace

long long TensorInfo::elements() const {
  long long n = 1;
  for (long long s : shape) n *= s;
  return n;
}

Expected<std::uint64_t> safetensors_header_length(const std::uint8_t* first8, std::uint64_t file_bytes) {
  if (file_bytes < 8)
    return bad_request("not a safetensors file: " + std::to_string(file_bytes) +
                       " bytes, shorter than the 8-byte "
                       "header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | first8[i];
  if (n > kMaxSafetensorsHeader)
    return bad_request("header length " + std::to_string(n) + " is over the limit of 100,000,000 bytes");
  if (n > file_bytes - 8)
    return bad_request("header length " + std::to_string(n) + " is past the end of the " + std::to_string(file_bytes) +
                       "-byte file");
  return n;
}

Expected<SafetensorsHeader> parse_safetensors_header(std::string_view json, std::uint64_t file_bytes,
                                                     const std::string& file) {
  SafetensorsHeader h;
  h.header_bytes = json.size();
  h.file_bytes = file_bytes;
  if (file_bytes < 8 + h.header_bytes) return bad_request("header length is past the end of the file");
  Expected<JsonValue> doc = parse_json(json, kMaxSafetensorsHeader);
  if (!doc) return bad_request("safetensors header: " + doc.error().message);
  if (doc->kind != JsonValue::Kind::Object) return bad_request("safetensors header is not a JSON object");
  const std::uint64_t data_start = 8 + h.header_bytes, data_bytes = file_bytes - data_start;
  for (const auto& [name, v] : doc->object) {
    if (name == "__metadata__") {
      if (v.kind != JsonValue::Kind::Object) return bad_request("\"__metadata__\" must be an object of strings");
      for (const auto& [key, text] : v.object) {
        if (text.kind != JsonValue::Kind::String) return bad_request("\"__metadata__\"." + key + " must be a string");
        h.metadata.emplace_back(key, text.string);
      }
      continue;
    }
    Expected<TensorInfo> t = tensor_entry(name, v, data_start, data_bytes, file);
    if (!t) return t.error();
    h.tensors.push_back(std::move(t.value()));
  }
  std::sort(h.tensors.begin(), h.tensors.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < h.tensors.size(); ++i)
    if (h.tensors[i].name == h.tensors[i - 1].name)
      return bad_request("tensor " + in_quotes(h.tensors[i].name) + " is named twice in the header");
  // Overlaps: by begin, each empty or starting at or after the end of the one before.
  std::vector<const TensorInfo*> by_begin;
  for (const TensorInfo& t : h.tensors)
    if (t.end > t.begin) by_begin.push_back(&t);
  std::sort(by_begin.begin(), by_begin.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < by_begin.size(); ++i)
    if (by_begin[i]->begin < by_begin[i - 1]->end)
      return bad_request("tensor " + in_quotes(by_begin[i]->name) + " overlaps tensor " +
                         in_quotes(by_begin[i - 1]->name));
  return h;
}

Expected<SafetensorsHeader> read_safetensors_header(ByteSource& src, const std::string& file) {
  std::vector<std::uint8_t> bytes;
  if (src.size() < 8) return safetensors_header_length(nullptr, src.size()).error();
  if (auto e = src.read(0, 8, bytes)) return *e;
  Expected<std::uint64_t> n = safetensors_header_length(bytes.data(), src.size());
  if (!n) return n.error();
  if (auto e = src.read(8, *n, bytes)) return *e;
  return parse_safetensors_header(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                  src.size(), file);
}

double half_to_double(std::uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
  double v;
  if (exponent == 0)
    v = std::ldexp(double(mantissa), -24);
  else if (exponent == 31)
    v = mantissa ? std::nan("") : INFINITY;
  else
    v = std::ldexp(double(mantissa + 1024), exponent - 25);
  return sign ? -v : v;
}

double bfloat16_to_double(std::uint16_t bits) {
  const std::uint32_t word = std::uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &word, 4);
  return f;
}

Expected<RowMatrixXd> decode_tensor(const TensorInfo& t, const std::uint8_t* bytes, std::size_t size) {
  if (!readable(t.dtype))
    return bad_request("tensor " + in_quotes(t.name) + " has dtype " + t.dtype +
                       "; ropeviz reads F64, F32, F16 and BF16");
  const long long n = t.elements();
  if (double(size) != double(n) * dtype_size(t.dtype))
    return bad_request("tensor " + in_quotes(t.name) + ": wrong byte count");
  const long long rows = t.shape.empty() ? 1 : (t.shape.size() == 1 ? 1 : t.shape[0]);
  const long long cols = rows ? n / rows : 0;
  RowMatrixXd m(rows, cols);
  double* out = m.data();
  // The dtype is decided once, not per element: a 4096 x 4096 projection is 16 M of them (docs/real-weights.md).
  if (t.dtype == "F64") {
    for (long long i = 0; i < n; ++i) {
      const std::uint8_t* p = bytes + i * 8;
      std::uint64_t w = 0;
      for (int b = 7; b >= 0; --b) w = (w << 8) | p[b];
      std::memcpy(&out[i], &w, 8);
    }
  } else if (t.dtype == "F32") {
    for (long long i = 0; i < n; ++i) out[i] = f32_at(bytes + i * 4);
  } else if (t.dtype == "F16") {
    for (long long i = 0; i < n; ++i) out[i] = half_to_double(std::uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8));
  } else {
    for (long long i = 0; i < n; ++i) out[i] = bf16_at(bytes + i * 2);
  }
  return m;
}

Expected<RowMatrixXd> read_tensor(ByteSource& src, const TensorInfo& t) {
  if (!readable(t.dtype))
    return bad_request("tensor " + in_quotes(t.name) + " has dtype " + t.dtype +
                       "; ropeviz reads F64, F32, F16 and BF16");
  std::vector<std::uint8_t> bytes;
  if (auto e = src.read(t.begin, t.end - t.begin, bytes)) return *e;
  return decode_tensor(t, bytes.data(), bytes.size());
}

Expected<RowMatrixXd> read_tensor_rows(ByteSource& src, const TensorInfo& t, long long first, long long count) {
  if (!readable(t.dtype))
    return bad_request("tensor " + in_quotes(t.name) + " has dtype " + t.dtype +
                       "; ropeviz reads F64, F32, F16 and BF16");
  const long long rows = t.shape.size() <= 1 ? 1 : t.shape[0];
  if (first < 0 || count < 0 || first > rows - count)
    return bad_request("tensor " + in_quotes(t.name) + " has " + std::to_string(rows) + " rows: no rows " +
                       std::to_string(first) + ".." + std::to_string(first + count - 1));
  const long long cols = rows ? t.elements() / rows : 0;
  TensorInfo part = t;
  part.shape = {count, cols};
  const std::uint64_t row_bytes = std::uint64_t(cols) * std::uint64_t(dtype_size(t.dtype));
  part.begin = t.begin + std::uint64_t(first) * row_bytes;
  part.end = part.begin + std::uint64_t(count) * row_bytes;
  std::vector<std::uint8_t> bytes;
  if (auto e = src.read(part.begin, part.end - part.begin, bytes)) return *e;
  return decode_tensor(part, bytes.data(), bytes.size());
}

namespace {
std::uint16_t half_bits(double x) {
  const double r = round_to(FloatFormat::F16, x);
  const std::uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  const double a = std::fabs(r);
  if (std::isnan(r)) return 0x7E00;
  if (std::isinf(a)) return sign | 0x7C00;
  if (a < std::ldexp(1.0, -14)) return sign | std::uint16_t(a / std::ldexp(1.0, -24));  // subnormal: exact
  int e = 0;
  const double f = std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  return sign | std::uint16_t((e + 14) << 10) | std::uint16_t((f * 2048.0) - 1024.0);
}

std::uint16_t bfloat16_bits(double x) {
  const float f = float(round_to(FloatFormat::BF16, x));
  std::uint32_t w;
  std::memcpy(&w, &f, 4);
  return std::uint16_t(w >> 16);
}

void put(std::vector<std::uint8_t>& out, std::uint64_t w, int bytes) {
  for (int b = 0; b < bytes; ++b) out.push_back(std::uint8_t(w >> (8 * b)));
}
}  // namespace

Expected<std::vector<std::uint8_t>> write_safetensors(
    const std::vector<TensorToWrite>& tensors, const std::string& dtype,
    const std::vector<std::pair<std::string, std::string>>& metadata) {
  if (!readable(dtype)) return bad_request("write_safetensors: dtype must be F64, F32, F16 or BF16, got " + dtype);
  const int size = dtype_size(dtype);
  JsonWriter j;
  j.begin_object();
  if (!metadata.empty()) {
    j.key("__metadata__").begin_object();
    for (const auto& [k, v] : metadata) j.key(k.c_str()).value(v);
    j.end_object();
  }
  std::uint64_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    long long n = 1;
    for (long long s : t.shape) n *= s;
    if (n != (long long)t.values.size())
      return bad_request("write_safetensors: tensor " + in_quotes(t.name) + " has " + std::to_string(t.values.size()) +
                         " values for its shape's " + std::to_string(n));
    j.key(t.name.c_str()).begin_object().field("dtype", dtype).key("shape").begin_array();
    for (long long s : t.shape) j.value(s);
    j.end_array().key("data_offsets").begin_array().value((long long)offset);
    offset += std::uint64_t(n) * size;
    j.value((long long)offset).end_array().end_object();
  }
  j.end_object();
  std::string header = j.str();
  while ((8 + header.size()) % 8) header += ' ';  // the data starts 8-aligned, as safetensors writes it
  std::vector<std::uint8_t> out;
  put(out, header.size(), 8);
  out.insert(out.end(), header.begin(), header.end());
  for (const TensorToWrite& t : tensors)
    for (double x : t.values) {
      if (dtype == "F64") {
        std::uint64_t w;
        std::memcpy(&w, &x, 8);
        put(out, w, 8);
      } else if (dtype == "F32") {
        const float f = float(x);
        std::uint32_t w;
        std::memcpy(&w, &f, 4);
        put(out, w, 4);
      } else {
        put(out, dtype == "F16" ? half_bits(x) : bfloat16_bits(x), 2);
      }
    }
  return out;
}

}  // namespace rv
