// Safetensors files (docs/real-weights.md): the little-endian u64 header length N, N bytes of JSON naming each
// tensor's dtype, shape and data offsets, then the data. Parsed from the header alone; a tensor is read on demand.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/matrix.hpp"
#include "core/weights/byte_source.hpp"

namespace rv {

constexpr std::uint64_t kMaxSafetensorsHeader = 100000000;  // N past this is refused, as safetensors does

struct TensorInfo {
  std::string name, dtype;  // dtype as written: "F32", "BF16", "I64", ...
  std::vector<long long> shape;
  std::uint64_t begin = 0, end = 0;  // absolute byte offsets in the file: [8 + N + data_offsets[0], ...)
  std::string file;                  // the file it lives in (its shard, for a sharded checkpoint)
  long long elements() const;
};

struct SafetensorsHeader {
  std::uint64_t header_bytes = 0, file_bytes = 0;  // N, and the whole file
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<TensorInfo> tensors;  // in name order
};

// N from the file's first 8 bytes, checked against the file's size: BadRequest for a file shorter than 8 bytes, an N
// over kMaxSafetensorsHeader or past the end of the file.
Expected<std::uint64_t> safetensors_header_length(const std::uint8_t* first8, std::uint64_t file_bytes);
// The header's JSON (the N bytes after the first 8) against a file of file_bytes bytes: every tensor's dtype, shape
// and offsets checked (reversed, outside the data, overlapping another, a byte length that is not
// product(shape) x the dtype's size), naming the tensor at fault.
Expected<SafetensorsHeader> parse_safetensors_header(std::string_view json, std::uint64_t file_bytes,
                                                     const std::string& file);
// Both, reading only the first 8 + N bytes of src.
Expected<SafetensorsHeader> read_safetensors_header(ByteSource& src, const std::string& file);

// A tensor's bytes (end - begin of them, little-endian, row-major) as float64, [shape[0], product of the rest]
// (a 1-D tensor is one row). F64, F32, F16 and BF16; another dtype is refused naming the tensor and its dtype.
Expected<RowMatrixXd> decode_tensor(const TensorInfo& t, const std::uint8_t* bytes, std::size_t size);
Expected<RowMatrixXd> read_tensor(ByteSource& src, const TensorInfo& t);
// Rows [first, first + count) of a tensor (its first dimension; a 1-D tensor is one row): only their bytes are read,
// [count, product of the rest]. A range outside the rows is a BadRequest naming the tensor.
Expected<RowMatrixXd> read_tensor_rows(ByteSource& src, const TensorInfo& t, long long first, long long count);

// One stored float32 or bfloat16 from its little-endian bytes, inline for the loops over 16 M of them (decode_tensor,
// rope_usage's sums): a bf16 is the top half of a float32.
inline float f32_at(const std::uint8_t* p) {
  const std::uint32_t w = std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
                          std::uint32_t(p[3]) << 24;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}
inline float bf16_at(const std::uint8_t* p) {
  const std::uint32_t w = std::uint32_t(p[0] | p[1] << 8) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

// float16 and bfloat16 bit patterns as numbers (exact: every value of either is a double).
double half_to_double(std::uint16_t bits);
double bfloat16_to_double(std::uint16_t bits);

// A safetensors file of the given tensors (name, shape, row-major values) stored in dtype (F64, F32, F16 or BF16,
// rounded to nearest even), with metadata: for the lab's saved weights and the tests' generated checkpoints.
struct TensorToWrite {
  std::string name;
  std::vector<long long> shape;
  std::vector<double> values;
};
Expected<std::vector<std::uint8_t>> write_safetensors(const std::vector<TensorToWrite>& tensors,
                                                      const std::string& dtype,
                                                      const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace rv
