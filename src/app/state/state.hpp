// All of ropeviz's state in one struct: the parameters a link carries, what the core derived from
// them, and the UI's own bookkeeping. The URL, the test hook and the text layer serialise this.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "app/lab/lab_state.hpp"
#include "app/lesson/lesson_state.hpp"
#include "app/rope_usage/usage_state.hpp"
#include "app/state/decimated.hpp"
#include "app/trained_table/trained_state.hpp"
#include "core/base/error.hpp"
#include "core/encodings/frameworks.hpp"
#include "core/encodings/learned.hpp"
#include "core/decoder/decoder_cache.hpp"
#include "core/lab/lab.hpp"
#include "core/lab/lab_engine.hpp"
#include "core/lesson/add_vs_rotate.hpp"
#include "core/lesson/exercises.hpp"
#include "core/lesson/shape_trace.hpp"
#include "core/lesson/verify.hpp"
#include "core/models/context_budget.hpp"
#include "core/models/hf_config.hpp"
#include "core/rope/precision.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/scaling.hpp"
#include "core/weights/byte_source.hpp"
#include "core/weights/checkpoint.hpp"
#include "core/weights/learned_table.hpp"
#include "core/weights/real_scores.hpp"
#include "core/weights/rope_usage.hpp"

namespace rv {

struct LoadedTokenizer;  // app/state/loaded_tokenizer.hpp
class Gpu;               // app/ui/gpu.hpp: the renderer seam for shader heatmaps (null when headless)

// A config.json loaded by the user: its name (the file's), the fields read from it, and a serial that changes with
// every load (two files may give equal parameters).
struct LoadedConfig {
  std::string label;
  HfConfig config;
  std::uint64_t serial = 0;
};

// A checkpoint the user opened (app/state/weights.hpp): what it holds and, when it has one, its learned position
// table with core's analysis. Built once per load and shared, like LoadedConfig.
struct WeightsTable {
  std::string tensor, dtype;  // "wpe.weight", "F32"
  int offset = 0;             // rows above the positions (OPT, RoBERTa: 2)
  RowMatrixXd P;              // the position rows [rows, dim], float64
  LearnedTableAnalysis analysis;
  double analysis_ms = 0.0;  // how long core's analysis took (state().weights reports it)
};
struct LoadedWeights {
  std::string label;               // "model.safetensors", or the Hub repo
  std::string model_type;          // the config.json's, or ""
  std::optional<HfConfig> config;  // the config.json given with it (install_weights makes it model=config)
  std::string config_name;
  std::vector<TensorInfo> tensors;
  std::uint64_t header_bytes = 0, file_bytes = 0, bytes_read = 0;  // summed over shards; bytes_read: what was read
  std::optional<WeightsTable> table;
  std::string no_table;  // why there is none: the names looked for and what the checkpoint holds
  std::uint64_t serial = 0;
  // Layer 0's real q and k (the score curve's qk=layer0, app/state/weights.hpp): the checkpoint kept open to read a
  // token's embedding row and a head's projection rows when they are asked for, tokenizer.json's vocabulary when one
  // came with it, and the pair read during the load (the page's only one until it reads more).
  std::shared_ptr<Checkpoint> checkpoint;
  long long vocab = 0;    // rows of the token embedding the model's layout names; 0 when none can be read
  int qk_heads = 0;       // the config's attention heads
  std::string no_layer0;  // why qk=layer0 cannot be drawn from these weights, or ""
  std::shared_ptr<const LoadedTokenizer> tokenizer;  // tokenizer.json, when one came with them or was given after
  std::optional<RealQK> first_qk;                    // read during the load for first_qk_of (head, token, key token)
  long long first_qk_of[3] = {-1, -1, -1};
  // On the page, the ranges the checkpoint's SuppliedSources read from (null on the desktop, whose files are read at
  // once); the rope_usage walk (app/rope_usage/usage.hpp) reads through the same checkpoint.
  std::shared_ptr<SuppliedBytes> supplied;
};

// The score curve's q and k (its panel; link key qk).
enum class ScoreQK { Random, Same, Ones, Layer0 };

// What a link (URL hash, --state, window.ropeviz.set) can set. Defaults are the lesson's. Each member
// is one row of the link-key table (params.cpp): it parses, encodes and compares them all.
struct Params {
  long long position = 5;      // m, the query's position
  long long key_position = 3;  // n, the key's position
  int max_position = 10;       // rows of the learned table P
  int d_head = 8;
  int heads = 4;    // h; d = h * d_head
  int batch = 2;    // B
  int seq_len = 5;  // T
  int vocab = 100;  // V
  double base = 10000.0;
  Pairing pairing = Pairing::Interleaved;
  std::uint64_t seed = 123;
  int offsets = 64;                    // the score curve spans m - n in [-offsets, offsets]
  ScoreQK qk = ScoreQK::Random;        // the score curve's q and k: random N(0, 1), q = k, all ones, layer 0's
  long long q_token = 0, k_token = 0;  // qk=layer0: the query's and the key's token ids
  int qk_head = 0;                     // ... and the head
  int tab_top = 0;     // tab shown in the top bar (app/state/registry.hpp; links name it: tab_top=precision)
  int tab_bottom = 0;  // tab shown in the bottom bar

