// Where a checkpoint's bytes come from, behind one "read bytes [a, b)" call: a file on disk, bytes in memory (a
// test), or ranges supplied from outside (a browser File's slices, HTTP range requests), each counting what it read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
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
  // The same bytes where the source already holds them in memory (no copy), else read into scratch: a 32 MB
  // projection supplied by the page is summed where it lies.
  Expected<const std::uint8_t*> view(std::uint64_t offset, std::uint64_t length, std::vector<std::uint8_t>& scratch);
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  virtual std::optional<Error> read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) = 0;
  // The bytes in place, or nullptr when they are not held in memory (view then reads them).
  virtual const std::uint8_t* view_at(std::uint64_t, std::uint64_t) { return nullptr; }
  // An Error when the bytes cannot be had now (a range not supplied yet), before read makes room for them.
  virtual std::optional<Error> missing(std::uint64_t, std::uint64_t) { return std::nullopt; }
  std::optional<Error> check_range(std::uint64_t offset, std::uint64_t length) const;
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
  const std::uint8_t* view_at(std::uint64_t offset, std::uint64_t) override { return bytes_.data() + offset; }
  std::vector<std::uint8_t> bytes_;
};

// Byte ranges of named files handed over from outside, for readers that cannot block (a browser's File.slice() and
// fetch() answer later). A read of bytes not supplied yet fails with kNeedBytes and records them in `wanted`; the
// caller fetches them, supplies them and runs the whole read again (every earlier range is still here).
struct SuppliedBytes {
  struct Range {
    std::uint64_t offset = 0;
    std::vector<std::uint8_t> bytes;
  };
  struct Want {
    std::string file;
    std::uint64_t offset = 0, length = 0;
  };
  std::map<std::string, std::uint64_t> sizes;             // each file's size in bytes
  std::map<std::string, std::vector<Range>> ranges;       // by file
  std::optional<Want> wanted;                             // the first read that found its bytes missing
  std::uint64_t supplied = 0;                             // bytes handed over so far (what was really read)
  void supply(const std::string& file, std::uint64_t offset, std::vector<std::uint8_t> bytes);
  void forget(const std::string& file);                   // drop a file's ranges (a layer read once is not kept)
  // The ranges held now, per file: truncate(m) drops every range supplied after mark() gave m (a layer walk keeps the
  // headers and lets each layer's projections go once measured). `supplied` still counts them.
  using Mark = std::map<std::string, std::size_t>;
  Mark mark() const;
  void truncate(const Mark& m);
  std::uint64_t held() const;                             // bytes held now, over every file
};
// The size of a file whose size is not known yet (an HTTP answer that did not say it): reads are checked when they
// arrive instead.
inline constexpr std::uint64_t kUnknownFileSize = std::uint64_t(1) << 62;
inline constexpr const char* kNeedBytes = "NeedBytes";  // the Error type of a read whose bytes are not supplied yet

class SuppliedSource final : public ByteSource {
 public:
  SuppliedSource(std::shared_ptr<SuppliedBytes> store, std::string file, std::uint64_t size)
      : store_(std::move(store)), file_(std::move(file)), size_(size) {}
  std::uint64_t size() const override { return size_; }

 private:
  std::optional<Error> read_at(std::uint64_t offset, std::uint64_t length, std::uint8_t* out) override;
  const std::uint8_t* view_at(std::uint64_t offset, std::uint64_t length) override;
  std::optional<Error> missing(std::uint64_t offset, std::uint64_t length) override;
  std::shared_ptr<SuppliedBytes> store_;
  std::string file_;
  std::uint64_t size_;
};

}  // namespace rv
