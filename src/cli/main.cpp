// ropeviz-cli: the headless engine. `verify` reproduces the lesson's checks, `eval` answers JSON-lines requests, `lab`
// trains the tiny decoder and prints its document, `lab-export` writes that run as a PyTorch script; --help lists all.
#include <cstdio>
#include <cstring>

#include <string>
#include <vector>

#include "cli/eval.hpp"
#include "cli/lab_export.hpp"
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
  ropeviz-cli --help     this text

eval: numbers are float64 written with shortest round-trip precision. A bad line gets
  {"error":{"type":"BadRequest","message":"..."}} and the next line is still served.
  Exit status 0 when every line was answered without error, 1 otherwise.
  "pairing": "interleaved" (x[2i], x[2i+1]; Meta Llama) or "half_split" (x[i], x[i+d/2]; GPT-NeoX/HF). Default interleaved.
  "base" defaults to 10000. Positions (position, m, n, anchor, positions) must be >= 0.

Ops (one example each):
  inv_freq     theta_i = base^(-2i/d_head)
    {"op":"inv_freq","d_head":8,"base":10000.0}
    -> {"inv_freq":[1.0,0.1,0.01,0.001]}
  inv_freq with scaling (Hugging Face rope_scaling names): linear | dynamic | yarn | llama3
    {"op":"inv_freq","d_head":128,"base":500000.0,"scaling":{"type":"llama3","factor":8.0,"low_freq_factor":1.0,
     "high_freq_factor":4.0,"original_max_position_embeddings":8192}}
    {"op":"inv_freq","d_head":128,"base":10000.0,"scaling":{"type":"yarn","factor":4.0,"original_max_position_embeddings":4096,
     "beta_fast":32,"beta_slow":1}}
    {"op":"inv_freq","d_head":128,"base":10000.0,"scaling":{"type":"dynamic","factor":2.0,"seq_len":8192,"max_position_embeddings":4096}}
    -> {"inv_freq":[...],"attention_factor":1.0}
  rotate       x rotated pair-wise by position * theta_i (angles not reduced mod 2 pi)
    {"op":"rotate","d_head":4,"base":10000.0,"position":100,"x":[1,0,1,0],"pairing":"interleaved"}
    -> {"x_rot":[...4],"angle":[100.0,1.0]}
    optional "dtype":"float32" runs the float32 fast path (x rounded to float32; angles still in double)
  score        <RoPE(q, m), RoPE(k, n)>
    {"op":"score","d_head":4,"base":10000.0,"q":[1,2,3,4],"k":[4,3,2,1],"m":5,"n":3,"pairing":"half_split"}
    -> {"score":...}
  lookup       rows P[positions] of a learned table given row-major (or seeded: "seed" instead of "table")
    {"op":"lookup","max_position":2,"d":2,"table":[0.1,0.2,0.3,0.4],"positions":[1,0]}
    -> {"rows":[[0.3,0.4],[0.1,0.2]]}
    {"op":"lookup","max_position":10,"d":8,"seed":123,"positions":[5,100]}
    -> {"error":{"type":"IndexError","message":"index 100 is out of bounds for dimension 0 with size 10"}}
  sinusoidal   PE[pos,2i] = sin(pos/10000^(2i/d)), PE[pos,2i+1] = cos(...), row-major [positions, d]
    {"op":"sinusoidal","d":4,"positions":[0,1]}
    -> {"pe":[0.0,1.0,0.0,1.0,0.8414709848078965,0.5403023058681398,0.009999833334166664,0.9999500004166653]}
  decay_bound  RoFormer 3.4.3: (1/(d/2)) sum_{j=1..d/2} |S_j|, S_j = sum_{k<j} exp(i r theta_k)
    {"op":"decay_bound","d":128,"base":10000.0,"distances":[0,1,2]}
    -> {"bound":[64.5,...]}
  score_curve  scores[j] = <RoPE(q, anchor + r), RoPE(k, anchor)>, r = offset_lo + j
    {"op":"score_curve","d_head":4,"q":[1,2,3,4],"k":[4,3,2,1],"anchor":0,"offset_lo":0,"offset_hi":3}
    -> {"scores":[...4]}
  precision    per-pair angle/rotation error of float32|float16|bfloat16 vs float64, recipe "ours" or "naive" (Llama 2)
    {"op":"precision","d_head":8,"position":1000000,"format":"float32","recipe":"naive"}
    -> {"angle_err":[...],"rotation_err":[...],"max_angle_err":...,"max_rotation_err":...,"position_in_format":1000000.0}
  shape_trace  shapes from token ids to Q_rope/K_rope/V and parameter counts (defaults: the lesson's dims)
    {"op":"shape_trace","B":2,"T":5,"h":4,"d_head":8,"V":100,"max_position":10}
    -> {"steps":[{"name":"token_ids","shape":[2,5],"note":"..."},...],"params":{...}}

  model        a Hugging Face config.json (any model) or a named preset -> RoPE parameters as transformers derives
               them (head_dim, rotary_dims, base, pairing, rope_type default|linear|dynamic|yarn|longrope|llama3,
               scaled inv_freq, attention_factor), or the learned table's size for gpt2/bert/... ("rope": null).
               Optional "seq_len" (the current length; dynamic and longrope depend on it).
    {"op":"model","preset":"llama-3.1-8b"}
    {"op":"model","config":{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"rope_theta":500000.0,
     "max_position_embeddings":131072,"rope_scaling":{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,
     "high_freq_factor":4.0,"original_max_position_embeddings":8192}},"seq_len":4096}
    -> {"rope":{"head_dim":128,"rotary_dims":128,"base":500000.0,"pairing":"half_split","rope_type":"llama3",
        "inv_freq":[...64],"attention_factor":1.0,"max_position_embeddings":131072,
        "original_max_position_embeddings":8192},"absolute":null}
    {"op":"model","preset":"gpt2"}
    -> {"rope":null,"absolute":{"max_position":1024,"d":768,"parameters":786432}}
    presets: %PRESETS%
  analyze      critical_dim = 2*ceil((d_head/2)*ln(context/(2 pi))/ln(base)) clamped to [0, d_head] (Liu et al. 2023);
               first_negative_m = smallest m >= 1 with sum_i cos(m theta_i) < 0, up to "limit" (default 1e7;
               limit * d_head/2 <= 2.6e9), null if none (Men et al. 2024)
    {"op":"analyze","d_head":128,"base":10000.0,"context":4096}
    -> {"critical_dim":92,"first_negative_m":1707,"d_head":128,"base":10000.0,"context":4096.0,"limit":10000000}
  decoder_grad the extrapolation lab's tiny decoder (pre-RMSNorm, causal attention, erf GELU): mean
               cross-entropy over targets >= 0 (-1 = ignored) and the gradient of every weight, float64, each
               flattened row-major like the weight. "position": learned | sinusoidal | rope | alibi | t5 | none;
               weights tok_emb [vocab, d_model], pos_emb [max_position, d_model] (learned), l{j}.norm1,
               l{j}.norm2 [d_model], l{j}.wq/wk/wv/wo [d_model, d_model], l{j}.w1 [d_model, d_ff], l{j}.w2
               [d_ff, d_model], rel_bias [32, heads] (t5), norm_f [d_model], head [d_model, vocab]; optional
               "positions" [B][T] (default 0..T-1): where each token sits (causality stays by index)
    {"op":"decoder_grad","config":{"vocab":7,"d_model":8,"heads":2,"layers":1,"d_ff":12,"position":"rope",
     "base":10000.0,"pairing":"interleaved"},"weights":{"tok_emb":[...56],"l0.norm1":[...8],...},
     "tokens":[[1,4,6]],"targets":[[4,6,-1]]}
    -> {"loss":...,"grads":{"tok_emb":[...56],"l0.norm1":[...8],...}}
  weights      a .safetensors checkpoint ("file") or model.safetensors.index.json and its shards ("index"):
               only the header is read. F64, F32, F16, BF16 tensors are readable
    {"op":"weights","file":"gpt2/model.safetensors"}
    -> {"header_bytes":N,"file_bytes":S,"metadata":{...},"tensors":[{"name","dtype","shape","file"},...]}
  learned_table the learned position table (wpe.weight, decoder.embed_positions.weight,
               embeddings.position_embeddings.weight, with or without the model's prefix, or "tensor"),
               after "offset" rows (2 for OPT and RoBERTa from "config"/"preset"): row norms, neighbour
               cosines, cosine by offset (k <= 256), the centred table's singular values, energy,
               rank90/rank99 and its top 3 components; only the header and the table are read
    {"op":"learned_table","file":"gpt2/model.safetensors","preset":"gpt2"}
    -> {"tensor":"wpe.weight","dtype":"F32","rows":1024,"dim":768,"offset":0,"row_norm":[...],...}
  rope_usage   per layer, head and rotated pair, the norm of the query / key projection rows that feed the
               pair, after the layer's input norm (and q_norm / k_norm): which frequencies the weights use
    {"op":"rope_usage","file":"llama/model.safetensors","preset":"llama-3.2-1b","layers":[0]}
    -> {"model_type":"llama","layers":[0],"heads":32,"kv_heads":8,"wavelength":[...],"q":[[[...]]],...}
  real_scores  layer 0's query of one token and key of another (embedding, input norm, projection, bias,
               q_norm / k_norm), then RoPE(q, r) . RoPE(k, 0) for r = 0..offsets
    {"op":"real_scores","file":"llama/model.safetensors","preset":"llama-3.2-1b","head":0,"token":1000,
     "key_token":1000,"offsets":64}
    -> {"offsets":[0,1,...,64],"score":[...]}
  forward      the checkpoint's causal LM on "tokens" (or "text" through a "tokenizer", or a byte-level model's
               "text"), as transformers runs it (16 families): NLL by position, and "outputs" logits, attention,
               hidden, attention_by_distance, sink, qk_pair_norms; optional "positions", "rope_scaling" (an object
               or "none"), "rope":"drop"
    {"op":"forward","file":"web/models/llama-bytes","text":"apt-get install","rope_scaling":"none"}
    -> {"nll":[...14]}
  tokenize     a Hugging Face tokenizer.json's encoding of "text" (BPE; its normalizers, pre-tokenizers and added
               tokens), as tokenizers.js gives it; "add_special_tokens":true applies its post-processor
    {"op":"tokenize","tokenizer":"gpt2/tokenizer.json","text":"Hello world"}
    -> {"ids":[15496,995],"tokens":["Hello","Ġworld"]}
  detokenize   "ids" back to text through the tokenizer.json's decoder
    {"op":"detokenize","tokenizer":"gpt2/tokenizer.json","ids":[15496,995]}
    -> {"text":"Hello world"}
  The checkpoint ops take "file" as a .safetensors file or a checkpoint's folder, "config" as an object or a
  config.json's path; without "config" or "preset" they read the config.json beside the checkpoint.