  // Context extension (Hugging Face rope_scaling), used by its panel only: every other panel keeps
  // the lesson's unscaled theta_i.
  ScalingType scaling = ScalingType::None;
  double factor = 8.0;                       // context grows by this factor
  double original_max = 4096;                // original_max_position_embeddings (Llama 2: 4096, Llama 3.1: 8192)
  double low_freq = 1.0, high_freq = 4.0;    // llama3: low_freq_factor, high_freq_factor
  double beta_fast = 32.0, beta_slow = 1.0;  // yarn: rotations bounding the ramp

  // A real model (core/models/presets.hpp) by name, or "" for free parameters. Choosing one sets d_head, heads, base,
  // pairing, max_position and the scaling knobs from its config.json, and the RoPE panels use its frequencies
  // (partial rotary, rope_scaling); those five stay the model's until model=none (params.cpp: model_bound;
  // a learned-position model leaves base and pairing free: they only shape the RoPE panels' comparison).
  std::string model;
  bool model_rope = false;  // the chosen model uses RoPE (set with model; not a link key)
  // The config.json the user loaded (dropped, pasted, --config), which model=config names. Not a link key: a link
  // carries model=config but not the file.
  std::shared_ptr<const LoadedConfig> loaded;
  // The checkpoint the user opened (a drop, the picker, --weights, the Hub); not a link key. Its learned table, when it
  // has one, is the app's table: max_position, d_head and heads stay its frame until weights=none.
  std::shared_ptr<const LoadedWeights> weights;

  // The extrapolation lab's run settings (its panel); the model sizes and schedule are core's LabOptions defaults.
  LabTask task = LabTask::Copy;
  int methods = (1 << std::size(kAllPositionMethods)) - 1;  // bit i: kAllPositionMethods[i]
  int train_len = LabOptions{}.train_len;                   // training sizes 1..train_len, evaluated to 4 x
  int table_len = LabOptions{}.table_len;                   // learned table rows; 0: the longest training input
  int steps = LabOptions{}.steps;                           // AdamW steps per method
  std::uint64_t lab_seed = LabOptions{}.seed;               // init, batches and evaluation sequences
  int lab_seeds = LabOptions{}.seeds;                       // runs per method: seeds lab_seed .. lab_seed + seeds - 1
  LabPositions positions = LabOptions{}.positions;          // where training sequences sit: 0..T-1 or random in [0, R)
  int position_range = LabOptions{}.position_range;         // R (random; 0: 4 x the longest test input)

  int lesson = 0;  // the guided lesson's step (app/state/lesson.hpp), 1..kLessonSteps; 0: off

