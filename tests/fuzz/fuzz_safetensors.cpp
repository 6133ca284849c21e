// libFuzzer target: bytes as a safetensors file through read_safetensors_header and read_tensor. Accepted headers
// keep every rule (name order, offsets inside the data, no overlap, byte length = elements x dtype size) and every
// tensor reads (or is refused naming its dtype); refused ones are BadRequests. Never a crash or a hang.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/weights/safetensors.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rv::MemorySource src(std::vector<std::uint8_t>(data, data + size));
  rv::Expected<rv::SafetensorsHeader> h = rv::read_safetensors_header(src, "fuzz.safetensors");
  if (!h) {
    RV_FUZZ_CHECK(h.error().type == "BadRequest");
    return 0;
  }
  RV_FUZZ_CHECK(8 + h->header_bytes <= size);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (std::size_t i = 0; i < h->tensors.size(); ++i) {
    const rv::TensorInfo& t = h->tensors[i];
    if (i) RV_FUZZ_CHECK(h->tensors[i - 1].name < t.name);
    RV_FUZZ_CHECK(8 + h->header_bytes <= t.begin && t.begin <= t.end && t.end <= size);
    if (t.end > t.begin) spans.emplace_back(t.begin, t.end);
    if (t.end - t.begin > (1u << 20)) continue;  // large tensors: the header checks are the point
    rv::Expected<rv::RowMatrixXd> m = rv::read_tensor(src, t);
    if (m) RV_FUZZ_CHECK(m->size() == t.elements());
    else RV_FUZZ_CHECK(m.error().message.find(t.dtype) != std::string::npos);
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) RV_FUZZ_CHECK(spans[i].first >= spans[i - 1].second);
  return 0;
}