lab: flags (defaults in brackets)
  --task copy|reverse|repeat [copy]   symbols 0..9, SEP = 10 (vocab 11); n answers per sequence:
      copy     x1..xn SEP x1..xn      reverse  x1..xn SEP xn..x1
      repeat   a random 3-symbol pattern repeated to n + 3 tokens; every answer is the token 3 places back
  --methods a,b,...  [learned,sinusoidal,rope,alibi,t5,none]
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
  The defaults bring all six methods to the bar in about 9 s of one core (2000 steps is only the cap).
  Training is float32; each method starts from the same seed (same init, same batches); tok_emb and pos_emb start
  N(0, 1) like nn.Embedding (on the scale of the sinusoidal PE), the other matrices N(0, 0.02). Accuracy is teacher-forced
  argmax: exact match (every answer right, the same as greedy decoding) and per-answer. learned's table has as many
  rows as the longest training input (2N; N + 2 for repeat): longer inputs get null accuracy and "error" holds the
  IndexError ("IndexError: index 6 is out of bounds ..."). -> {"task":"copy","train_len":3,"eval_lengths":[1,...,12],"steps":2000,"seed":0,
  "seconds":...,"tokens_per_s":...,"methods":{"rope":{"train_loss":[...],"accuracy":[...],
  "token_accuracy":[...],"error":null,"steps_run":N,"reached_bar":true},...}} plus vocab, sizes, schedule,
  check_every and bar; steps_run is the steps trained (train_loss has as many), reached_bar is exact match >= 0.95 at
  every training length in the final evaluation. With --rope-scaling: "rope_scaling", "rope_factor",
  "rope_inv_freq_scaled" and "rope_attention_factor" too, and rope's "accuracy_scaled" and "token_accuracy_scaled"
  (the same sequences, scaled frequencies). A bad flag: message on stderr, exit 2.