  int d_model() const { return heads * d_head; }
  bool operator==(const Params& o) const;  // every row of the link-key table compares equal
  bool operator!=(const Params& o) const { return !(*this == o); }
};

// A float grid [rows, cols] (row-major) for a heatmap, with a version that changes with its data.
// When downsampled, each cell stands for row_step x col_step source entries.
struct Grid {
  std::vector<float> values;
  int rows = 0, cols = 0;
  int row_step = 1, col_step = 1;
  std::uint64_t version = 0;
};

// The lesson's section 3 probe, live: what each method does at one position.
struct Probe {
  long long position = 0;
  bool learned_ok = false;        // the app's table served the row
  bool learned_expected = false;  // it should: position < max_position (else IndexError is the right answer)
  bool holds() const { return learned_ok == learned_expected; }
  std::string learned;      // "P[5]: row of width d = 32 (the app's table [10, 32])" or the full IndexError
  double angle0 = 0.0;      // position * theta_0
  double angle_last = 0.0;  // position * theta_{d/2-1}
};

// One derived piece of the Model and the exact inputs it was last built from: stale(inputs...) is
// true (and records them) when they differ from the last build's, so a piece rebuilds only when
// its own inputs change. builds counts the rebuilds, for tests. The inputs' types are the call's:
// each piece passes its own (model.cpp's piece table), every time the same.
struct Cached {
  int builds = 0;
  template <class... Inputs>
  bool stale(const Inputs&... now) {
    using Key = std::tuple<Inputs...>;
    if (built_from_ && key_type_ == &kKeyTag<Key> && *static_cast<const Key*>(built_from_.get()) == std::tie(now...))
      return false;
    built_from_ = std::make_shared<const Key>(now...);
    key_type_ = &kKeyTag<Key>;
    ++builds;
    return true;
  }

 private:
  template <class Key>
  static constexpr char kKeyTag = 0;        // its address names a key type (the web build has no RTTI)
  std::shared_ptr<const void> built_from_;  // a Key; null until the first build
  const void* key_type_ = nullptr;
};

// The Model's pieces by name. What each is built from and by, in building order, is its row of the piece
// table in model.cpp (update_model, the only writer). The pieces that read the RoPE frequencies key on
// Model::freq_version, which changes with each rebuild of freq.
struct ModelCaches {
  Cached freq, table, vectors, score_qk, lookup, rotate, curves, decay, token, field, sinusoidal, sinus_at_m, scaling,
      precision, precision_context, shapes, probes, budget, alibi, exercises;
};

// The model Params::model names, as core derived it from the preset's config.json.
struct RealModel {
  std::string name;    // the preset's name, or the loaded config.json's file name
  std::string source;  // the Hugging Face repository its values come from, or "loaded config.json"
  HfConfig config;
  ModelInfo info;        // rope (scaled inv_freq, attention factor, ...) or absolute
  long long hidden = 0;  // model_width: the width a learned table of it has or would have
};

// One preset in the compare-models table: what core derives from its config.json.
struct CatalogRow {
  std::string name, source;
  std::optional<ModelInfo> info;  // null when the preset does not derive (error holds why)
  std::string error;
  ContextBudget budget;  // RoPE models only
  std::string scaling;   // "llama3 x8", "yarn x40", "none"
  long long hidden = 0;
};

// Everything computed from Params by src/core; recomputed only when its inputs change.
struct Model {
  ModelCaches caches;             // what each piece was built from (update_model)
  int updates = 0;                // update_model calls, for tests
  std::uint64_t versions = 0;     // source of Grid / curve versions
  std::optional<RealModel> real;  // Params::model's config and derivation (null for free parameters)
  std::string model_error;        // why Params::model could not be derived, or ""
  // theta_i RoPE uses: base^(-2i/d_head), or the model's after its rope_scaling, 0 for the pairs a partial-rotary
  // model leaves alone (the first rotary_pairs rotate)                                          [d_head/2]
  Eigen::VectorXd inv_freq;
  Eigen::VectorXd base_inv_freq;  // base^(-2i/d_head): the lesson's formula, unscaled   [d_head/2]
  int rotary_pairs = 0;
  double attention_factor_model = 1.0;     // the model's: Hugging Face scales cos and sin by it
  std::uint64_t freq_version = 0;          // changes with every inv_freq rebuild
  bool freq_reads_position = false;        // the model's rope_scaling depends on the length (dynamic, longrope)
  Eigen::VectorXd angles;                  // m * theta_i                 [d_head/2]
  LearnedTable table;                      // P [max_position, d], built when it holds at most Limits::table_entries_max
  bool table_built = false;                // else rows come from learned_row one at a time (the table is too large)
  std::optional<Eigen::RowVectorXd> row;   // P[m] when m < max_position  [d]
  std::optional<Error> lookup_error;       // the IndexError otherwise
  std::string lookup_message;              // lookup_error->full(), or "" (kept, so frames need not build it)
  std::vector<FrameworkLookup> elsewhere;  // P[m] in other frameworks (core/encodings/frameworks.hpp), when m is past P
  Eigen::VectorXd q, k, v;                 // seeded head vectors         [d_head]
  Eigen::VectorXd q_rot, k_rot;            // RoPE(q, m), RoPE(k, n)      [d_head]
  double score = 0.0;                      // <RoPE(q, m), RoPE(k, n)>
  double norm_max_diff = 0.0;              // | ||RoPE(q)|| - ||q|| | (max over q, k)
  AddVsRotate why;                         // q + PE(m) against RoPE(q, m), with k at n (built with the rotation)

