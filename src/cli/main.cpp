// ropeviz-cli: the headless engine. `verify` reproduces the lesson's checks, `eval` answers JSON-lines requests, `lab`
// trains the tiny decoder and prints its document, `lab-export` writes that run as a PyTorch script, `run-export` the
// forward and passkey ops as one; --help lists all.
#include <cstdio>
#include <cstring>

#include <string>
#include <vector>

#include "cli/eval.hpp"
#include "cli/lab_export.hpp"
#include "cli/run_export.hpp"
#include "cli/verify.hpp"
#include "core/lab/lab.hpp"
#include "core/models/presets.hpp"

namespace {
const char* kHelp = R"(ropeviz-cli: positional encodings (learned absolute vs RoPE) from the command line

Usage:
  ropeviz-cli verify     reproduce the lesson's section-3 checks; exit 0 when all hold
  ropeviz-cli eval       read one JSON request per line on stdin, write one JSON response per line
  ropeviz-cli lab [flags]  train the tiny decoder with each position method on a synthetic task and print one
                         JSON document: training loss per step, exact-match and per-answer accuracy per length
  ropeviz-cli lab-export DIR [flags] [--batches N]  write the same run as a standalone PyTorch script,
                         DIR/ropeviz_lab.py, and DIR/ropeviz_lab_data.json (the initial weights and the first N
                         training batches, default 50); prints {"script":...,"data":...,"batches":N,"methods":[...]}
  ropeviz-cli run-export DIR [REQUEST]  write the forward and passkey ops as a standalone PyTorch script,
                         DIR/ropeviz_run.py (python3 DIR/ropeviz_run.py --help; float64 is the reference); prints
                         {"script":...}; with REQUEST (a forward or passkey request: a JSON file, - for stdin, or
                         inline {...}) also DIR/request.json and prints {"script":...,"request":...,"command":...}
  ropeviz-cli --help     this text

eval: numbers are float64 written with shortest round-trip precision. A bad line gets
  {"error":{"type":"BadRequest","message":"..."}} and the next line is still served.
  Exit status 0 when every line was answered without error, 1 otherwise.
  "pairing": "interleaved" (x[2i], x[2i+1]; Meta Llama) or "half_split" (x[i], x[i+d/2]; GPT-NeoX/HF);
  default interleaved.
  "base" defaults to 10000. Positions (position, m, n, anchor, positions) must be >= 0.

Ops (one request each; docs/cli.md has every field, default and answer):
%OPS%  presets: %PRESETS%
  The checkpoint ops take "file" as a .safetensors file or a checkpoint's folder, "config" as an object or a
  config.json's path; without "config" or "preset" they read the config.json beside the checkpoint.

lab: flags (defaults in brackets)
  --task copy|reverse|repeat [copy]   symbols 0..9, SEP = 10 (vocab 11); n answers per sequence:
      copy     x1..xn SEP x1..xn      reverse  x1..xn SEP xn..x1
      repeat   a random 3-symbol pattern repeated to n + 3 tokens; every answer is the token 3 places back
  --methods a,b,...  [%METHODS%]
  --train-len N      training sizes n = 1..N, evaluation n = 1..4N  [3; 1..64]
  --steps N          AdamW steps per method at most (fewer when the bar is reached)  [2000; 1..100000]
  --seed S           [0]; the same flags and seed give the same document apart from seconds and tokens_per_s
  --d-model 32 --heads 4 --layers 3 --d-ff 64 --batch 128 --lr 0.006 --warmup 100 (linear warm-up, capped at
  steps/2, then cosine to 0; weight decay 0.01) --eval-count 100 (fresh sequences per evaluation length)
  --check-every K    every K steps check the training lengths (longest first) on the evaluation sequences and stop
                     the method once all are at 0.95 exact match; 0 never stops early  [50; 0..100000]
  --rope-scaling none|linear|dynamic|yarn  [none] evaluate rope's final weights again with context extension
                     (core's rope_scaled_inv_freq, Hugging Face's rope_type names and semantics): linear = position
                     interpolation (theta_i / F), dynamic = dynamic NTK at the longest evaluation input, yarn = YaRN
                     with original length = the longest training input (beta_fast 32, beta_slow 1, attention factor
                     0.1 ln F + 1); the old names pi and ntk read as linear and dynamic
  --rope-factor F    the scaling factor  [4 = the evaluation range 4N over the training range N; (1, 64]]
  --jobs N           (lab only) train the runs (one per method and seed) on N threads [the cores; 1..64]; the
                     document is the same for every N apart from seconds (wall time) and tokens_per_s (per thread)
  --save-weights DIR (lab only) also write each trained decoder as DIR/<method>/model.safetensors (float32,
                     the decoder's weight names) and DIR/<method>/config.json; learned_table reads them
  The defaults bring all six methods to the bar in about 9 s of one core (2000 steps is only the cap). The
  document (training loss per step, exact-match and per-answer accuracy per length, per seed and as means) is
  described field by field in docs/lab.md. A bad flag: message on stderr, exit 2.

lab-export: the lab's flags become the script's defaults, its one DEFAULTS line (python3 DIR/ropeviz_lab.py --help
  lists its flags: --device cuda|cpu, --dtype float32|float64, --data FILE, --out FILE, --print-command, ...). The
  script ports the random stream, so it trains on exactly these batches from exactly these weights (each float32
  written as the shortest decimal that reads it back); with --data DIR/ropeviz_lab_data.json it starts from the
  written weights and checks the written batches. A directory that cannot be created or a file that cannot be
  written: message on stderr, exit 1.

run-export: python3 DIR/ropeviz_run.py --model CHECKPOINT_DIR --request REQUEST.json --out RESULT.json
  [--dtype float32|float64] [--device cpu|cuda] [--nproc N] (or under torchrun) answers one forward or passkey request
  (an eval line's object, "file"/"config" replaced by the folder, or --model owner/name[@revision]: a Hub repo,
  downloaded with huggingface_hub) with eval's document, in its own PyTorch forward pass; its float64 run is the
  reference the C++ is held to; passkey's cells are shared out over the processes (docs/run-export.md). REQUEST is
  checked as eval checks it without the checkpoint and written, less "file", "index", "config" and "preset", as
  DIR/request.json; "command" runs the script on it (--model: the folder of its "file", else CHECKPOINT_DIR). No DIR,
  more arguments, a REQUEST that cannot be read or is refused: message on stderr, exit 2, nothing written; a directory
  or file that cannot be written: message on stderr, exit 1.

Errors: odd/zero/negative d_head, base <= 1, non-finite or negative numbers, wrong lengths, unknown ops,
malformed JSON and oversized requests (d_head > 65536, max_position*d > 1e8, > 1e6 positions, a line over 8 MiB,
JSON nested deeper than 64) are BadRequest; a bad config's message names the field (e.g. "rope_scaling.factor");
a missing or wrongly sized weight is BadRequest naming it ("weights.l0.wq"); a lookup outside [0, max_position),
a token id outside [0, vocab) and (learned) a sequence longer than max_position are IndexError in the message
format of PyTorch tensor indexing ("index 100 is out of bounds for dimension 0 with size 10"); negatives are
refused too, as nn.Embedding does, though a PyTorch tensor P[-1] would return the last row.
)";

// The help text with the ops, the preset names and the lab's methods filled in from their tables, so they never
// disagree.
std::string help_text() {
  std::string names, line;
  for (const rv::Preset& p : rv::presets()) {
    if (line.size() + std::strlen(p.name) > 88) {
      names += line + "\n             ";
      line.clear();
    }
    line += std::string(" ") + p.name;
  }
  std::string text = kHelp;
  text.replace(text.find("%PRESETS%"), 9, names + line);
  text.replace(text.find("%OPS%"), 5, rv::cli::eval_ops_help());
  text.replace(text.find("%METHODS%"), 9, rv::kPositionMethodChoices);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "lab") == 0) return rv::cli::run_lab(argc, argv, stdout, stderr);
  if (argc >= 2 && std::strcmp(argv[1], "lab-export") == 0) return rv::cli::run_lab_export(argc, argv, stdout, stderr);
  if (argc >= 2 && std::strcmp(argv[1], "run-export") == 0) return rv::cli::run_run_export(argc, argv, stdout, stderr);
  if (argc == 2 && std::strcmp(argv[1], "verify") == 0) return rv::cli::run_verify(stdout);
  if (argc == 2 && std::strcmp(argv[1], "eval") == 0) return rv::cli::run_eval(stdin, stdout);
  if (argc == 2 &&
      (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "help") == 0)) {
    std::fputs(help_text().c_str(), stdout);
    return 0;
  }
  std::fputs(help_text().c_str(), stderr);
  return 2;
}
