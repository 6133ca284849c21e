// Checkpoints the user opens (docs/real-weights.md): the files a drop, the picker, --weights or the Hub hand over,
// read through core's safetensors reader; a learned position table puts the whole app in its frame.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/state/state.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv {

// What the user gave: one safetensors file, or an index (its text) and its shards; a config.json beside them or not.
struct WeightsFiles {
  std::string label;       // how notes and the panels name it: "model.safetensors", "openai-community/gpt2 (Hub)"
  std::string file;        // the safetensors file's name; "" when index_text names the shards
  std::string index_text;  // model.safetensors.index.json's text, or ""
  std::optional<std::string> config_text;  // config.json's text (at most kMaxConfigFileBytes of it)
  std::string config_name = "config.json";
  std::uint64_t config_bytes = 0;  // the config file's real size (a larger one is refused, as load_config does)
  std::optional<std::string> tokenizer_text;  // tokenizer.json's text, when given beside them
  std::uint64_t tokenizer_bytes = 0;          // its real size (over kMaxTokenizerBytes is refused)
  long long qk_of[3] = {0, 0, 0};  // the head, query token and key token whose layer-0 q and k the load reads
};

// Opens the checkpoint through `open`, finds its learned position table (the config's model_type decides OPT's and
// RoBERTa's two offset rows) and analyses it. An Error of type kNeedBytes says a SuppliedSource lacks bytes (its
// SuppliedBytes::wanted): supply them and call again; every other Error names what is wrong.
Expected<std::shared_ptr<const LoadedWeights>> open_weights(const WeightsFiles& files, const SourceOpener& open,
                                                            std::uint64_t serial);
// Layer 0's q and k of the head and tokens Params ask for (from the load's pair, else read through the kept
// checkpoint: its embedding rows and the head's projection rows only), or why not (no weights, no config, a model
// type without a known layout, an Error of kNeedBytes where a page has not supplied the rows yet).
Expected<RealQK> layer0_qk(const Params& p);
// Puts loaded weights in the app: the config.json (when given) as model=config, then the table's frame (max_position
// = its rows, d = its width); false (nothing changed, a note saying why) when they do not fit. Notes what it loaded in
// one line; when the checkpoint has no learned table, the tensors it holds go into `details` beside that note (the
// app's Ui::note_details, shown behind a disclosure under it).
bool install_weights(Params& p, std::shared_ptr<const LoadedWeights> w, std::vector<std::string>& notes,
                     NoteDetailsMap* details = nullptr);
// weights=none: back to the seeded random table (the frame keys are free again).
void unload_weights(Params& p, std::vector<std::string>& notes);
// A desktop path: a .safetensors file or an index (.json), with the config.json beside it when there is one.
Expected<std::shared_ptr<const LoadedWeights>> open_weights_path(const std::string& path, std::uint64_t serial);
// Loaded weights' learned table when it is the app's (its shape is the frame's), else null: the seeded random one is.
const WeightsTable* loaded_table(const Params& p);
// What the app's table is, for sentences: "wpe.weight of model.safetensors" or "the app's table".
std::string table_name(const Params& p);
// A file's first `cap` bytes and its real size (`size`), or nullopt when it cannot be opened: a desktop path read so a
// huge file costs nothing past the cap.
std::optional<std::string> read_file_head(const std::string& path, std::size_t cap, std::uint64_t& size);
// A path's file name: what follows its last '/' or '\\' (the whole path without one).
std::string file_name(const std::string& path);
// open_weights_path then install_weights, with a note naming the file when either refuses (the state stays).
bool load_weights_path(Params& p, const std::string& path, std::vector<std::string>& notes,
                       NoteDetailsMap* details = nullptr);
// The lab's last run's learned decoder (its pos_emb, written as the lab saves it and read back through the same
// reader) as the weights: the table training gave, beside GPT-2's. False with a note when the run trained none.
bool load_lab_table(Params& p, const LabSession& lab, std::vector<std::string>& notes,
                    NoteDetailsMap* details = nullptr);
// A serial no load has had (a process-wide count: caches keyed on it never mistake one load for another).
std::uint64_t next_weights_serial();
// Whether a file's name is a checkpoint's (.safetensors, or an index: .safetensors.index.json).
bool is_weights_file(const std::string& name);
// Whether a file's name is one of the files Hugging Face ships beside a checkpoint that are not its config.json
// (tokenizer_config.json, generation_config.json, special_tokens_map.json, preprocessor_config.json): a drop of one
// is refused by name, not read as a model (web/page.js keeps the same list).
bool is_side_file(const std::string& name);
// The serial of Params::weights, 0 when none (the model's pieces key on it).
std::uint64_t weights_serial(const Params& p);

}  // namespace rv