  // [SECTION] Dot product against offset: score(anchor + r, anchor) for r in [-offsets, offsets]
  Eigen::VectorXd score_q, score_k;    // the curve's q and k (Params::qk; layer 0's laid out over the whole head)
  ScoreQK qk_drawn = ScoreQK::Random;  // what they are: Params::qk, or Random when layer 0 cannot be read
  std::string qk_words;                // what q and k are, in words, for the panel and the text layer (built with them)
  std::string qk_error;                // why qk=layer0 fell back to random, or ""
  bool qk_reading = false;  // ... because the page has not read the rows yet (it asks for them after the frame)
  std::uint64_t qk_version = 0;
  double anchor_a = 0.0, anchor_b = 0.0;  // n and n + anchor_shift
  std::vector<double> curve_a, curve_b;   // [2 * offsets + 1]
  std::vector<double> bound,
      roformer_bound;            // true bounds on |score(r)| at the curve's offsets (core: rope_score_bound)
  double relative_spread = 0.0;  // max |curve_a - curve_b| (core: rope_relative_spread)
  double curve_absmax = 0.0;     // max |score(r)| over the drawn offsets (curve_a)
  double curve_rms = 0.0;        // sqrt(mean score(r)^2) over the drawn offsets: the curve's typical size
  double bound_max = 0.0, roformer_max = 0.0;  // the bounds' largest values (at r = 0)
  double cauchy_schwarz = 0.0;                 // |q| |k| (times the attention factor squared): |score| <= it at every r
  std::uint64_t curve_version = 0;

  // [SECTION] Learned table as a heatmap (downsampled by signed block max-abs when large)
  Grid table_img;              // [ceil(max_position / row_step), ceil(d / col_step)]
  double table_absmax = 0.0;   // max |P| over the whole table (over the sampled rows when table_sampled_rows > 0)
  int table_sampled_rows = 0;  // rows drawn from a table too large to build (table_sample_row), else 0
  long long token = 0;         // token id at position m (seeded)
  Eigen::RowVectorXd e_row;    // E[token]                    [d]

  // [SECTION] Angle field cos(x * theta_i): pairs (rows) x positions field_x0..field_x_end (cols),
  // field_step positions per column. Pairs with theta_i * field_step > pi cannot be resolved at
  // that step: field_aliased[i] is set and their row holds 0 (the panel hatches it).
  Grid field;
  double field_x0 = 0.0, field_x_end = -1.0, field_step = 1.0;
  std::vector<bool> field_aliased;  // [d_head/2]
  std::string field_words;          // the range, step and aliased pairs in words, for the panel

  // [SECTION] Shape trace and checks
  std::vector<ShapeStep> shapes;
  ParamCounts counts;
  std::vector<Check> checks;        // core's lesson_checks for the current dims
  bool checks_lesson_dims = false;  // B, T, h were too large: checks ran with the lesson's 2, 5, 4
  // In range min(5, max_position - 1), the last row max_position - 1, past the table max(100,
  // max_position) (core's offset_probes; 5, 9, 100 with the lesson's 10 rows) and m.
  static constexpr int kProbeCount = 4;
  Probe probes[kProbeCount];

