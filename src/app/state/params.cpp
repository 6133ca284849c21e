// Params from and to text: parsing with clear notes, clamping to Limits, the URL-hash encoding.
#include "app/state/params.hpp"
#include "app/state/param_rows.hpp"

#include <array>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/lab/lab_keys.hpp"
#include "app/state/lesson.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "app/state/registry.hpp"
#include "app/state/weights.hpp"
#include "core/base/format.hpp"
#include "core/models/json_config.hpp"
#include "core/models/presets.hpp"

namespace rv {

namespace rows {

std::string quoted(std::string_view s) {
  std::string out(s.substr(0, 40));
  if (s.size() > 40) out += "...";
  return "'" + out + "'";
}

// A finite number in (above, hi]: rejected (kept) when not a number or <= above, clamped with a note above hi.
bool set_real(double& field, std::string_view key, std::string_view text, std::optional<double> v, double above,
              double hi, std::vector<std::string>& notes) {
  if (!v || *v <= above) {
    notes.push_back(std::string(key) + "=" + quoted(text) + " must be a number greater than " + format_number(above) +
                    "; kept " + format_number(field));
    return false;
  }
  if (*v > hi) {
    notes.push_back(std::string(key) + "=" + quoted(text) + " is above " + format_number(hi) + "; using that");
    *v = hi;
  }
  field = *v;
  return true;
}

}  // namespace rows

namespace {

using namespace rows;

// Parses a finite number (integers may be written as 1e6); rejects trailing junk, NaN and inf.
std::optional<double> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A tab by its panel's key (tab_top=precision) or, from old links, by its number in the bar.
template <Bar B>
bool parse_tab_row(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  const std::string_view text = in.text;
  if (in.typed) return set_int(tab_of(p, B), f.key, text, in.number, 0, (long long)bar_panels(B).size() - 1, notes);
  const std::optional<long long> tab = parse_tab(B, text);
  if (!tab) {
    notes.push_back(std::string(f.key) + "=" + quoted(text) + " is not one of " + tab_keys(B) + "; kept " +
                    tab_key(B, tab_of(p, B)));
    return false;
  }
  const long long last = (long long)bar_panels(B).size() - 1;
  return set_int(tab_of(p, B), f.key, text, double(*tab), 0, last, notes);
}
template <Bar B>
std::string encode_tab_row(const Params& p) {
  return tab_key(B, tab_of(p, B));
}
template <auto M, Bar B>
constexpr ParamField tab(const char* key, const char* help) {
  return {key, FieldKind::Tab, 0, 0, help, parse_tab_row<B>, encode_tab_row<B>, member_equal<M>, ""};
}

// The scaling methods a link can choose: longrope needs per-pair factor lists from a model's config.
std::optional<ScalingType> parse_link_scaling(std::string_view name) {
  const std::optional<ScalingType> type = parse_scaling(name);
  if (type == ScalingType::Longrope) return std::nullopt;
  return type;
}

// [SECTION] the model row: a preset sets the parameters its config.json decides

std::string preset_names() {
  std::string names;
  for (const Preset& q : presets()) names += std::string(names.empty() ? "" : ", ") + q.name;
  return names;
}

// The extension panel's knobs start from the model's rope_scaling (longrope's factor lists are the model's alone).
void scaling_knobs(Params& next, const RopeModel& rope, const HfConfig& c) {
  next.scaling = parse_link_scaling(rope.rope_type == "default" ? "none" : rope.rope_type).value_or(ScalingType::None);
  if (const auto original = rope.original_max_position_embeddings)
    next.original_max = double(std::clamp<long long>(*original, 1, (long long)Limits::kOriginalMaxMax));
  if (!c.rope_scaling) return;
  const auto knob = [](const std::optional<double>& value, double& into) {
    if (value) into = std::clamp(*value, 1e-9, Limits::kFactorMax);
  };
  knob(c.rope_scaling->factor, next.factor);
  knob(c.rope_scaling->low_freq_factor, next.low_freq);
  knob(c.rope_scaling->high_freq_factor, next.high_freq);
  knob(c.rope_scaling->beta_fast, next.beta_fast);
  knob(c.rope_scaling->beta_slow, next.beta_slow);
}

// Sets what a model's config decides, as model=name; false (nothing changed, a note that starts with `who`, e.g.
// "model=gpt2" or a loaded file's name) when core cannot derive it or it does not fit the app's limits.
bool apply_model(Params& p, const std::string& name, const HfConfig& c, const std::string& who, Notes& notes) {
  const Expected<ModelInfo> info = derive_model(c);
  if (!info) {  // the reader's and derive_model's messages name the field
    notes.push_back(who + ": " + info.error().message + "; kept the current model");
    return false;
  }
  Params next = p;
  if (const auto& rope = info->rope) {
    const int width = int(std::max(rope->head_dim, rope->rotary_dims));  // DeepSeek's MLA rotates a part of its own
    next.d_head = width + width % 2;
    next.base = std::min(rope->base, Limits::kBaseMax);
    next.pairing = rope->pairing;
    next.heads = int(std::min<long long>(c.num_attention_heads.value_or(1), Limits::kHeadsMax + 1LL));
    if (rope->max_position_embeddings)
      next.max_position = int(std::min<long long>(*rope->max_position_embeddings, Limits::kMaxPositionMax));
    scaling_knobs(next, *rope, c);
  } else if (const auto& table = info->absolute) {
    next.heads = int(std::clamp<long long>(c.num_attention_heads.value_or(1), 1, Limits::kHeadsMax + 1LL));
    next.d_head = int(std::min<long long>(table->d / next.heads, Limits::kDHeadMax + 1LL));
    next.max_position = int(std::min<long long>(table->max_position, Limits::kMaxPositionMax));
  }
  if (next.d_head < 2 || next.d_head > Limits::kDHeadMax || next.heads < 1 || next.heads > Limits::kHeadsMax ||
      next.d_head % 2 != 0) {
    notes.push_back(who + ": d_head " + std::to_string(next.d_head) + " and " + std::to_string(next.heads) +
                    " heads; this app shows d_head 2.." + std::to_string(Limits::kDHeadMax) + " (even) and 1.." +
                    std::to_string(Limits::kHeadsMax) + " heads; kept the current model");
    return false;
  }
  enforce_limits(next, notes);
  next.model = name;
  next.model_rope = info->rope.has_value();
  p = next;
  return true;
}

std::string encode_model(const Params& p);

bool parse_model(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  const std::string_view text = in.text;
  if (p.weights && text != encode_model(p)) unload_weights(p, notes);  // another model's frame is not the table's
  if (text == "none" || text.empty()) {
    p.model.clear();
    return true;
  }
  const std::string kept = "; kept " + (p.model.empty() ? std::string("none") : p.model);
  if (text == kLoadedModel) {
    if (p.loaded) return apply_model(p, kLoadedModel, p.loaded->config, p.loaded->label, notes);
    notes.push_back(
        "model=config names a config.json loaded on this page; none is loaded (links do not carry the "
        "file)" +
        kept);
    return false;
  }
  const Preset* preset = find_preset(text);
  if (!preset) {
    notes.push_back(std::string(f.key) + "=" + quoted(text) + " is not none, config or one of " + preset_names() +
                    kept);
    return false;
  }
  const Expected<HfConfig> c = preset_config(*preset);
  if (!c) {
    notes.push_back(c.error().message + kept);
    return false;
  }
  return apply_model(p, preset->name, *c, "model=" + std::string(preset->name), notes);
}
std::string encode_model(const Params& p) {
  return p.model.empty() ? "none" : p.model;
}

// [SECTION] the lesson's row: opening step K applies its view (app/state/lesson.hpp)

bool parse_lesson(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  int step = p.lesson;
  if (!set_int(step, f.key, in.text, in.number, (long long)f.lo, (long long)f.hi, notes)) return false;
  apply_lesson_view(p, step, notes);
  p.lesson = step;
  return true;
}

// [SECTION] the score curve's q and k: qk, and layer 0's tokens and head, checked against the loaded weights

constexpr const char* kScoreQKNames[] = {"random", "same", "ones", "layer0"};
static_assert(std::size(kScoreQKNames) == int(ScoreQK::Layer0) + 1, "one name per ScoreQK");

bool parse_qk(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  const std::string_view text = in.text;
  const std::optional<ScoreQK> v = in.choice >= 0 ? std::optional<ScoreQK>(ScoreQK(in.choice)) : parse_score_qk(text);
  if (!v) {
    notes.push_back(std::string(f.key) + "=" + quoted(text) + " is not " + f.choices + "; kept " + score_qk_name(p.qk));
    return false;
  }
  // Layer 0 without weights to read is not refused (weights may come next): the panel says why it draws random.
  p.qk = *v;
  return true;
}

// A token id, or with the checkpoint's tokenizer.json a word, encoded through it as the model would read it (a word
// of several tokens gives its first, and a note says so); an id past the loaded embedding is refused by name, the old
// one kept.
template <auto M>
bool parse_token(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  const std::string_view text = in.text;
  long long id = p.*M;
  const LoadedWeights* w = p.weights.get();
  const std::string kept = "; kept " + std::to_string(p.*M);
  if (!in.number && w && w->tokenizer) {
    const Expected<WordTokens> found = word_tokens(*w->tokenizer, text);
    if (!found) {
      notes.push_back(std::string(f.key) + "=" + quoted(text) + ": " + found.error().message + kept);
      return false;
    }
    id = found->id;
    if (found->count > 1)
      notes.push_back(std::string(f.key) + "=" + quoted(text) + " is " + std::to_string(found->count) +
                      " tokens through " + w->tokenizer->name + " (" + found->pieces + "): took the first, id " +
                      std::to_string(id));
  } else if (!in.number) {
    notes.push_back(std::string(f.key) + "=" + quoted(text) + " is not a token id (a word needs the checkpoint's " +
                    "tokenizer.json beside it)" + kept);
    return false;
  } else if (!set_int(id, f.key, in.text, in.number, (long long)f.lo, (long long)f.hi, notes)) {
    return false;
  }
  if (w && w->vocab > 0 && id >= w->vocab) {
    notes.push_back(std::string(f.key) + "=" + quoted(text) + ": token " + std::to_string(id) + " is past " + w->label +
                    "'s vocabulary of " + format_count(w->vocab) + " tokens (ids 0.." + format_count(w->vocab - 1) +
                    ")" + kept);
    return false;
  }
  p.*M = id;
  return true;
}

bool parse_qk_head(const ParamField& f, Params& p, const ParamInput& in, Notes& notes) {
  const std::string_view text = in.text;
  int head = p.qk_head;
  if (!set_int(head, f.key, in.text, in.number, (long long)f.lo, (long long)f.hi, notes)) return false;
  if (p.weights && p.weights->qk_heads > 0 && head >= p.weights->qk_heads) {
    notes.push_back(std::string(f.key) + "=" + quoted(text) + ": " + p.weights->label + " has " +
                    std::to_string(p.weights->qk_heads) + " heads (0.." + std::to_string(p.weights->qk_heads - 1) +
                    "); kept " + std::to_string(p.qk_head));
    return false;
  }
  p.qk_head = head;
  return true;
}

// [SECTION] the table, in the canonical hash order (links depend on it: append new keys at the end)

using P = Params;
constexpr ParamField kBeforeLab[] = {
    integer<&P::position>(
        "position", 0, Limits::kPositionMax,
        "The query's position m. The learned table serves 0 <= m < max_position; RoPE's formula any m >= 0 "
        "(a trained RoPE model runs there, but degrades past its training length unless "
        "rescaled)."),
    integer<&P::key_position>("key_position", 0, Limits::kPositionMax,
                              "The key's position n; the score depends on m - n."),
    integer<&P::max_position>(
        "max_position", 1, Limits::kMaxPositionMax,
        "Rows of the learned table P[max_position, d]: positions 0 .. max_position - 1 exist; any other index "
        "raises IndexError."),
    even_integer<&P::d_head>("d_head", 2, Limits::kDHeadMax, "Width per head; RoPE rotates d_head / 2 pairs."),
    integer<&P::heads>("heads", 1, Limits::kHeadsMax, "Heads h; the model width is d = h x d_head."),
    integer<&P::batch>("batch", 1, Limits::kBatchMax, "B: sequences processed together."),
    integer<&P::seq_len>("seq_len", 1, Limits::kSeqLenMax, "T: tokens per sequence."),
    integer<&P::vocab>("vocab", 1, Limits::kVocabMax, "V: rows of the token table E[V, d]."),
    real_above<&P::base>("base", 1.0, Limits::kBaseMax, "RoPE's base: theta_i = base^(-2i / d_head)."),
    enumeration<&P::pairing, parse_pairing, pairing_name>(
        "pairing", "'interleaved' or 'half_split'",
        "Which dimensions rotate together: (2i, 2i+1) interleaved, or (i, i + d_head/2) half_split."),
    integer<&P::seed>("seed", 0, Limits::kSeedMax, "Seeds P, E, and the example q, k, v."),
    integer<&P::offsets>("offsets", 1, Limits::kOffsetsMax, "The score curve spans m - n in [-offsets, offsets]."),
    tab<&P::tab_top, Bar::Top>("tab_top", "The panel shown in the top tab bar, by name (or old number)."),
    tab<&P::tab_bottom, Bar::Bottom>("tab_bottom", "The panel shown in the bottom tab bar, by name (or old number)."),
    enumeration<&P::scaling, parse_link_scaling, scaling_name>(
        "scaling", "none, linear, dynamic, yarn or llama3",
        "Context extension: the Hugging Face rope_scaling type (its panel only)."),
    real_above<&P::factor>("factor", 0.0, Limits::kFactorMax, "rope_scaling factor: the context grows by this much."),
    whole_real<&P::original_max>("original_max", 1, Limits::kOriginalMaxMax,
                                 "original_max_position_embeddings (Llama 2: 4096, Llama 3.1: 8192)."),
    real_above<&P::low_freq>("low_freq", 0.0, Limits::kFactorMax, "llama3 low_freq_factor (Llama 3.1: 1)."),
    real_above<&P::high_freq>("high_freq", 0.0, Limits::kFactorMax, "llama3 high_freq_factor (Llama 3.1: 4)."),
    real_above<&P::beta_fast>("beta_fast", 0.0, Limits::kFactorMax,
                              "yarn beta_fast: rotations at the ramp's fast end."),
    real_above<&P::beta_slow>("beta_slow", 0.0, Limits::kFactorMax,
                              "yarn beta_slow: rotations at the ramp's slow end."),
    {"model", FieldKind::Enum, 0, 0,
     "A real model's positional encoding (llama-3.1-8b, gpt2, ...), or none for free parameters.", parse_model,
     encode_model, member_equal<&P::model>, "none or a preset name"},
};
constexpr ParamField kAfterLab[] = {
    {"lesson", FieldKind::Integer, 0, kLessonSteps,
     "The guided lesson's step: 1 opens its first view and text, 0 closes it. A link applies the step's view first.",
     parse_lesson, encode_integer<&P::lesson>, member_equal<&P::lesson>, ""},
    {"qk", FieldKind::Enum, 0, 0,
     "The score curve's q and k: random N(0, 1), same (q = k), ones (all-ones, RoFormer's figure) or layer0 (a loaded "
     "checkpoint's layer 0 for two tokens).",
     parse_qk, encode_enum<&P::qk, score_qk_name>, member_equal<&P::qk>, "random, same, ones or layer0"},
    {"q_token", FieldKind::Integer, 0, double(Limits::kTokenMax),
     "qk=layer0: the query's token id (or, with tokenizer.json, a word).", parse_token<&P::q_token>,
     encode_integer<&P::q_token>, member_equal<&P::q_token>, ""},
    {"k_token", FieldKind::Integer, 0, double(Limits::kTokenMax),
     "qk=layer0: the key's token id (or, with tokenizer.json, a word).", parse_token<&P::k_token>,
     encode_integer<&P::k_token>, member_equal<&P::k_token>, ""},
    {"qk_head", FieldKind::Integer, 0, double(Limits::kHeadsMax - 1), "qk=layer0: the attention head (0-based).",
     parse_qk_head, encode_integer<&P::qk_head>, member_equal<&P::qk_head>, ""},
};
// The rows with the rooms' own (app/lab/lab_keys.hpp) in their place.
template <std::size_t A, std::size_t B, std::size_t C>
constexpr std::array<ParamField, A + B + C> join(const ParamField (&a)[A], const ParamField (&b)[B],
                                                 const ParamField (&c)[C]) {
  std::array<ParamField, A + B + C> out{};
  std::size_t i = 0;
  for (const ParamField& f : a) out[i++] = f;
  for (const ParamField& f : b) out[i++] = f;
  for (const ParamField& f : c) out[i++] = f;
  return out;
}
constexpr auto kFields = join(kBeforeLab, lab_keys::kRows, kAfterLab);
static_assert(kFields.size() == kKeyCount, "one row per Key, in Key's order");
static_assert(std::string_view(kFields[int(Key::task)].key) == "task" &&
                  std::string_view(kFields[int(Key::position_range)].key) == "position_range",
              "the lab's rows sit at its keys");

}  // namespace

const char* score_qk_name(ScoreQK v) {
  return kScoreQKNames[int(v)];
}

std::optional<ScoreQK> parse_score_qk(std::string_view name) {
  for (int i = 0; i < int(std::size(kScoreQKNames)); ++i)
    if (name == kScoreQKNames[i]) return ScoreQK(i);
  return std::nullopt;
}

ParamFields param_fields() {
  return {kFields.data(), kFields.size()};
}

const ParamField* find_field(std::string_view key) {
  for (const ParamField& f : kFields)
    if (key == f.key) return &f;
  return nullptr;
}

bool Params::operator==(const Params& o) const {
  for (const ParamField& f : kFields)
    if (!f.equal(*this, o)) return false;
  return true;
}

std::vector<std::string> param_choices(std::string_view key) {
  std::vector<std::string> out;
  if (key == "model") {
    out.push_back("none");
    for (const Preset& preset : presets()) out.push_back(preset.name);
  } else if (key == "task") {
    for (LabTask t : {LabTask::Copy, LabTask::Reverse, LabTask::Repeat}) out.push_back(lab_task_name(t));
  } else if (key == "qk") {
    for (const char* name : kScoreQKNames) out.push_back(name);
  } else if (key == "pairing") {
    out = {pairing_name(Pairing::Interleaved), pairing_name(Pairing::HalfSplit)};
  } else if (key == "tab_top" || key == "tab_bottom") {
    for (const Panel* panel : bar_panels(key == "tab_top" ? Bar::Top : Bar::Bottom)) out.push_back(panel->key);
  }
  return out;
}

ModelSource model_source(const Params& p) {
  if (p.model == kLoadedModel && p.loaded) return {p.loaded->label, "loaded config.json", p.loaded->config};
  if (const Preset* preset = find_preset(p.model)) return {preset->name, preset->source, preset_config(*preset)};
  return {p.model, "", bad_request("model=" + p.model + " is neither a preset nor a loaded config.json")};
}

bool load_config(Params& p, std::string_view text, const std::string& label, std::size_t total_bytes,
                 std::vector<std::string>& notes) {
  if (total_bytes > kMaxConfigFileBytes) {
    notes.push_back(label + ": " + format_count((long long)total_bytes) + " bytes is over the " +
                    format_count((long long)kMaxConfigFileBytes) +
                    "-byte limit for a config.json; kept the current model");
    return false;
  }
  const Expected<HfConfig> c = parse_hf_config(text);
  if (!c) {
    notes.push_back(label + ": " + c.error().message + "; kept the current model");
    return false;
  }
  if (!use_config(p, *c, label, notes)) return false;
  notes.push_back("loaded " + label);
  return true;
}

bool use_config(Params& p, const HfConfig& c, const std::string& label, std::vector<std::string>& notes) {
  Params next = p;
  const std::uint64_t serial = (p.loaded ? p.loaded->serial : 0) + 1;  // differs from the last load's
  next.loaded = std::make_shared<const LoadedConfig>(LoadedConfig{label, c, serial});
  if (!apply_model(next, kLoadedModel, c, label, notes)) return false;
  p = next;
  return true;
}

bool model_bound(const Params& p, std::string_view key) {
  const bool frame = key == "max_position" || key == "d_head" || key == "heads";
  if (frame && p.weights && p.weights->table) return true;
  if (p.model.empty()) return false;
  if (frame) return true;
  return p.model_rope && (key == "base" || key == "pairing");
}

namespace {

// Sets row f from the input, unless the model decides that key and the input differs from the model's value.
bool apply_row(Params& p, const ParamField& f, const ParamInput& in, Notes& notes) {
  if (!model_bound(p, f.key)) return f.parse(f, p, in, notes);
  Params trial = p;
  std::vector<std::string> trial_notes;
  if (f.parse(f, trial, in, trial_notes) && f.equal(trial, p)) return true;  // the model's own value
  const bool table = p.weights && p.weights->table;
  notes.push_back(std::string(f.key) + "=" + quoted(in.text) + ": " + f.key + " is " + f.encode(p) +
                  (table ? " in " + p.weights->label + "'s learned table; choose weights=none to change it"
                         : " in the model " + p.model + "; choose model=none to change it"));
  return false;
}

}  // namespace

ParamInput text_input(std::string_view text) {
  return {text, parse_number(text)};
}

const ParamField& field(Key k) {
  return kFields[int(k)];
}

bool set(Params& p, TypedKey<double> k, double value, Notes& notes) {
  const std::string shown = format_number(value);
  return apply_row(p, field(k.key), {shown, value, -1, true}, notes);
}

bool set(Params& p, TypedKey<std::string_view> k, std::string_view value, Notes& notes) {
  return apply_row(p, field(k.key), {value, std::nullopt, -1, true}, notes);
}

bool set_choice(Params& p, Key k, int choice, Notes& notes) {
  const std::string shown = std::to_string(choice);
  return apply_row(p, field(k), {shown, std::nullopt, choice, true}, notes);
}

bool set_param(Params& p, std::string_view key, std::string_view value, std::vector<std::string>& notes) {
  if (key == "tab") return select_panel(p, value, notes);
  if (key == "weights") {  // not a link key: a link cannot carry the files, but weights=none unloads them
    if (value == "none") return unload_weights(p, notes), true;
    notes.push_back("weights=" + quoted(value) +
                    ": weights are loaded from files (drop them, or pick them); only "
                    "weights=none is a value");
    return false;
  }
  const ParamField* f = find_field(key);
  if (!f) return true;  // unknown keys are ignored, as links from newer versions may carry more
  return apply_row(p, *f, text_input(value), notes);
}

bool select_panel(Params& p, std::string_view key, std::vector<std::string>& notes) {
  for (Bar bar : kBars) {
    const auto& list = bar_panels(bar);
    for (std::size_t i = 0; i < list.size(); ++i)
      if (key == list[i]->key) {
        tab_of(p, bar) = int(i);
        return true;
      }
  }
  notes.push_back("tab=" + quoted(key) + " is not one of " + tab_keys(Bar::Top) + ", " + tab_keys(Bar::Bottom));
  return false;
}

void enforce_limits(Params& p, std::vector<std::string>& notes) {
  if (!(p.low_freq < p.high_freq)) {
    notes.push_back("low_freq " + format_number(p.low_freq) + " must be below high_freq " + format_number(p.high_freq) +
                    " (Llama 3.1: 1 and 4); using 1 and 4");
    p.low_freq = 1.0;
    p.high_freq = 4.0;
  }
  if (!(p.beta_slow < p.beta_fast)) {
    notes.push_back("beta_slow " + format_number(p.beta_slow) + " must be below beta_fast " +
                    format_number(p.beta_fast) + " (YaRN: 1 and 32); using 1 and 32");
    p.beta_slow = 1.0;
    p.beta_fast = 32.0;
  }
  const int trained = lab_input_len(p.task, p.train_len);
  if (p.table_len != 0 && p.table_len < trained) {
    notes.push_back("table_len " + std::to_string(p.table_len) + " is shorter than the longest training input (" +
                    std::to_string(trained) + " positions at train_len " + std::to_string(p.train_len) +
                    "); using 0 (exactly the training inputs)");
    p.table_len = 0;
  }
  if (p.positions == LabPositions::Random && p.table_len != 0) {
    notes.push_back(
        "table_len is for sequential positions: with random positions the learned table has "
        "position_range rows; using 0");
    p.table_len = 0;
  }
  const int longest_test = lab_input_len(p.task, 4 * p.train_len);
  if (p.position_range != 0 && p.position_range < longest_test) {
    notes.push_back("position_range " + std::to_string(p.position_range) + " is shorter than the longest test input (" +
                    std::to_string(longest_test) + " positions); using 0 (4 x that)");
    p.position_range = 0;
  }
  if (p.lab_seed + std::uint64_t(p.lab_seeds - 1) > std::uint64_t(kLabSeedMax)) {
    p.lab_seed = std::uint64_t(kLabSeedMax) - std::uint64_t(p.lab_seeds - 1);
    notes.push_back("lab_seed + seeds - 1 must be at most " + std::to_string(kLabSeedMax) + "; using lab_seed " +
                    std::to_string(p.lab_seed));
  }
}

void apply_query(Params& p, std::string_view query, std::vector<std::string>& notes) {
  if (!query.empty() && query.front() == '#') query.remove_prefix(1);
  if (query.size() > Limits::kQueryBytesMax) {
    notes.push_back("ignored a link longer than " + std::to_string(Limits::kQueryBytesMax) +
                    " bytes; kept the current view");
    return;
  }
  const size_t first_note = notes.size();
  // The lesson's step first (its view is where the link starts from), then the model (it sets the keys it decides),
  // then every other key adjusts within them.
  for (const std::string_view first : {std::string_view("lesson"), std::string_view("model")})
    for (std::string_view rest = query; !rest.empty();) {
      const std::string_view pair = rest.substr(0, rest.find('&'));
      rest = pair.size() < rest.size() ? rest.substr(pair.size() + 1) : std::string_view();
      if (pair.size() > first.size() && pair.substr(0, first.size()) == first && pair[first.size()] == '=')
        set_param(p, first, pair.substr(first.size() + 1), notes);
    }
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      notes.push_back("ignored " + quoted(pair) + ": expected key=value");
      continue;
    }
    const std::string_view key = pair.substr(0, eq);
    if (key != "model" && key != "lesson") set_param(p, key, pair.substr(eq + 1), notes);
  }
  const size_t raised = notes.size() - first_note;
  if (raised > Limits::kQueryNotesMax) {
    notes.resize(first_note + Limits::kQueryNotesMax);
    notes.push_back("and " + std::to_string(raised - Limits::kQueryNotesMax) + " more notes about this link");
  }
  enforce_limits(p, notes);
}

std::string encode_query(const Params& p) {
  std::string out;
  for (const ParamField& f : param_fields()) out += (out.empty() ? "" : "&") + std::string(f.key) + "=" + f.encode(p);
  return out;
}

}  // namespace rv