lab-export: the lab's flags become the script's defaults, its one DEFAULTS line (python3 DIR/ropeviz_lab.py --help
  lists its flags: --device cuda|cpu, --dtype float32|float64, --data FILE, --out FILE, --print-command, ...). The
  script ports the random stream, so it trains on exactly these batches from exactly these weights (each float32
  written as the shortest decimal that reads it back); with --data DIR/ropeviz_lab_data.json it starts from the
  written weights and checks the written batches. A directory that cannot be created or a file that cannot be
  written: message on stderr, exit 1.

Errors: odd/zero/negative d_head, base <= 1, non-finite or negative numbers, wrong lengths, unknown ops,
malformed JSON and oversized requests (d_head > 65536, max_position*d > 1e8, > 1e6 positions, a line over 8 MiB,
JSON nested deeper than 64) are BadRequest; a bad config's message names the field (e.g. "rope_scaling.factor");
a missing or wrongly sized weight is BadRequest naming it ("weights.l0.wq"); a lookup outside [0, max_position),
a token id outside [0, vocab) and (learned) a sequence longer than max_position are IndexError in the message
format of PyTorch tensor indexing ("index 100 is out of bounds for dimension 0 with size 10"); negatives are
refused too, as nn.Embedding does, though a PyTorch tensor P[-1] would return the last row.
)";

// The help text with the preset names filled in from the table, so the two never disagree.
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
  return text;
}


}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "lab") == 0) return rv::cli::run_lab(argc, argv, stdout, stderr);
  if (argc >= 2 && std::strcmp(argv[1], "lab-export") == 0) return rv::cli::run_lab_export(argc, argv, stdout, stderr);
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