  // [SECTION] Context extension: core's rope_scaled_inv_freq for Params' scaling (this panel only)
  RopeScaling scaling;              // what core was given (seq_len = m + 1 for dynamic)
  Eigen::VectorXd scaled_inv_freq;  // theta_i after scaling      [d_head/2] (empty on error)
  double attention_factor = 1.0;
  std::pair<double, double> yarn_range{0, 0};  // yarn_correction_range (pair indices)
  std::string scaling_error;                   // core's BadRequest, or ""
  std::uint64_t scaling_version = 0;

  // [SECTION] Context budget (core/models/context_budget.hpp) of the chosen model, or of Params as a RoPE model
  ContextBudget budget;
  std::optional<ContextBudget> budget_local;  // Gemma 3's sliding-attention layers (their own base), else null
  std::vector<CatalogRow> catalog;  // every preset, built the first time the compare panel asks (model_catalog)

  // [SECTION] Relative biases: ALiBi's slope per head (core's alibi_slopes for Params::heads)
  std::vector<double> alibi_slopes;  // [heads]

  // [SECTION] Exercises: the lesson's four, then those generated from the frequencies and the table
  // (core/lesson/exercises.hpp)
  std::vector<Exercise> exercises;

  // [SECTION] Precision at m: rope_precision for [Naive, Ours] x [float32, float16, bfloat16]
  PrecisionReport precision[2][3];
  std::uint64_t precision_version = 0;
  PrecisionReport precision_context[2][3];  // the same at position max_position (a model's context length)

  // [SECTION] Sinusoidal PE (Vaswani 3.5) at width d_head: rows = positions, cols = dims
  // Rows are the integer positions sinus_positions, at most sinus_step apart; dims 2i, 2i+1 of a
  // pair with theta_i * sinus_step > pi are aliased: sinus_aliased[i] is set and they hold 0.
  Grid sinus;
  // Vaswani's encoding at width d_model = h x d_head and base 10,000 (kSinusoidalBase); columns are the dims
  // sinus_dims (all of them, or kSinusPairsMax pairs evenly spaced when d_model is wider).
  std::vector<double> sinus_positions;  // [rows], integers in [sinus_x0, sinus_x_end]
  double sinus_x0 = 0.0, sinus_x_end = -1.0, sinus_step = 1.0;
  std::vector<int> sinus_dims;      // the dim of PE each column shows  [cols]
  Eigen::VectorXd sinus_theta;      // the frequency of each drawn pair [cols/2]
  std::vector<bool> sinus_aliased;  // [cols/2]
  std::string sinus_words;          // "rows: positions 0 to 100, ...; columns: 32 dims", for the panel
  Eigen::RowVectorXd sinus_at_m;    // the first dims of PE[m] at width d_model  [min(d_model, 8)]
};

// A file the UI asked to export (src/app/state/export.hpp); the platform seam delivers it as a download
// or a file on disk, then clears Ui::pending_exports.
struct ExportFile {
  std::string name;  // "ropeviz-angles-m100-d8.csv"
  std::string mime;  // "text/csv"
  std::string content;
};

// The position sweeping by itself (app/ui/play.hpp): linear in positions per second or logarithmic in decades per
// second.
struct Play {
  bool on = false;
  bool log = false;
  double rate = 2.0;     // positions per second (linear)
  double decades = 0.5;  // decades per second (logarithmic)
  double at = 0.0;       // the sweep's exact position; Params::position is its whole part
};

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
};

// A checkpoint being read by the page (web/page.js reads the ranges core asks for: a File's slices, the Hub's range
// requests), and the Hub field. The desktop reads its files at once and never shows it.
struct WeightsLoad {
  bool active = false;                       // ranges are being read
  std::string what;                          // "openai-community/gpt2 (Hub)", "model.safetensors"
  std::uint64_t done = 0, total = 0;         // bytes read so far of those asked for so far
  bool stop = false;                         // Stop pressed: the page aborts its request and the state stays
  char repo[128] = "openai-community/gpt2";  // the Hub field's repo id
  bool pending_fetch = false;                // "fetch" pressed: the platform starts reading repo from the Hub
  bool pending_open = false;                 // "load weights" pressed: the platform opens a file picker
  std::string pending_demo;                  // a demo model's button (Run it): the platform opens web/models/<name>
};

