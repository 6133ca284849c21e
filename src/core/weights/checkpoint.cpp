// Checkpoints of one file or of shards, and name lookup with and without the base-model prefix
// (core/weights/checkpoint.hpp).
#include "core/weights/checkpoint.hpp"

#include <algorithm>

#include "core/base/json_value.hpp"

namespace rv {

SourceOpener disk_opener(const std::string& dir) {
  return [dir](const std::string& file) -> Expected<std::unique_ptr<ByteSource>> {
    auto f = FileSource::open(dir.empty() ? file : dir + "/" + file);
    if (!f) return f.error();
    return std::unique_ptr<ByteSource>(std::move(f.value()));
  };
}

Expected<Checkpoint> Checkpoint::open_file(const std::string& file, SourceOpener open) {
  Expected<std::unique_ptr<ByteSource>> src = open(file);
  if (!src) return src.error();
  std::shared_ptr<ByteSource> source(std::move(src.value()));
  Expected<SafetensorsHeader> h = read_safetensors_header(*source, file);
  if (!h) return Error{h.error().type, file + ": " + h.error().message};
  Checkpoint c;
  c.tensors_ = h->tensors;
  c.metadata_ = h->metadata;
  c.header_bytes_ = h->header_bytes;
  c.file_bytes_ = h->file_bytes;
  c.sources_[file] = source;
  return c;
}

Expected<Checkpoint> Checkpoint::open_index(std::string_view index_json, SourceOpener open) {
  Expected<JsonValue> doc = parse_json(index_json);
  if (!doc) return bad_request("model.safetensors.index.json: " + doc.error().message);
  const JsonValue* map = doc->kind == JsonValue::Kind::Object ? doc->find("weight_map") : nullptr;
  if (!map || map->kind != JsonValue::Kind::Object)
    return bad_request("model.safetensors.index.json has no \"weight_map\" object");
  std::vector<std::string> shards;
  for (const auto& [name, shard] : map->object) {
    if (shard.kind != JsonValue::Kind::String)
      return bad_request("weight_map entry \"" + name + "\" must name a shard file");
    if (shard.string.empty() || shard.string.find('/') != std::string::npos ||
        shard.string.find('\\') != std::string::npos)
      return bad_request("weight_map entry \"" + name + "\" names \"" + shard.string +
                         "\": shards must sit beside the index");
    if (std::find(shards.begin(), shards.end(), shard.string) == shards.end()) shards.push_back(shard.string);
  }
  if (shards.empty()) return bad_request("model.safetensors.index.json's weight_map is empty");
  Checkpoint c;
  for (const std::string& shard : shards) {
    Expected<Checkpoint> one = open_file(shard, open);
    if (!one) return one.error();
    c.tensors_.insert(c.tensors_.end(), one->tensors_.begin(), one->tensors_.end());
    c.metadata_.insert(c.metadata_.end(), one->metadata_.begin(), one->metadata_.end());
    c.header_bytes_ += one->header_bytes_;
    c.file_bytes_ += one->file_bytes_;
    c.sources_.insert(one->sources_.begin(), one->sources_.end());
  }
  for (const auto& entry : map->object) {  // not a structured binding: clang 14 cannot capture one in a lambda
    const std::string& name = entry.first;
    const JsonValue& shard = entry.second;
    const auto it =
        std::find_if(c.tensors_.begin(), c.tensors_.end(), [&](const TensorInfo& t) { return t.name == name; });
    if (it == c.tensors_.end())
      return bad_request("weight_map names tensor \"" + name + "\" in " + shard.string + ", which does not hold it");
    if (it->file != shard.string)
      return bad_request("weight_map puts tensor \"" + name + "\" in " + shard.string + ", but it is in " + it->file);
  }
  std::sort(c.tensors_.begin(), c.tensors_.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < c.tensors_.size(); ++i)
    if (c.tensors_[i].name == c.tensors_[i - 1].name)
      return bad_request("tensor \"" + c.tensors_[i].name + "\" is in two shards");
  return c;
}

Expected<Checkpoint> Checkpoint::open_path(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() >= 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
    Expected<std::unique_ptr<FileSource>> index = FileSource::open(path);
    if (!index) return index.error();
    std::vector<std::uint8_t> bytes;
    if ((*index)->size() > kMaxJsonBytes) return bad_request(path + " is too large for an index");
    if (auto e = (*index)->read(0, (*index)->size(), bytes)) return *e;
    return open_index(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), disk_opener(dir));
  }
  return open_file(name, disk_opener(dir));
}

std::uint64_t Checkpoint::bytes_read() const {
  std::uint64_t n = 0;
  for (const auto& [file, src] : sources_) n += src->bytes_read();
  return n;
}

const TensorInfo* Checkpoint::find(std::string_view name) const {
  const auto exact = [&](std::string_view n) -> const TensorInfo* {
    const auto it = std::lower_bound(tensors_.begin(), tensors_.end(), n,
                                     [](const TensorInfo& t, std::string_view key) { return t.name < key; });
    return it != tensors_.end() && it->name == n ? &*it : nullptr;
  };
  if (const TensorInfo* t = exact(name)) return t;
  for (const char* prefix : kBaseModelPrefixes) {
    const std::string_view p(prefix);
    if (name.substr(0, p.size()) == p) {
      if (const TensorInfo* t = exact(name.substr(p.size()))) return t;
    } else if (const TensorInfo* t = exact(std::string(p) + std::string(name))) {
      return t;
    }
  }
  return nullptr;
}

Expected<RowMatrixXd> Checkpoint::read(const TensorInfo& t) {
  const auto it = sources_.find(t.file);
  if (it == sources_.end()) return bad_request("tensor \"" + t.name + "\" names a file this checkpoint did not open");
  return read_tensor(*it->second, t);
}

Expected<RowMatrixXd> Checkpoint::read_rows(const TensorInfo& t, long long first, long long count) {
  const auto it = sources_.find(t.file);
  if (it == sources_.end()) return bad_request("tensor \"" + t.name + "\" names a file this checkpoint did not open");
  return read_tensor_rows(*it->second, t, first, count);
}

Expected<const std::uint8_t*> Checkpoint::view_bytes(const TensorInfo& t, std::vector<std::uint8_t>& scratch) {
  const auto it = sources_.find(t.file);
  if (it == sources_.end()) return bad_request("tensor \"" + t.name + "\" names a file this checkpoint did not open");
  return it->second->view(t.begin, t.end - t.begin, scratch);
}

}  // namespace rv
