// Reading and writing Params as text: one setter for every source (URL hash, --state, the JS
// hook), with the limits that keep every value safe, and the URL-hash encoding.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/constants.hpp"
#include "app/state/state.hpp"

namespace rv {

// Upper limits that keep memory and frame time bounded; lower limits keep the math defined.
struct Limits {
  static constexpr long long kPositionMax = 1000000000;    // 1e9
  static constexpr int kMaxPositionMax = 1000000000;      // = position_max; rows past 2^24 entries are drawn on demand
  static constexpr long long kTableEntriesMax = 1 << 24;  // max_position * d of a table built whole (~128 MB)
  static constexpr int kDHeadMax = 1024;
  static constexpr int kHeadsMax = 256;
  static constexpr int kBatchMax = 64;
  static constexpr int kSeqLenMax = 8192;
  static constexpr int kVocabMax = 1000000;
  static constexpr double kBaseMax = 1e12;
  static constexpr int kOffsetsMax = 65536;
  static constexpr long long kSeedMax = kExactWholeMax - 1;  // exact in JSON and JS numbers
  static constexpr long long kTokenMax = (1LL << 24) - 1;  // q_token, k_token: past every real vocabulary
  static constexpr double kFactorMax = 1000.0;            // rope_scaling factor, and llama3/yarn tuning factors
  static constexpr double kOriginalMaxMax = 1e9;         // original_max_position_embeddings
  static constexpr std::size_t kQueryBytesMax = 16384;   // a longer link is rejected whole, unparsed
  static constexpr std::size_t kQueryNotesMax = 16;      // one query raises at most this many notes (+1 summary)
};

// [SECTION] The table of link keys: one row per Params member a link carries. The row drives
// parsing (set_param), the canonical hash (encode_query, in table order), Params::operator== and
// docs/link-keys.md's key list (tests/ui/params_test.cpp). Adding a link key is one row in params.cpp, or in its
// room's <room>_keys.hpp (app/lab/lab_keys.hpp), which params.cpp joins in.
enum class FieldKind {
  Integer,      // a whole number in [lo, hi], clamped with a note
  EvenInteger,  // Integer, and an odd value is bumped to the next even one with a note
  WholeReal,    // a whole number in [lo, hi] stored in a double
  RealAbove,    // a finite number in (lo, hi]: <= lo is rejected, > hi clamped
  Enum,         // one of a fixed set of names
  Tab,          // a panel of a tab bar (app/state/registry.hpp), by its key or, from old links, its number
};

// A value on its way into a row: text from an edge (the number read from it, when it is one), or a typed value from
// the app (typed: number or choice set, text only its spelling for notes).
struct ParamInput {
  std::string_view text;
  std::optional<double> number;
  int choice = -1;  // an enum row's value
  bool typed = false;
};

// Text from an edge as a row's input (the number read from it when it is one).
ParamInput text_input(std::string_view text);

struct ParamField {
  const char* key;  // the URL / --state / window.ropeviz.set name
  FieldKind kind;
  double lo, hi;     // limits, as the kind reads them (exact: every limit is below 2^53)
  const char* help;  // one line, for tooltips and docs
  // Sets the member from the input: false (member unchanged, a note) when rejected, clamps with a note.
  bool (*parse)(const ParamField& f, Params& p, const ParamInput& in, std::vector<std::string>& notes);
  std::string (*encode)(const Params& p);           // the value as the hash writes it
  bool (*equal)(const Params& a, const Params& b);  // the member compares equal
  const char* choices;                              // Enum: "'interleaved' or 'half_split'", else ""
};

struct ParamFields {
  const ParamField* first;
  std::size_t count;
  const ParamField* begin() const { return first; }
  const ParamField* end() const { return first + count; }
  std::size_t size() const { return count; }
};

// The score curve's q and k by name (random, same, ones, layer0), and back.
const char* score_qk_name(ScoreQK v);
std::optional<ScoreQK> parse_score_qk(std::string_view name);

// Every link key, in the canonical hash order.
ParamFields param_fields();
// The row for a key, or nullptr when no parameter has that name.
const ParamField* find_field(std::string_view key);

// Every link key, in the table's (and the hash's) order. Code names a key by its typed constant in `keys` (so a
// misspelt key does not compile, and the value's type is the key's); the edges name it by its row's text.
enum class Key {
  position, key_position, max_position, d_head, heads, batch, seq_len, vocab, base, pairing, seed, offsets, tab_top,
  tab_bottom, scaling, factor, original_max, low_freq, high_freq, beta_fast, beta_slow, model, task, methods,
  train_len, table_len, steps, lab_seed, seeds, positions, position_range, lesson, qk, q_token, k_token, qk_head
};
inline constexpr int kKeyCount = int(Key::qk_head) + 1;
// The row of a key (the table's row int(k); tests/ui/params_test.cpp checks their names agree).
const ParamField& field(Key k);

template <class T>
struct TypedKey {
  Key key;
};
namespace keys {
inline constexpr TypedKey<double> position{Key::position}, key_position{Key::key_position},
    max_position{Key::max_position}, d_head{Key::d_head}, heads{Key::heads}, base{Key::base}, offsets{Key::offsets},
    tab_top{Key::tab_top}, tab_bottom{Key::tab_bottom}, factor{Key::factor}, original_max{Key::original_max},
    low_freq{Key::low_freq}, high_freq{Key::high_freq}, lesson{Key::lesson}, qk_head{Key::qk_head},
    q_token{Key::q_token}, k_token{Key::k_token}, batch{Key::batch}, seq_len{Key::seq_len}, vocab{Key::vocab},
    seed{Key::seed}, beta_fast{Key::beta_fast}, beta_slow{Key::beta_slow}, train_len{Key::train_len},
    table_len{Key::table_len}, steps{Key::steps}, lab_seed{Key::lab_seed}, seeds{Key::seeds},
    position_range{Key::position_range};
inline constexpr TypedKey<Pairing> pairing{Key::pairing};
inline constexpr TypedKey<ScalingType> scaling{Key::scaling};
inline constexpr TypedKey<LabTask> task{Key::task};
inline constexpr TypedKey<LabPositions> positions{Key::positions};
inline constexpr TypedKey<ScoreQK> qk{Key::qk};
inline constexpr TypedKey<std::string_view> model{Key::model};  // a preset's name, "none" or kLoadedModel
}  // namespace keys

template <class T>
struct Exactly {
  using type = T;
};
// Sets one parameter from the app's typed value, with the key's own rules and no text on the way: out of its limits
// clamped with a note, a value the model decides refused with a note (as set_param), a choice a link could not carry
// refused. Numbers are exact: every limit is below 2^53.
bool set(Params& p, TypedKey<double> k, typename Exactly<double>::type value, std::vector<std::string>& notes);
bool set(Params& p, TypedKey<std::string_view> k, std::string_view value, std::vector<std::string>& notes);
bool set_choice(Params& p, Key k, int choice, std::vector<std::string>& notes);  // an enum row, by its value
template <class E>
bool set(Params& p, TypedKey<E> k, typename Exactly<E>::type value, std::vector<std::string>& notes) {
  return set_choice(p, k.key, int(value), notes);
}

// Sets one parameter from text (the edges: the URL hash, --state, window.ropeviz.set). Unknown keys are ignored
// (returns true, no note); a value that cannot be parsed leaves the parameter unchanged and adds a note; an
// out-of-range one is clamped with a note. Returns false when the value was rejected.
bool set_param(Params& p, std::string_view key, std::string_view value, std::vector<std::string>& notes);
// tab=KEY (not a row of the table): shows the panel KEY in whichever bar holds it (tab=lab); a note if none does.
bool select_panel(Params& p, std::string_view key, std::vector<std::string>& notes);
// model=config names the config.json the user loaded (Params::loaded).
constexpr const char* kLoadedModel = "config";

// Where Params::model's config.json comes from: a preset's row, or the loaded file.
struct ModelSource {
  std::string name;    // "llama-3.1-8b", or the loaded file's name
  std::string source;  // the Hugging Face repository, or "loaded config.json"
  Expected<HfConfig> config;
};
// Requires a non-empty Params::model; the config is an error when the name is neither a preset nor a loaded file.
ModelSource model_source(const Params& p);

// Reads a config.json (at most kMaxConfigFileBytes; total_bytes is the file's size) and, when core derives a model from
// it, chooses it as model=config with a note saying what was loaded. Else a note naming the field and nothing changes.
bool load_config(Params& p, std::string_view text, const std::string& label, std::size_t total_bytes,
                 std::vector<std::string>& notes);
// A parsed config.json as model=config (load_config's second half; install_weights' too). No note on success.
bool use_config(Params& p, const HfConfig& c, const std::string& label, std::vector<std::string>& notes);

// The values a choice key takes (model: none, the presets; pairing; tab_top / tab_bottom: the panels' keys), in
// display order; empty for keys that take numbers. For lists outside the canvas (the page's HTML controls).
std::vector<std::string> param_choices(std::string_view key);

// True for the keys the chosen model sets (max_position, d_head and heads; base and pairing too for a RoPE model), and
// for the first three while loaded weights' learned table is the app's: set_param refuses a different value with a
// note.
bool model_bound(const Params& p, std::string_view key);
// Restores the cross-parameter invariants (llama3 and yarn knobs in order), with a note if it had to.
void enforce_limits(Params& p, std::vector<std::string>& notes);
// "position=100&max_position=10&..." (an optional leading '#' is skipped); applies each pair: the lesson's step
// first wherever it is written (its view), then the model, then the other keys, which adjust within them.
// A query over Limits::query_bytes_max changes nothing (one note); notes are capped per query.
void apply_query(Params& p, std::string_view query, std::vector<std::string>& notes);
// The canonical hash (without '#'): every parameter, in a fixed order.
std::string encode_query(const Params& p);

}  // namespace rv