// What a note stands for in full, kept beside it (Ui::note_details, by the note's text) and shown under its one line
// behind a disclosure (show_notes): a checkpoint's tensors when it has no learned table.
struct NoteDetails {
  std::string label;               // the disclosure's: "tensors (291)"
  std::string text;                // opening it shows this first: what was looked for
  std::vector<std::string> lines;  // then these, one a line: the tensors' names
};
using NoteDetailsMap = std::map<std::string, NoteDetails>;

// The UI's own state: nothing here changes the math.
struct Ui {
  float scale = 1.0f;                              // device pixels per CSS/logical pixel
  std::map<std::string, Rect, std::less<>> rects;  // named controls, in device pixels (found by string_view)
  std::vector<std::string> notes;                  // rejected or clamped inputs, confirmations; shown until dismissed
  std::map<std::string, int> note_repeats;         // a note raised again is shown once with its count (show_notes)
  NoteDetailsMap note_details;                     // the list a note stands for, behind a disclosure (show_notes)
  std::vector<ExportFile>
      pending_exports;  // set by an export button (one or more files), taken by the platform (app/shell/host.hpp)
  bool pending_copy_link = false;    // "copy link" pressed; the platform copies and clears it
  bool pending_picture = false;      // "picture.png" pressed; the platform saves the next frame as a PNG
  std::string picture_panel;         // ... of this panel only (its key; rects["panel:KEY"]), or "" the window
  int picture_waits = 0;             // frames that picture has waited for its panel to show (app/shell/host)
  bool pending_open_config = false;  // "load config.json" pressed; the platform opens a file picker
  bool can_open_files = false;       // the platform has a file picker (the web page)
  WeightsLoad weights_load;          // a checkpoint being read, the Hub field
  double frame_ms = 0.0;             // CPU time of the last frame
  long long frames = 0;
  std::shared_ptr<Gpu> gpu;  // set by the platform; null when headless
  bool controls_open = true;
  bool intro_done = false;  // the first screen's title and first step went (app/shell/intro.cpp)
  // Phone width (app.cpp): one panel at a time, picked from a list, and the controls as a sheet over it
  bool narrow = false;       // this frame's layout
  bool sheet_open = false;   // the controls sheet is open
  int single_bar = 0;        // the bar whose selected panel shows: the one a link or the picker changed last
  int seen_tab[2] = {0, 0};  // Params::tab_top / tab_bottom last frame (their defaults), to follow a change
  bool show_decay = true;
  int lab_view = 0;             // the lab's plot: exact match, per answer, loss, attention, KV cache, learned rows
  int bias_head = 0;            // the head whose ALiBi bias matrix the biases panel shows (0-based)
  bool bias_t5 = false;         // a narrow biases panel shows T5's buckets instead of ALiBi
  int shown_tab[2] = {-1, -1};  // tab each bar (app/state/registry.hpp) drew last frame
  std::string focus;            // the named control with the keyboard focus after the last frame ("": none)
  // number fields being typed into (app/shell/controls.cpp), by link key: the live text, applied on Enter or
  // when the field loses focus
  std::map<std::string, std::string> field_edits;
  float hovered_scroll[2] = {0, 0};   // scroll and scroll range of the area under the mouse (state(), tests)
  Decimated dec_a, dec_b;             // the score curves at the plot's width
  Decimated dec_bound, dec_roformer;  // their bounds (column max: still above every curve point)
  Play play;
  ExerciseEntry exercises[kExerciseCount];  // by ExerciseId
  int exercise_shown = 0;                   // index into Model::exercises
  bool typing_words = false;  // this frame an exercise's answer (words as well as numbers) takes typed text
  std::string qk_noted;       // the score curve's last qk=layer0 refusal raised as a note (raised once per change)
};

struct RunSession;  // the Run it feature's room (app/run/run_session.hpp), made on its first use

struct App {
  Params params;
  Model model;
  Ui ui;
  LabSession lab;
  TrainedView trained;
  UsageWalk usage;
  std::shared_ptr<RunSession> run;
};

}  // namespace rv
