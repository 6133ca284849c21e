// The lab's trained decoders as safetensors checkpoints (core/lab/lab_checkpoint.hpp).
#include "core/lab/lab_checkpoint.hpp"

#include "core/base/json_writer.hpp"

namespace rv {

Expected<std::vector<std::uint8_t>> lab_safetensors(const LabTrained& t) {
  std::vector<TensorToWrite> tensors;
  for (const WeightRef<const float>& w : weight_refs(t.config, t.weights))
    tensors.push_back({w.name, w.shape, std::vector<double>(w.data, w.data + w.size)});
  return write_safetensors(tensors, "F32", {{"format", "pt"}, {"ropeviz", "lab"}});
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
