// The lab's trained decoders as safetensors checkpoints (core/lab/lab_checkpoint.hpp).
#include "core/lab/lab_checkpoint.hpp"

#include <algorithm>
#include <string_view>

#include "core/base/json_writer.hpp"

namespace rv {

Expected<std::vector<std::uint8_t>> lab_safetensors(const LabTrained& t) {
  std::vector<TensorToWrite> tensors;
  for (const WeightRef<const float>& w : weight_refs(t.config, t.weights))
    tensors.push_back({w.name, w.shape, std::vector<double>(w.data, w.data + w.size)});
  return write_safetensors(tensors, "F32", {{"format", "pt"}, {"ropeviz", "lab"}});
}

Expected<LabTrained> read_lab_safetensors(const std::vector<std::uint8_t>& bytes, const DecoderConfig& config,
                                          int steps_run) {
  if (bytes.size() < 8) return bad_request("lab weights: shorter than a safetensors header");
  const Expected<std::uint64_t> n = safetensors_header_length(bytes.data(), bytes.size());
  if (!n) return n.error();
  const std::string_view json(reinterpret_cast<const char*>(bytes.data()) + 8, std::size_t(*n));
  const Expected<SafetensorsHeader> header = parse_safetensors_header(json, bytes.size(), "lab weights");
  if (!header) return header.error();
  LabTrained t{config.position, config, zero_weights<float>(config), steps_run};
  for (const WeightRef<float>& w : weight_refs(config, t.weights)) {
    const auto info = std::find_if(header->tensors.begin(), header->tensors.end(),
                                   [&](const TensorInfo& i) { return i.name == w.name; });
    if (info == header->tensors.end() || info->dtype != "F32" || info->shape != w.shape)
      return bad_request("lab weights: no F32 tensor " + w.name + " of the decoder's shape");
    const Expected<RowMatrixXd> m =
        decode_tensor(*info, bytes.data() + info->begin, std::size_t(info->end - info->begin));
    if (!m) return m.error();
    for (long long k = 0; k < w.size; ++k) w.data[k] = float(m->data()[k]);
  }
  return t;
}

std::string lab_config_json(const LabTrained& t, const LabOptions& o, int steps_run) {
  const DecoderConfig& c = t.config;
  JsonWriter j(true);
  j.begin_object()
      .field("model_type", kLabModelType)
      .field("position", position_method_name(c.position))
      .field("vocab", c.vocab)
      .field("d_model", c.d_model)
      .field("heads", c.heads)
      .field("layers", c.layers)
      .field("d_ff", c.d_ff);
  if (c.position == PositionMethod::Learned) j.field("max_position", c.max_position);
  if (c.position == PositionMethod::Rope) j.field("base", c.base).field("pairing", pairing_name(c.pairing));
  j.field("task", lab_task_name(o.task))
      .field("train_len", o.train_len)
      .field("trained_positions", lab_trained_positions(o))
      .field("seed", (long long)o.seed)
      .field("steps_run", steps_run)
      .end_object();
  return j.str() + "\n";
}

}  // namespace rv
