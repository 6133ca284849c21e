// ByteSource's files and memory (core/weights/byte_source.hpp).
#include "core/weights/byte_source.hpp"

#include <cstring>

namespace rv {

std::optional<Error> ByteSource::check_range(std::uint64_t offset, std::uint64_t length) const {
  if (offset > size() || length > size() - offset)
    return bad_request("bytes [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                       ") are past the end of a " + std::to_string(size()) + "-byte file");
  return std::nullopt;
}

std::optional<Error> ByteSource::read(std::uint64_t offset, std::uint64_t length, std::vector<std::uint8_t>& out) {
  if (auto e = check_range(offset, length)) return e;
  if (length == 0) {
    out.clear();
    return std::nullopt;
  }
  if (auto e = missing(offset, length)) return e;
  out.resize(length);
  if (auto e = read_at(offset, length, out.data())) return e;
  bytes_read_ += length;
  return std::nullopt;
}

Expected<const std::uint8_t*> ByteSource::view(std::uint64_t offset, std::uint64_t length,
                                               std::vector<std::uint8_t>& scratch) {
  if (auto e = check_range(offset, length)) return *e;
  if (length)
    if (const std::uint8_t* p = view_at(offset, length)) {
      bytes_read_ += length;
      return p;
    }
  if (auto e = read(offset, length, scratch)) return *e;
  return static_cast<const std::uint8_t*>(scratch.data());
}

Expected<std::unique_ptr<FileSource>> FileSource::open(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error{"IOError", "cannot open " + path};
  const std::streamoff end = in.tellg();
  if (end < 0) return Error{"IOError", "cannot read the size of " + path};
  return std::unique_ptr<FileSource>(new FileSource(std::move(in), std::uint64_t(end), path));
}

std::optional<Error> FileSource::read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) {
  in_.clear();
  in_.seekg(std::streamoff(offset));
  in_.read(reinterpret_cast<char*>(out), std::streamsize(length));
  if (!in_ || std::uint64_t(in_.gcount()) != length) return Error{"IOError", "cannot read " + path_};
  return std::nullopt;
}

std::optional<Error> MemorySource::read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) {
  std::memcpy(out, bytes_.data() + offset, length);
  return std::nullopt;
}

void SuppliedBytes::supply(const std::string& file, std::uint64_t offset, std::vector<std::uint8_t> bytes) {
  supplied += bytes.size();
  ranges[file].push_back(Range{offset, std::move(bytes)});
}

void SuppliedBytes::forget(const std::string& file) { ranges.erase(file); }

SuppliedBytes::Mark SuppliedBytes::mark() const {
  Mark m;
  for (const auto& [file, list] : ranges) m[file] = list.size();
  return m;
}

void SuppliedBytes::truncate(const Mark& m) {
  for (auto it = ranges.begin(); it != ranges.end();) {
    const auto kept = m.find(it->first);
    if (kept == m.end()) {
      it = ranges.erase(it);
      continue;
    }
    if (it->second.size() > kept->second) it->second.resize(kept->second);
    ++it;
  }
}

std::uint64_t SuppliedBytes::held() const {
  std::uint64_t n = 0;
  for (const auto& [file, list] : ranges)
    for (const Range& r : list) n += r.bytes.size();
  return n;
}

const std::uint8_t* SuppliedSource::view_at(std::uint64_t offset, std::uint64_t length) {
  const auto it = store_->ranges.find(file_);
  if (it != store_->ranges.end())
    for (const SuppliedBytes::Range& r : it->second)
      if (offset >= r.offset && offset + length <= r.offset + r.bytes.size())
        return r.bytes.data() + (offset - r.offset);
  return nullptr;
}

std::optional<Error> SuppliedSource::missing(std::uint64_t offset, std::uint64_t length) {
  if (view_at(offset, length)) return std::nullopt;
  if (!store_->wanted) store_->wanted = SuppliedBytes::Want{file_, offset, length};
  return Error{kNeedBytes, file_ + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                               ") are not here yet"};
}

std::optional<Error> SuppliedSource::read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) {
  const std::uint8_t* p = view_at(offset, length);
  if (!p) return missing(offset, length);
  std::memcpy(out, p, length);
  return std::nullopt;
}

}  // namespace rv
