// Where a checkpoint's bytes come from, behind one "read bytes [a, b)" call: a file on disk, bytes in memory (a
// browser File's slices, an HTTP range, a test), each counting what it has read.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"

namespace rv {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Bytes [offset, offset + length) into out (resized to length); an Error when they cannot be read.
  std::optional<Error> read(std::uint64_t offset, std::uint64_t length, std::vector<std::uint8_t>& out);
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  virtual std::optional<Error> read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) = 0;
  std::uint64_t bytes_read_ = 0;
};

// A file on disk, read with seeks: opening a 5 GB checkpoint reads only what is asked for.
class FileSource final : public ByteSource {
 public:
  static Expected<std::unique_ptr<FileSource>> open(const std::string& path);
  std::uint64_t size() const override { return size_; }

 private:
  FileSource(std::ifstream in, std::uint64_t size, std::string path)
      : in_(std::move(in)), size_(size), path_(std::move(path)) {}
  std::optional<Error> read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) override;
  std::ifstream in_;
  std::uint64_t size_;
  std::string path_;
};

// Bytes already in memory.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::vector<std::uint8_t> bytes) : bytes_(std::move(bytes)) {}
  std::uint64_t size() const override { return bytes_.size(); }

 private:
  std::optional<Error> read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) override;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace rv
