// A checkpoint: one .safetensors file, or model.safetensors.index.json and the shards it names, opened through a
// SourceOpener so disk, a browser's File objects and HTTP ranges share it. Finds tensors by the names transformers
// saves for a *ForCausalLM class and by the base model's own (without "model.", "transformer.", "gpt_neox.").
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/weights/safetensors.hpp"

namespace rv {

using SourceOpener = std::function<Expected<std::unique_ptr<ByteSource>>(const std::string& file)>;

// Files beside a path on disk: dir/name.
SourceOpener disk_opener(const std::string& dir);

class Checkpoint {
 public:
  // One safetensors file, read with open(file).
  static Expected<Checkpoint> open_file(const std::string& file, SourceOpener open);
  // An index's JSON text ({"weight_map": {tensor: shard}}); each shard is read with open(shard).
  static Expected<Checkpoint> open_index(std::string_view index_json, SourceOpener open);
  // A path on disk: an index when it ends in ".json", else a safetensors file.
  static Expected<Checkpoint> open_path(const std::string& path);

  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // in name order, over every shard
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  std::uint64_t header_bytes() const { return header_bytes_; }  // summed over shards
  std::uint64_t file_bytes() const { return file_bytes_; }      // summed over shards
  std::uint64_t bytes_read() const;                             // so far, every shard

  // The tensor of this name as saved, or the same name with a base-model prefix added or removed.
  const TensorInfo* find(std::string_view name) const;
  Expected<RowMatrixXd> read(const TensorInfo& t);
  // Rows [first, first + count) of t only (read_tensor_rows).
  Expected<RowMatrixXd> read_rows(const TensorInfo& t, long long first, long long count);
  // Its stored bytes (the dtype's, little-endian, row-major), in place where the source holds them in memory, else
  // read into scratch (ByteSource::view): for readers that sum or decode them a block of rows at a time.
  Expected<const std::uint8_t*> view_bytes(const TensorInfo& t, std::vector<std::uint8_t>& scratch);

 private:
  std::vector<TensorInfo> tensors_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::uint64_t header_bytes_ = 0, file_bytes_ = 0;
  std::map<std::string, std::shared_ptr<ByteSource>> sources_;  // by file
};

// The prefixes a *ForCausalLM (or *Model wrapper) class puts before the base model's names.
inline constexpr const char* kBaseModelPrefixes[] = {"model.", "transformer.", "gpt_neox."};

}  // namespace rv
