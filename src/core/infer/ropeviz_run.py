#!/usr/bin/env python3
"""ropeviz's forward pass and passkey bench as one standalone PyTorch script: a checkpoint folder's causal LM
(config.json + model.safetensors, or model.safetensors.index.json and its shards) answers the `forward` and `passkey`
requests of `ropeviz-cli eval` (the repository's docs/cli.md, docs/run-it.md, docs/passkey.md) with the same
documents. Its own safetensors reader and forward pass for 16 families (llama, mistral, mixtral, qwen2, qwen3,
gemma, gemma2, olmo2, phi3, phi, stablelm, starcoder2, gpt_neox, gptj, gpt2, opt) and every rope_scaling type
(default, linear, dynamic, yarn, longrope, llama3) written from transformers' modeling files; no transformers needed.

Written by `ropeviz-cli run-export DIR` (docs/run-export.md). In float64 it is the reference the C++ forward pass is
held to (NLL within 1e-3; ropeviz's tests import this file for their cross-checks).

    python3 ropeviz_run.py --model CHECKPOINT_DIR --request REQUEST.json --out RESULT.json
    python3 ropeviz_run.py --model HuggingFaceTB/SmolLM2-135M@main --request REQUEST.json --out RESULT.json
    python3 ropeviz_run.py --model llama-bytes --request passkey.json --out grid.json --dtype float64 --nproc 4
    torchrun --nproc-per-node 8 ropeviz_run.py --model MODEL --request passkey.json --out grid.json --device cuda

--model is a folder; or, where no such path exists, a Hugging Face Hub repo id, owner/name or owner/name@revision:
its config.json, model.safetensors (else model.safetensors.index.json and the shards it names) and tokenizer.json
(when the repo has one) are downloaded with the Python package huggingface_hub (snapshot_download, into its cache;
a second run reads them there, and several processes share the cache's locks) and the snapshot folder, named on
stderr, is the model (a request's "tokenizer" may name that folder). Without huggingface_hub that is refused,
naming it (pip install huggingface_hub); a repo that cannot be downloaded is an IOError.

The request is one JSON object, as one line of `ropeviz-cli eval` takes it, with "file"/"index" and
"config"/"preset" replaced by --model (they are ignored when present, so the CLI's line serves both):
  {"op": "forward", "tokens": [ids] or "text": "...", "positions", "rope_scaling": {...} or "none",
   "rope": "apply" or "drop", "outputs": [nll, logits, attention, hidden, attention_by_distance, sink,
   qk_pair_norms], "tokenizer", "add_special_tokens", "threads"}
  {"op": "passkey", "lengths": [L, ...], "depths": [d, ...], "trials": n, "seed": s, "tokenizer",
   "add_special_tokens", "rope_scaling", "rope", "threads"}
"text" is its UTF-8 bytes for a byte-level model (vocab_size 256), else needs "tokenizer" (a tokenizer.json, read
with the Python package `tokenizers` where it is importable). The answer is written to --out ('-': stdout) as one
JSON line: the document, or {"error": {"type": "BadRequest" | "IndexError" | "IOError", "message": ...}} with the
CLI's types and messages (a position past a learned table: IndexError "index 1024 is out of bounds for dimension 0
with size 1024"). Exit 0 with a document, 1 with an error document (a missing GPU for --device cuda, a bad --model
folder, a bad request), 2 for a bad flag.

--dtype float32 (the default) runs the pass in float32 from the stored dtype (F32, F16 and BF16 widen exactly), as
the C++ does; float64 is the reference. --device cpu or cuda (cuda:N; under several processes rank r uses
cuda:LOCAL_RANK). Several processes: with --nproc N (torch.multiprocessing, gloo, env:// on 127.0.0.1) or under
torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), passkey's cells (length x depth x trial, in the CLI's order)
are shared out, cell i to rank i % world size, gathered on rank 0, which writes the one document (the first cell's
error, in cell order, if any cell fails, as the CLI stops at it). forward is one pass: rank 0 runs it and the other
ranks return at once; --nproc does not start processes for it. A rank that fails stops the run: --nproc stops the
others and writes {"error": {"type": "RuntimeError", ...}} naming the rank (its traceback on stderr).
The environment variable ROPEVIZ_RUN_FAIL_RANK=R is a test hook: rank R raises RuntimeError at its first passkey cell.

Needs Python 3 and PyTorch (1.13 or 2.x, public API only); `tokenizers` only for "tokenizer", `huggingface_hub` only
for a Hub repo id as --model. Every weight is held in memory in --dtype, and attention is computed in blocks of query
rows (the T x T matrix only for "attention").
"""
import argparse
import datetime
import json
import math
import os
import re
import signal
import socket
import struct
import sys
import traceback

try:
    import torch
    import torch.nn.functional as F
    TORCH_MISSING = None
except ImportError as missing:  # the prompt, keys and config helpers below still import without it
    torch = F = None
    TORCH_MISSING = str(missing)

# ---- Limits and names, as the CLI's -----------------------------------------------------------------------------
RUNS = ["llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "olmo2", "phi3", "phi", "stablelm",
        "starcoder2", "gpt_neox", "gptj", "gpt2", "opt"]  # the families the pass runs, in the CLI's order
OUTPUTS = ["nll", "logits", "attention", "hidden", "attention_by_distance", "sink", "qk_pair_norms"]
MAX_TOKENS = 1 << 16           # a pass's tokens at most
MAX_OUTPUT = 1e7               # logits, attention and hidden refused above this many numbers each
MAX_POSITION = 1 << 40
PASSKEY_MAX_AXIS, PASSKEY_MAX_TRIALS = 16, 64
EXACT_WHOLE = 1 << 53          # seeds below it
SCORE_BLOCK = 1 << 22          # attention scores computed at a time (query rows x keys x heads)
HEAD_BLOCK = 1 << 22           # logits computed at a time (rows x vocab)
ACTIVATIONS = ("silu", "swish", "gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh", "relu")
LAUNCH_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR")  # what torchrun sets in each process it starts
HUB_ID = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*)(?:@(\S+))?$")  # owner/name[@revision]
HUB_FILES = ["config.json", "model.safetensors", "model.safetensors.index.json", "tokenizer.json"]  # what --model gets
FAIL_RANK = "ROPEVIZ_RUN_FAIL_RANK"  # a test hook: the rank it names raises RuntimeError at its first passkey cell
CHECKED_WITH = "1.13.1 (Debian 12, CPU): every path, by ropeviz's tests (tests/core/run_export_test.py)"


# ---- Errors: documents with the CLI's types ------------------------------------------------------------------------
class RequestError(Exception):
    """A refusal: {"error": {"type": ..., "message": ...}}."""

    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind, self.message = kind, message

    def document(self):
        return error_document(self.kind, self.message)


def error_document(kind, message):
    return {"error": {"type": kind, "message": message}}


def bad(message):
    return RequestError("BadRequest", message)


def index_error(index, size):
    """PyTorch's IndexError for a row past a table (a token past the vocabulary, a position past a learned table)."""
    return RequestError("IndexError", "index %d is out of bounds for dimension 0 with size %d" % (index, size))


def format_number(x):
    """The shortest %g that reads back as x, as the CLI writes numbers in messages."""
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    precision = int(math.floor(math.log10(abs(x)))) + 1 if 1.0 <= abs(x) < 1e17 else 1
    for precision in range(min(max(precision, 1), 17), 18):
        text = "%.*g" % (precision, x)
        if float(text) == x:
            break
    return text


# ---- A request's fields, read as the CLI reads them ----------------------------------------------------------------
def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def as_integer(v):
    """A JSON number that is an exact integer, else None."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v if -(1 << 63) <= v < (1 << 63) else None
    if isinstance(v, float) and math.isfinite(v) and v == math.floor(v) and abs(v) <= EXACT_WHOLE:
        return int(v)
    return None


MISSING = object()


class Fields:
    """Typed access to a request's fields; the first problem raises the CLI's BadRequest naming the field."""

    def __init__(self, obj):
        self.obj = obj

    def has(self, key):
        return key in self.obj

    def get(self, key, fallback):
        v = self.obj.get(key)
        if v is None:
            if fallback is MISSING:
                raise bad('missing required field "%s"' % key)
            return None
        return v

    def integer(self, key, fallback=MISSING):
        v = self.get(key, fallback)
        if v is None:
            return fallback
        if not is_number(v):
            raise bad('"%s" must be a number' % key)
        if not math.isfinite(v):
            raise bad('"%s" must be finite' % key)
        i = as_integer(v)
        if i is None:
            raise bad('"%s" must be an integer' % key)
        return i

    def boolean(self, key, fallback):
        v = self.obj.get(key)
        if v is None:
            return fallback
        if not isinstance(v, bool):
            raise bad('"%s" must be true or false' % key)
        return v

    def string(self, key, fallback=MISSING):
        v = self.get(key, fallback)
        if v is None:
            return fallback
        if not isinstance(v, str):
            raise bad('"%s" must be a string' % key)
        return v

    def array(self, key, max_len, what):
        v = self.get(key, MISSING)
        if not isinstance(v, list):
            raise bad('"%s" must be an array of %s' % (key, what))
        if len(v) > max_len:
            raise bad('"%s" has %d entries, more than the limit %d' % (key, len(v), max_len))
        return v

    def integers(self, key, max_len):
        out = []
        for e in self.array(key, max_len, "integers"):
            i = as_integer(e) if is_number(e) else None
            if i is None:
                raise bad('"%s" must contain only integers' % key)
            out.append(i)
        return out

    def numbers(self, key, max_len):
        out = []
        for e in self.array(key, max_len, "numbers"):
            if not is_number(e):
                raise bad('"%s" must contain only numbers' % key)
            if not math.isfinite(e):
                raise bad('"%s" must contain only finite numbers' % key)
            out.append(float(e))
        return out


# ---- config.json as transformers reads it, and its RoPE (modeling_rope_utils, in float64) ---------------------------
ATTRIBUTE_MAP = {"hidden_size": ["n_embd", "dim"], "num_attention_heads": ["n_head", "n_heads"],
                 "max_position_embeddings": ["n_positions"]}
LEARNED = {"gpt2", "gpt_bigcode", "bert", "roberta", "distilbert", "opt"}


def get(cfg, key, default=None):
    if cfg.get(key) is not None:
        return cfg[key]
    for alias in ATTRIBUTE_MAP.get(key, []):
        if cfg.get(alias) is not None:
            return cfg[alias]
    return default


def legacy_spelling(cfg):
    """A config written by transformers 5 (rope_parameters) in the spelling before it: rope_theta, rope_scaling and
    partial_rotary_factor at the top level; by layer type (Gemma 3), full_attention's and rope_local_base_freq."""
    out = {k: v for k, v in cfg.items() if k != "rope_parameters"}
    rp = cfg.get("rope_parameters")
    if rp is None:
        return out
    if "full_attention" in rp or "sliding_attention" in rp:
        sliding = rp.get("sliding_attention") or {}
        if "rope_theta" in sliding:
            out["rope_local_base_freq"] = sliding["rope_theta"]
        rp = rp.get("full_attention") or {}
    rp = dict(rp)
    for key in ("rope_theta", "partial_rotary_factor"):
        if key in rp:
            out[key] = rp.pop(key)
    if rp and rp != {"rope_type": "default"}:
        out["rope_scaling"] = rp
    return out


def rotary_dim_of(cfg):
    head_dim = get(cfg, "head_dim") or get(cfg, "hidden_size") // get(cfg, "num_attention_heads")
    frac = get(cfg, "partial_rotary_factor", get(cfg, "rotary_pct"))
    if frac is not None:
        return head_dim, int(head_dim * frac)
    if get(cfg, "rotary_dim") is not None:
        return head_dim, get(cfg, "rotary_dim")
    if get(cfg, "qk_rope_head_dim") is not None:
        return head_dim, get(cfg, "qk_rope_head_dim")
    return head_dim, head_dim


def base_of(cfg):
    return float(get(cfg, "rope_theta", get(cfg, "rotary_emb_base", 10000.0)))


def default_inv_freq(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))


def rope_type_of(cfg):
    rs = cfg.get("rope_scaling") or {}
    rope_type = rs.get("rope_type", rs.get("type", "default"))
    return {"su": "longrope", "mrope": "default"}.get(rope_type, rope_type)  # mrope: Qwen2-VL's config maps it


def ref_rope(cfg, seq_len=None):
    """(head_dim, rotary_dims, base, rope_type, inv_freq, attention_factor) for a config in the legacy spelling."""
    head_dim, dim = rotary_dim_of(cfg)
    base = base_of(cfg)
    rs = cfg.get("rope_scaling") or {}
    rope_type = rope_type_of(cfg)
    max_pos = get(cfg, "max_position_embeddings")
    attention = 1.0
    if rope_type == "default":
        inv = default_inv_freq(base, dim)
    elif rope_type == "linear":
        inv = default_inv_freq(base, dim) / rs["factor"]
    elif rope_type == "dynamic":  # _compute_dynamic_ntk_parameters
        factor = rs["factor"]
        L = seq_len if seq_len is not None and seq_len > max_pos else max_pos
        base = base * ((factor * L / max_pos) - (factor - 1)) ** (dim / (dim - 2))
        inv = default_inv_freq(base, dim)
    elif rope_type == "yarn":  # _compute_yarn_parameters (factor as given)
        factor = rs["factor"]
        orig = rs.get("original_max_position_embeddings") or max_pos

        def get_mscale(scale, mscale=1):
            return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0

        attention = rs.get("attention_factor")
        mscale, mscale_all_dim = rs.get("mscale"), rs.get("mscale_all_dim")
        if attention is None:
            if mscale and mscale_all_dim:
                attention = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
            else:
                attention = get_mscale(factor)
        beta_fast = rs.get("beta_fast") or 32
        beta_slow = rs.get("beta_slow") or 1

        def corr_dim(n_rot):
            return (dim * math.log(orig / (n_rot * 2 * math.pi))) / (2 * math.log(base))

        low, high = corr_dim(beta_fast), corr_dim(beta_slow)
        if rs.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        if low == high:
            high += 0.001
        ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low), 0, 1)
        pos_freqs = base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
        extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
        extra_factor = 1 - ramp
        inv = inter * (1 - extra_factor) + extra * extra_factor
    elif rope_type == "longrope":  # _compute_longrope_parameters, as the contract states it
        orig = get(cfg, "original_max_position_embeddings") or rs.get("original_max_position_embeddings") or max_pos
        s = max_pos / orig
        attention = rs.get("attention_factor")
        if attention is None:
            attention = 1.0 if s <= 1.0 else math.sqrt(1 + math.log(s) / math.log(orig))
        ext = torch.tensor(rs["long_factor"] if seq_len and seq_len > orig else rs["short_factor"],
                           dtype=torch.float64)
        inv = 1.0 / (ext * base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))
    elif rope_type == "llama3":  # _compute_llama3_parameters
        inv = default_inv_freq(base, dim)
        factor, lo, hi = rs["factor"], rs.get("low_freq_factor", 1.0), rs.get("high_freq_factor", 4.0)
        old = rs["original_max_position_embeddings"]
        lo_wl, hi_wl = old / lo, old / hi
        wavelen = 2 * math.pi / inv
        inv_l = torch.where(wavelen > lo_wl, inv / factor, inv)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
        medium = ~(wavelen < hi_wl) * ~(wavelen > lo_wl)
        inv = torch.where(medium, smoothed, inv_l)
    else:
        raise ValueError(rope_type)
    return head_dim, dim, base_of(cfg), rope_type, inv, attention


def type_word(v):
    if v is None:
        return "null"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, bool):
        return "a boolean"
    return "an array" if isinstance(v, list) else "an object" if isinstance(v, dict) else "a number"


def scaling_fields(rs, key):
    """A rope_scaling object's fields of the wrong kind, refused as the CLI's config reader names them ("KEY.factor
    must be a number, got a string")."""
    for name, v in ((n, rs.get(n)) for n in SCALING_FIELDS):
        if v is None:
            continue
        kind = SCALING_FIELDS[name]
        if kind == "number" and (v in ("NaN", "Infinity", "-Infinity") or is_number(v) and not math.isfinite(v)):
            raise bad("%s.%s must be a finite number, got %s" % (key, name, v if isinstance(v, str) else (
                "NaN" if math.isnan(v) else "Infinity" if v > 0 else "-Infinity")))
        ok = {"string": isinstance(v, str), "number": is_number(v), "boolean": isinstance(v, bool),
              "numbers": isinstance(v, list)}[kind]
        if not ok:
            must = {"string": "must be a string", "number": "must be a number", "boolean": "must be true or false",
                    "numbers": "must be an array of numbers"}[kind]
            raise bad("%s.%s %s, got %s" % (key, name, must, type_word(v)))
        wrong = [e for e in v if not is_number(e)] if kind == "numbers" else []
        if wrong:
            raise bad("%s.%s must contain only numbers, got %s" % (key, name, type_word(wrong[0])))
        if kind == "numbers" and not all(math.isfinite(e) for e in v):
            raise bad("%s.%s must contain only finite numbers" % (key, name))


SCALING_FIELDS = {"rope_type": "string", "type": "string", "factor": "number",
                  "original_max_position_embeddings": "number", "beta_fast": "number", "beta_slow": "number",
                  "attention_factor": "number", "mscale": "number", "mscale_all_dim": "number",
                  "low_freq_factor": "number", "high_freq_factor": "number", "truncate": "boolean",
                  "short_factor": "numbers", "long_factor": "numbers"}


def check_rope(cfg, key):
    """The CLI's refusals of a rope it cannot derive (key: "rope_scaling" or "rope_parameters", as spelt), each
    "config: ..."; then ref_rope's own failures as BadRequest."""
    rs = cfg.get("rope_scaling") or {}
    if not isinstance(rs, dict):
        raise bad('config: "%s" must be an object' % key)
    field = key + (".rope_type" if "rope_type" in rs else ".type")
    name = rs.get("rope_type", rs.get("type"))
    if name is not None and name not in ("default", "linear", "dynamic", "yarn", "longrope", "su", "llama3", "mrope"):
        raise bad('config: %s "%s" is not one of default, linear, dynamic, yarn, longrope (su), llama3' % (field, name))
    kind = rope_type_of(cfg)
    for f in ("factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "low_freq_factor",
              "high_freq_factor"):
        v = rs.get(f)
        if v is not None and not v > 0:
            raise bad("config: %s.%s must be a finite number > 0, got %s" % (key, f, format_number(v)))
    if rs.get("attention_factor") is not None and not rs["attention_factor"] >= 0:
        raise bad("config: %s.attention_factor must be a finite number >= 0, got %s" % (
            key, format_number(rs["attention_factor"])))
    if kind in ("linear", "dynamic", "yarn", "llama3") and rs.get("factor") is None:
        raise bad("config: missing %s.factor (needed by rope_type %s)" % (key, kind))
    max_pos = get(cfg, "max_position_embeddings")
    if kind in ("dynamic", "longrope") or (kind == "yarn" and not rs.get("original_max_position_embeddings")):
        if not max_pos:
            raise bad("config: missing max_position_embeddings (or n_positions): needed by rope_type %s" % kind)
    if kind == "llama3":
        if not rs.get("original_max_position_embeddings"):
            raise bad("config: missing %s.original_max_position_embeddings (needed by rope_type llama3)" % key)
        if not rs.get("high_freq_factor", 4.0) > rs.get("low_freq_factor", 1.0):
            raise bad("config: %s.high_freq_factor must be greater than %s.low_freq_factor" % (key, key))
    try:
        heads = get(cfg, "num_attention_heads")
        if not heads:
            raise bad("config: missing num_attention_heads (or n_head): needed for head_dim = hidden_size / heads")
        half = rotary_dim_of(cfg)[1] // 2
        if kind == "dynamic" and half < 2:
            raise bad("config: rope_type dynamic needs rotary dims >= 4 (exponent r/(r-2))")
        if kind == "longrope":
            for f in ("short_factor", "long_factor"):
                if not isinstance(rs.get(f), list):
                    raise bad("config: missing %s.%s (longrope needs short_factor and long_factor)" % (key, f))
                if len(rs[f]) != half:
                    raise bad("config: %s.%s must have rotary_dims/2 = %d entries, got %d" % (key, f, half,
                                                                                             len(rs[f])))
        inv, att = ref_rope(cfg)[4:]
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
        raise bad("config: %s" % e)
    if not (bool(torch.isfinite(inv).all()) and bool((inv > 0).all()) and math.isfinite(att)):
        raise bad("config: %s.factor makes the scaled frequencies or the attention factor non-finite" % key)


# ---- Checkpoints: safetensors files and shards ----------------------------------------------------------------------
class Weights(dict):
    """{name: tensor}; a missing name is the CLI's refusal naming it."""

    def __missing__(self, name):
        raise bad('the checkpoint holds no tensor "%s"' % name)


def load_safetensors(path, dtype=None, device="cpu", into=None):
    """{name: tensor in dtype (float64 by default)} of one .safetensors file: F32, F64, F16 and BF16 (its 16 bits as a
    float32's top half), widened exactly; read a tensor at a time."""
    dtype = torch.float64 if dtype is None else dtype
    stored = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16}
    out = Weights() if into is None else into
    try:
        f = open(path, "rb")
    except OSError as e:
        raise RequestError("IOError", "cannot open %s (%s)" % (path, e.strerror))
    with f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(8)
        n = struct.unpack("<Q", head)[0] if len(head) == 8 else -1
        try:
            if not 0 < n <= size - 8:
                raise ValueError("its header length is %d" % n)
            header = json.loads(f.read(n))
        except ValueError as e:
            raise bad("%s is not a safetensors file (%s)" % (path, e))
        for name, t in header.items():
            if name == "__metadata__":
                continue
            if t.get("dtype") not in ("F32", "F64", "F16", "BF16"):
                raise bad('tensor "%s" in %s is %s: the script reads F32, F64, F16 and BF16' % (name, path,
                                                                                            t.get("dtype")))
            lo, hi = t["data_offsets"]
            f.seek(8 + n + lo)
            raw = bytearray(f.read(hi - lo))
            if len(raw) != hi - lo:
                raise RequestError("IOError", "cannot read %s: tensor \"%s\" runs past its end" % (path, name))
            if not raw:
                x = torch.zeros(t["shape"], dtype=dtype)
            elif t["dtype"] == "BF16":
                x = (torch.frombuffer(raw, dtype=torch.int16).to(torch.int32) << 16).view(torch.float32)
            else:
                x = torch.frombuffer(raw, dtype=stored[t["dtype"]])
            out[name] = x.to(dtype).reshape(t["shape"]).to(device)
    return out


class Model:
    """A checkpoint folder, loaded: W (its tensors in dtype on device), cfg (config.json in the legacy spelling) and
    the name its rope is spelt under ("rope_parameters" for transformers 5's configs, else "rope_scaling")."""

    def __init__(self, W, cfg, scaling_key):
        self.W, self.cfg, self.scaling_key = W, cfg, scaling_key


def load_model(path, dtype, device):
    """--model: a folder with config.json and model.safetensors (else model.safetensors.index.json and its shards),
    or one of those files with config.json beside it."""
    if os.path.isdir(path):
        folder = path
        found = [n for n in ("model.safetensors", "model.safetensors.index.json")
                 if os.path.isfile(os.path.join(path, n))]
        if not found:
            raise bad("--model: the folder %s holds neither model.safetensors nor model.safetensors.index.json" % path)
        weights = os.path.join(path, found[0])
    elif os.path.isfile(path):
        folder, weights = os.path.dirname(path) or ".", path
    else:
        raise RequestError("IOError", "--model: cannot open %s (no such folder)" % path)
    config = os.path.join(folder, "config.json")
    if not os.path.isfile(config):
        raise bad("--model: there is no config.json in %s (the model's config)" % folder)
    try:
        with open(config, encoding="utf-8") as f:
            raw = json.load(f)
    except OSError as e:
        raise RequestError("IOError", "config.json: cannot read %s (%s)" % (config, e.strerror))
    except ValueError as e:
        raise bad("config.json beside the checkpoint: %s is not JSON (%s)" % (config, e))
    if not isinstance(raw, dict):
        raise bad("config.json beside the checkpoint: %s is not a JSON object" % config)
    key = "rope_parameters" if "rope_parameters" in raw and "rope_scaling" not in raw else "rope_scaling"
    if isinstance(raw.get(key), dict):
        try:
            scaling_fields(raw[key], key)
        except RequestError as e:
            raise bad("config.json beside the checkpoint: %s" % e.message)
    if weights.endswith(".json"):
        W = Weights()
        for shard in index_shards(weights):
            load_safetensors(os.path.join(os.path.dirname(weights), shard), dtype, device, W)
    else:
        W = load_safetensors(weights, dtype, device)
    return Model(W, legacy_spelling(raw), key)


def index_shards(path):
    """The shard files a model.safetensors.index.json's weight_map names, sorted."""
    try:
        with open(path, encoding="utf-8") as f:
            return sorted(set(json.load(f)["weight_map"].values()))
    except (OSError, ValueError, KeyError, AttributeError, TypeError) as e:
        raise bad("%s is not a safetensors index (a \"weight_map\" of shard files): %s" % (path, e))


def resolve_model(path):
    """--model as a local path: itself where it exists or is no Hub repo id (owner/name[@revision]); else the Hub
    snapshot folder huggingface_hub downloads HUB_FILES (and the index's shards, when the repo is sharded) into."""
    hub = None if os.path.exists(path) else HUB_ID.match(path)
    if not hub:
        return path
    repo, revision = hub.groups()
    try:
        from huggingface_hub import snapshot_download
    except ImportError as e:
        raise bad("--model %s: no such folder here, and a Hugging Face Hub repo id needs the Python package "
                  "huggingface_hub (pip install huggingface_hub), which is not importable here (%s)" % (path, e))
    try:
        folder = snapshot_download(repo, revision=revision, allow_patterns=HUB_FILES)
        index = os.path.join(folder, "model.safetensors.index.json")
        if not os.path.isfile(os.path.join(folder, "model.safetensors")) and os.path.isfile(index):
            folder = snapshot_download(repo, revision=revision, allow_patterns=HUB_FILES + index_shards(index))
    except RequestError:
        raise
    except Exception as e:  # noqa: BLE001 (huggingface_hub's own errors: no such repo or revision, no network)
        raise RequestError("IOError", "--model %s: no such folder here, and the Hugging Face Hub repo could not be "
                           "downloaded (%s: %s)" % (path, type(e).__name__, e))
    print("ropeviz_run.py: --model %s is the Hub snapshot %s" % (path, folder), file=sys.stderr)
    return folder


# ---- The forward pass, as transformers' *ForCausalLM eager forward ---------------------------------------------------
class Record:
    """What a pass keeps beside the NLL, each when asked: per layer the attention probabilities [H, T, T], the mean
    probability by distance [H, T] and on position 0 (the sink) [H] (float64), the hidden states (the embeddings, each
    layer's output, the last after the final norm: [L+1] of [T, d]), and the RMS over tokens of each rotated pair's
    norm in q [H, r/2] and k [Hk, r/2] before the rotation."""

    def __init__(self, probs=False, by_distance=False, sink=False, hidden=False, pairs=False):
        self.keep_probs, self.keep_by_distance, self.keep_sink = probs, by_distance, sink
        self.keep_hidden, self.keep_pairs = hidden, pairs
        self.probs, self.by_distance, self.sink, self.hidden, self.q_pairs, self.k_pairs = [], [], [], [], [], []

    def layer_output(self, x):
        if self.keep_hidden:
            self.hidden.append(x)

    def final(self, x):  # hidden_states ends with the final norm's output
        if self.keep_hidden:
            self.hidden[-1] = x


FAMILY_DEFAULT_EPS = {"mixtral": 1e-5, "olmo2": 1e-5, "phi3": 1e-5}  # RMS families; the rest 1e-6 (LayerNorm: 1e-5)
FAMILY_DEFAULT_ACT = {"gemma": "gelu_pytorch_tanh", "gemma2": "gelu_pytorch_tanh", "phi": "gelu_new",
                      "starcoder2": "gelu_pytorch_tanh", "gpt_neox": "gelu", "gptj": "gelu_new", "gpt2": "gelu_new",
                      "opt": "relu"}
LAYER_NORM = {"phi", "stablelm", "starcoder2", "gpt_neox", "gptj", "gpt2", "opt"}
EMBED = {"gpt_neox": "gpt_neox.embed_in.weight", "gptj": "transformer.wte.weight", "gpt2": "transformer.wte.weight",
         "opt": "model.decoder.embed_tokens.weight"}  # the others: model.embed_tokens.weight
HEAD = {"gpt_neox": "embed_out"}  # the others: lm_head (tied to the embeddings where the checkpoint has none)
LEARNED_TABLE = {"gpt2": ("transformer.wpe.weight", 0), "opt": ("model.decoder.embed_positions.weight", 2)}


def layer_probe(mt):
    """A tensor every layer l of the family holds (its query projection), with %d for l."""
    return {"gpt_neox": "gpt_neox.layers.%d.attention.query_key_value.weight",
            "gptj": "transformer.h.%d.attn.q_proj.weight", "gpt2": "transformer.h.%d.attn.c_attn.weight",
            "opt": "model.decoder.layers.%d.self_attn.q_proj.weight",
            "phi3": "model.layers.%d.self_attn.qkv_proj.weight"}.get(mt, "model.layers.%d.self_attn.q_proj.weight")


def embed_name(mt):
    return EMBED.get(mt, "model.embed_tokens.weight")


def activation_name(cfg, mt):
    """The first of hidden_activation (Gemma's own), hidden_act, activation_function; else the family's."""
    for key in ("hidden_activation", "hidden_act", "activation_function"):
        if cfg.get(key):
            return cfg[key]
    return FAMILY_DEFAULT_ACT.get(mt, "silu")


def norm_eps(cfg, mt):
    if mt in LAYER_NORM:
        for key in ("layer_norm_eps", "layer_norm_epsilon", "norm_epsilon"):
            if cfg.get(key) is not None:
                return cfg[key]
        return 1e-5
    return cfg.get("rms_norm_eps") or FAMILY_DEFAULT_EPS.get(mt, 1e-6)


def rms(x, w, eps, plus_one=False):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y * (1.0 + w) if plus_one else y * w


def act(name):
    if name in ("silu", "swish"):
        return F.silu
    if name in ("gelu_pytorch_tanh", "gelu_new", "gelu_fast"):
        return lambda x: F.gelu(x, approximate="tanh")
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise bad('config: hidden_act "%s" is not one the forward pass runs (silu, gelu, gelu_new, gelu_pytorch_tanh, '
              'relu)' % name)


def rotate(x, cos, sin, rotary, interleaved=False):
    """x [T, heads, hd]: the first `rotary` dims of each head turned by cos/sin [T, rotary/2]."""
    r, rest = x[..., :rotary], x[..., rotary:]
    c, s = cos[:, None, :], sin[:, None, :]
    if interleaved:
        x1, x2 = r[..., 0::2], r[..., 1::2]
        out = torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).flatten(-2)
    else:
        x1, x2 = r[..., :rotary // 2], r[..., rotary // 2:]
        out = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)
    return torch.cat((out, rest), dim=-1)


def rope_qk(q, k, rope, rec):
    """q and k rotated by rope = (cos, sin, rotary, interleaved) (cos None: "rope": "drop", nothing turns); their
    pairs' norms recorded first, when asked. Learned-position models have rope None."""
    if rope is None:
        return q, k
    cos, sin, rotary, interleaved = rope
    if rec.keep_pairs:
        for store, m in ((rec.q_pairs, q), (rec.k_pairs, k)):  # RMS over tokens of each pair's norm
            r = m[..., :rotary]
            a1, a2 = (r[..., 0::2], r[..., 1::2]) if interleaved else (r[..., :rotary // 2], r[..., rotary // 2:])
            store.append((a1 ** 2 + a2 ** 2).mean(0).sqrt())
    if cos is None:
        return q, k
    return rotate(q, cos, sin, rotary, interleaved), rotate(k, cos, sin, rotary, interleaved)


def attention(q, k, v, scale, rec, window=0, softcap=0.0):
    """q [T, H, hd], k and v [T, Hk, hd]: causal softmax attention (keys within the last `window` positions when
    window > 0; Gemma 2's soft cap), in blocks of query rows; output [T, H*hd]. What rec asks of the probabilities
    is kept: all of them [H, T, T], by distance [H, T] (the mean over queries t >= r at r = t - s), the sink [H]."""
    T, H, hd = q.shape
    group = H // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    dev = q.device
    cols = torch.arange(T, device=dev)
    rows = max(1, min(T, SCORE_BLOCK // (H * T)))
    out, probs = [], []
    by_distance = torch.zeros(H, T, dtype=torch.float64, device=dev) if rec.keep_by_distance else None
    sink = torch.zeros(H, dtype=torch.float64, device=dev) if rec.keep_sink else None
    for t0 in range(0, T, rows):
        t1 = min(T, t0 + rows)
        scores = torch.einsum("thd,shd->hts", q[t0:t1], k[:t1]) * scale
        if softcap:
            scores = torch.tanh(scores / softcap) * softcap
        ts = torch.arange(t0, t1, device=dev)[:, None]
        mask = cols[None, :t1] > ts
        if window:
            mask |= cols[None, :t1] <= ts - window
        p = scores.masked_fill(mask, -math.inf).softmax(-1)  # [H, rows, keys]
        out.append(torch.einsum("hts,shd->thd", p, v[:t1]))
        if rec.keep_probs:
            probs.append(F.pad(p, (0, T - t1)))
        if by_distance is not None:  # masked entries are 0 and land on distance 0
            at = (ts - cols[None, :t1]).clamp(min=0).reshape(1, -1).expand(H, -1)
            by_distance.scatter_add_(1, at, p.reshape(H, -1).to(torch.float64))
        if sink is not None:
            sink += p[:, max(0, 1 - t0):, 0].to(torch.float64).sum(-1)
    if rec.keep_probs:
        rec.probs.append(torch.cat(probs, dim=1))
    if by_distance is not None:
        rec.by_distance.append(by_distance / torch.arange(T, 0, -1, dtype=torch.float64, device=dev))
    if sink is not None:
        rec.sink.append(sink / (T - 1) if T > 1 else sink)
    return torch.cat(out).reshape(T, H * hd)


def count_layers(W, pattern):
    L = 0
    while pattern % L in W:
        L += 1
    return L


def token_ids(tokens, W, mt):
    return torch.tensor(tokens, dtype=torch.int64, device=W[embed_name(mt)].device)


def decoder(W, cfg, tokens, positions, rope, rec):
    """The model.layers.{l} families: llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, olmo2, phi3, phi,
    stablelm, starcoder2. The final norm's output [T, d]."""
    mt = cfg["model_type"]
    d, H = get(cfg, "hidden_size"), get(cfg, "num_attention_heads")
    Hk = cfg.get("num_key_value_heads") or H
    hd = cfg.get("head_dim") or d // H
    layer_norm = mt in LAYER_NORM
    eps = norm_eps(cfg, mt)
    gemma = mt in ("gemma", "gemma2")
    f = act(activation_name(cfg, mt))
    T = len(tokens)
    x = W["model.embed_tokens.weight"][token_ids(tokens, W, mt)]
    if gemma:
        x = x * math.sqrt(d)
    scale = (cfg.get("query_pre_attn_scalar") or 256) ** -0.5 if mt == "gemma2" else hd ** -0.5
    softcap = cfg.get("attn_logit_softcapping") or 0.0
    rec.layer_output(x)
    o_name = "self_attn.dense" if mt == "phi" else "self_attn.o_proj"
    for l in range(count_layers(W, layer_probe(mt))):
        p = "model.layers.%d." % l

        def lin(name, a):
            y = a @ W[p + name + ".weight"].T
            return y + W[p + name + ".bias"] if p + name + ".bias" in W else y

        def norm(name, a):
            if layer_norm:
                return F.layer_norm(a, (a.shape[-1],), W[p + name + ".weight"], W[p + name + ".bias"], eps)
            return rms(a, W[p + name + ".weight"], eps, gemma)
        a = x if mt == "olmo2" else norm("input_layernorm", x)
        if mt == "phi3":
            q, k, v = lin("self_attn.qkv_proj", a).split([H * hd, Hk * hd, Hk * hd], dim=-1)
        else:
            q, k, v = lin("self_attn.q_proj", a), lin("self_attn.k_proj", a), lin("self_attn.v_proj", a)
        if mt == "olmo2":  # over all heads, before the split
            q, k = rms(q, W[p + "self_attn.q_norm.weight"], eps), rms(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.reshape(T, H, hd), k.reshape(T, Hk, hd), v.reshape(T, Hk, hd)
        if mt == "qwen3":
            q, k = rms(q, W[p + "self_attn.q_norm.weight"], eps), rms(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k = rope_qk(q, k, rope, rec)
        types = cfg.get("layer_types")
        if types:
            sliding = l < len(types) and types[l] == "sliding_attention"
        else:  # Gemma 2 slides on every other layer from the first
            sliding = l % 2 == 0 if mt == "gemma2" else mt in ("mistral", "mixtral", "starcoder2", "phi3")
        o = attention(q, k, v, scale, rec, (cfg.get("sliding_window") or 0) if sliding else 0, softcap)
        attn = lin(o_name, o)
        if mt == "phi":  # parallel: attention and MLP of the same normed input
            x = attn + lin("mlp.fc2", f(lin("mlp.fc1", a))) + x
            rec.layer_output(x)
            continue
        if mt in ("olmo2", "gemma2"):
            attn = norm("post_attention_layernorm", attn)
        x = x + attn
        a = x if mt == "olmo2" else norm("pre_feedforward_layernorm" if mt == "gemma2" else "post_attention_layernorm",
                                         x)
        if mt == "mixtral":
            m = moe(W, p, a, cfg["num_experts_per_tok"], f)
        elif mt == "phi3":
            g, u = lin("mlp.gate_up_proj", a).chunk(2, dim=-1)
            m = lin("mlp.down_proj", f(g) * u)
        elif mt == "starcoder2":
            m = lin("mlp.c_proj", f(lin("mlp.c_fc", a)))
        else:
            m = lin("mlp.down_proj", f(lin("mlp.gate_proj", a)) * lin("mlp.up_proj", a))
        if mt in ("olmo2", "gemma2"):
            m = norm("post_feedforward_layernorm", m)
        x = x + m
        rec.layer_output(x)
    if mt == "phi":
        x = F.layer_norm(x, (d,), W["model.final_layernorm.weight"], W["model.final_layernorm.bias"], eps)
    elif layer_norm:
        x = F.layer_norm(x, (d,), W["model.norm.weight"], W["model.norm.bias"], eps)
    else:
        x = rms(x, W["model.norm.weight"], eps, gemma)
    return x


def moe(W, p, a, top_k, f):
    """MixtralSparseMoeBlock: softmax router, top-k renormalised, experts added in index order."""
    router = (a @ W[p + "block_sparse_moe.gate.weight"].T).softmax(-1)
    weights, chosen = router.topk(top_k, dim=-1)
    weights = weights / weights.sum(-1, keepdim=True)
    out = torch.zeros_like(a)
    for e in range(W[p + "block_sparse_moe.gate.weight"].shape[0]):
        e_p = p + "block_sparse_moe.experts.%d." % e
        hit = chosen == e  # [T, top_k]: each token routes to an expert once at most
        rows = hit.any(-1).nonzero()[:, 0]
        if len(rows):
            y = (f(a[rows] @ W[e_p + "w1.weight"].T) * (a[rows] @ W[e_p + "w3.weight"].T)) @ W[e_p + "w2.weight"].T
            out[rows] += (weights * hit)[rows].sum(-1, keepdim=True) * y
    return out


def neox(W, cfg, tokens, positions, rope, rec):
    d, H = get(cfg, "hidden_size"), get(cfg, "num_attention_heads")
    hd, eps, T = d // H, norm_eps(cfg, "gpt_neox"), len(tokens)
    f = act(activation_name(cfg, "gpt_neox"))
    x = W["gpt_neox.embed_in.weight"][token_ids(tokens, W, "gpt_neox")]
    rec.layer_output(x)
    for l in range(count_layers(W, layer_probe("gpt_neox"))):
        p = "gpt_neox.layers.%d." % l

        def lin(name, a):
            return a @ W[p + name + ".weight"].T + W[p + name + ".bias"]

        def ln(name, a):
            return F.layer_norm(a, (d,), W[p + name + ".weight"], W[p + name + ".bias"], eps)
        q, k, v = lin("attention.query_key_value", ln("input_layernorm", x)).reshape(T, H, 3 * hd).chunk(3, dim=-1)
        q, k = rope_qk(q, k, rope, rec)
        attn = lin("attention.dense", attention(q, k, v, hd ** -0.5, rec))
        if cfg.get("use_parallel_residual", True):
            x = lin("mlp.dense_4h_to_h", f(lin("mlp.dense_h_to_4h", ln("post_attention_layernorm", x)))) + attn + x
        else:
            x = x + attn
            x = x + lin("mlp.dense_4h_to_h", f(lin("mlp.dense_h_to_4h", ln("post_attention_layernorm", x))))
        rec.layer_output(x)
    return F.layer_norm(x, (d,), W["gpt_neox.final_layer_norm.weight"], W["gpt_neox.final_layer_norm.bias"], eps)


def gptj(W, cfg, tokens, positions, rope, rec):
    d, H = get(cfg, "hidden_size"), get(cfg, "num_attention_heads")
    hd, eps, T = d // H, norm_eps(cfg, "gptj"), len(tokens)
    f = act(activation_name(cfg, "gptj"))
    x = W["transformer.wte.weight"][token_ids(tokens, W, "gptj")]
    rec.layer_output(x)
    for l in range(count_layers(W, layer_probe("gptj"))):
        p = "transformer.h.%d." % l
        a = F.layer_norm(x, (d,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        q, k, v = ((a @ W[p + "attn.%s_proj.weight" % n].T).reshape(T, H, hd) for n in "qkv")
        q, k = rope_qk(q, k, rope, rec)
        o = attention(q, k, v, hd ** -0.5, rec)
        mlp = (f(a @ W[p + "mlp.fc_in.weight"].T + W[p + "mlp.fc_in.bias"]) @ W[p + "mlp.fc_out.weight"].T +
               W[p + "mlp.fc_out.bias"])
        x = o @ W[p + "attn.out_proj.weight"].T + mlp + x
        rec.layer_output(x)
    return F.layer_norm(x, (d,), W["transformer.ln_f.weight"], W["transformer.ln_f.bias"], eps)


def learned_rows(W, mt, positions):
    """The learned table's rows at the positions (OPT's start two rows in): PyTorch's IndexError past its end."""
    name, offset = LEARNED_TABLE[mt]
    table = W[name]
    for pos in positions:
        if pos + offset >= table.shape[0]:
            raise index_error(pos + offset, table.shape[0])
    return table[torch.tensor([pos + offset for pos in positions], device=table.device)]


def opt(W, cfg, tokens, positions, rope, rec):
    d, H = get(cfg, "hidden_size"), get(cfg, "num_attention_heads")
    hd, eps, T = d // H, norm_eps(cfg, "opt"), len(tokens)
    f = act(activation_name(cfg, "opt"))
    x = W["model.decoder.embed_tokens.weight"][token_ids(tokens, W, "opt")] + learned_rows(W, "opt", positions)
    rec.layer_output(x)
    for l in range(count_layers(W, layer_probe("opt"))):
        p = "model.decoder.layers.%d." % l

        def lin(name, a):
            return a @ W[p + name + ".weight"].T + W[p + name + ".bias"]

        def ln(name, a):
            return F.layer_norm(a, (d,), W[p + name + ".weight"], W[p + name + ".bias"], eps)
        a = ln("self_attn_layer_norm", x)
        q, k, v = (lin("self_attn.%s_proj" % n, a).reshape(T, H, hd) for n in "qkv")
        x = x + lin("self_attn.out_proj", attention(q, k, v, hd ** -0.5, rec))
        x = x + lin("fc2", f(lin("fc1", ln("final_layer_norm", x))))
        rec.layer_output(x)
    return F.layer_norm(x, (d,), W["model.decoder.final_layer_norm.weight"], W["model.decoder.final_layer_norm.bias"],
                        eps)


def gpt2(W, cfg, tokens, positions, rope, rec):
    d, H = get(cfg, "hidden_size"), get(cfg, "num_attention_heads")
    hd, eps = d // H, norm_eps(cfg, "gpt2")
    f = act(activation_name(cfg, "gpt2"))
    x = W["transformer.wte.weight"][token_ids(tokens, W, "gpt2")] + learned_rows(W, "gpt2", positions)
    rec.layer_output(x)

    def ln(a, name):
        return F.layer_norm(a, (d,), W[name + ".weight"], W[name + ".bias"], eps)

    def conv(a, name):  # Conv1D: weights [in, out]
        return a @ W[name + ".weight"] + W[name + ".bias"]
    for l in range(count_layers(W, layer_probe("gpt2"))):
        p = "transformer.h.%d." % l
        qkv = conv(ln(x, p + "ln_1"), p + "attn.c_attn")
        q, k, v = (t.reshape(len(tokens), H, hd) for t in qkv.split(d, dim=-1))
        x = x + conv(attention(q, k, v, hd ** -0.5, rec), p + "attn.c_proj")
        x = x + conv(f(conv(ln(x, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
        rec.layer_output(x)
    return ln(x, "transformer.ln_f")


def pass_rope(cfg, positions, rope_scaling, drop, dtype, device):
    """(cos, sin, rotary, interleaved) at the positions for the config's rope ("config"), none ("none") or a
    rope_scaling dict in its place, derived at seq_len = the largest position + 1; cos and sin None with drop."""
    c = dict(cfg)
    if rope_scaling == "none":
        c.pop("rope_scaling", None)
    elif rope_scaling != "config":
        c["rope_scaling"] = rope_scaling
    _, rotary, _, _, inv, att = ref_rope(c, max(positions) + 1)
    if drop:
        return None, None, rotary, cfg["model_type"] == "gptj"
    angle = torch.tensor(positions, dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = ((t * att).to(dtype=dtype, device=device) for t in (angle.cos(), angle.sin()))
    return cos, sin, rotary, cfg["model_type"] == "gptj"


def forward(W, cfg, tokens, positions=None, rope_scaling="config", drop=False, rec=None, head_from=0,
            keep_logits=True):
    """(nll [T-1-head_from], logits [T-head_from, V] (None unless keep_logits), rec) for the rows from head_from on,
    in W's dtype. cfg in the legacy spelling; rope_scaling: "config", "none" or a rope_scaling dict; drop: no rotation
    (pair norms are still recorded); rec: what else to keep (Record)."""
    positions = list(range(len(tokens))) if positions is None else positions
    rec = Record() if rec is None else rec
    mt = cfg["model_type"]
    embed = W[embed_name(mt)]
    if mt in LEARNED_TABLE:
        x = (gpt2 if mt == "gpt2" else opt)(W, cfg, tokens, positions, None, rec)
    else:
        rope = pass_rope(cfg, positions, rope_scaling, drop, embed.dtype, embed.device)
        x = {"gpt_neox": neox, "gptj": gptj}.get(mt, decoder)(W, cfg, tokens, positions, rope, rec)
    rec.final(x)
    head = W.get(HEAD.get(mt, "lm_head") + ".weight", embed)
    bias = W.get(HEAD.get(mt, "lm_head") + ".bias")
    cap = cfg.get("final_logit_softcapping")
    target = token_ids(tokens, W, mt)
    rows = max(1, HEAD_BLOCK // head.shape[0])
    nll, kept = [], []
    for r0 in range(head_from, len(tokens), rows):  # the head a block of rows at a time
        logits = x[r0:r0 + rows] @ head.T
        if bias is not None:
            logits = logits + bias
        if cap:
            logits = torch.tanh(logits / cap) * cap
        n = min(len(logits), len(tokens) - 1 - r0)
        nll.append(torch.logsumexp(logits[:n], -1) - logits[:n].gather(1, target[r0 + 1:r0 + 1 + n, None])[:, 0])
        if keep_logits:
            kept.append(logits)
    nll = torch.cat(nll) if nll else x.new_zeros(0)
    return nll, (torch.cat(kept) if kept else x.new_zeros(0, head.shape[0])) if keep_logits else None, rec


# ---- The forward op -----------------------------------------------------------------------------------------------
def family_of(cfg):
    mt = cfg.get("model_type") or ""
    if mt not in RUNS:
        raise bad('forward does not run model_type "%s" (it runs %s)' % (mt, ", ".join(RUNS)))
    return mt


def model_shape(model):
    """(vocab, d, layers, heads) after the CLI's checks of the family, the embedding and the config's sizes."""
    cfg, W = model.cfg, model.W
    mt = family_of(cfg)
    embed = W[embed_name(mt)]
    if embed.dim() != 2:
        raise bad('tensor "%s" is not a matrix' % embed_name(mt))
    vocab, d = embed.shape
    if get(cfg, "hidden_size") is not None and get(cfg, "hidden_size") != d:
        raise bad('config: hidden_size %d, but "%s" is %d wide' % (get(cfg, "hidden_size"), embed_name(mt), d))
    heads = get(cfg, "num_attention_heads")
    if not heads:
        raise bad("config: missing num_attention_heads (the family needs it)")
    kv = cfg.get("num_key_value_heads") or heads
    if kv < 1 or heads % kv:
        raise bad("config: num_key_value_heads %d does not divide %d heads" % (kv, heads))
    act(activation_name(cfg, mt))  # refuses one the pass does not run
    layers = count_layers(W, layer_probe(mt))
    if not layers:
        raise bad('the checkpoint holds no tensor "%s"' % (layer_probe(mt) % 0))
    return vocab, d, layers, heads


def check_pass(model, tokens, positions, rope_scaling, pairs):
    """The CLI forward pass's refusals, in its order: the family, the positions, pair norms of a learned table, the
    rope, the sizes, a token past the vocabulary, Mixtral's top-k, a position past a learned table. The positions."""
    cfg, W = model.cfg, model.W
    mt = family_of(cfg)
    T = len(tokens)
    if T < 1:
        raise bad('"tokens" must hold at least one token')
    if T > MAX_TOKENS:
        raise bad("a pass takes at most %d tokens, got %d" % (MAX_TOKENS, T))
    if positions is not None and len(positions) != T:
        raise bad('"positions" has %d entries for %d tokens' % (len(positions), T))
    positions = list(range(T)) if positions is None else positions
    for p in positions:
        if p < 0 or p > MAX_POSITION:
            raise bad("positions must be integers in [0, 2^40], got %d" % p)
    if pairs and mt in LEARNED_TABLE:
        raise bad('"qk_pair_norms" are the rotated pairs of a RoPE model; model_type "%s" has a learned position '
                  'table' % mt)
    W[embed_name(mt)]  # noqa: B018 (refused by name when missing)
    if mt not in LEARNED_TABLE:
        c = dict(cfg)
        key = model.scaling_key
        if rope_scaling == "none":
            c.pop("rope_scaling", None)
        elif rope_scaling != "config":
            c["rope_scaling"], key = rope_scaling, "rope_scaling"
        check_rope(c, key)
    vocab = model_shape(model)[0]
    for t in tokens:
        if t < 0 or t >= vocab:
            raise index_error(t, vocab)
    if mt == "mixtral" and not cfg.get("num_experts_per_tok"):
        raise bad("config: missing num_experts_per_tok (mixtral routes each token to that many experts)")
    if mt in LEARNED_TABLE:
        learned_rows(W, mt, positions)
    return positions


def pass_options(fields):
    """(threads, rope_scaling: "config", "none" or a dict, drop) of a request, checked as the CLI checks them."""
    threads = fields.integer("threads", 1)
    rope = fields.string("rope", "apply")
    if not 1 <= threads <= 64:
        raise bad('"threads" must be in [1, 64], got %d' % threads)
    if rope not in ("apply", "drop"):
        raise bad('"rope" must be "apply" or "drop", got "%s"' % rope)
    scaling = "config"
    v = fields.obj.get("rope_scaling")
    if v is not None:
        if v == "none":
            scaling = "none"
        elif isinstance(v, dict):
            try:
                scaling_fields(v, "rope_scaling")
            except RequestError as e:
                raise bad('"rope_scaling": %s' % e.message)
            scaling = v
        else:
            raise bad('"rope_scaling": "rope_scaling" must be "none" or a rope_scaling object')
    return threads, scaling, rope == "drop"


def text_encoder(fields, model):
    """text -> ids: through "tokenizer" (a tokenizer.json, or a folder holding one, read by the `tokenizers`
    package), else a byte-level model's UTF-8 bytes. f(text, add_special_tokens)."""
    if fields.has("tokenizer"):
        path = fields.string("tokenizer")
        if os.path.isdir(path):
            path = os.path.join(path, "tokenizer.json")
        if not os.access(path, os.R_OK) or os.path.isdir(path):
            raise bad('"tokenizer": cannot read %s' % path)
        try:
            from tokenizers import Tokenizer
        except ImportError as e:
            raise bad('"tokenizer": reading a tokenizer.json needs the Python package tokenizers (pip install '
                      'tokenizers), which is not importable here (%s); or give "tokens"' % e)
        try:
            tok = Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001 (the package's own errors)
            raise bad('"tokenizer" %s: %s' % (path, e))
        return lambda text, special: tok.encode(text, add_special_tokens=special).ids
    vocab = model_shape(model)[0]
    if vocab != 256:
        raise bad('"text" needs a "tokenizer" (a tokenizer.json) or a byte-level model (vocab_size 256); this one has '
                  '%d tokens (or give "tokens")' % vocab)

    def utf8(text, special):
        try:
            return list(text.encode("utf-8"))
        except UnicodeEncodeError:
            raise bad('"text" is not valid Unicode (it holds a lone surrogate)')
    return utf8


def read_tokens(fields, model):
    if fields.has("tokens") == fields.has("text"):
        raise bad('give either "tokens" (ids) or "text"')
    if fields.has("tokens"):
        return fields.integers("tokens", MAX_TOKENS)
    text = fields.string("text")
    special = fields.boolean("add_special_tokens", False)
    ids = text_encoder(fields, model)(text, special)
    if len(ids) > MAX_TOKENS:
        raise bad('"text" is %d tokens; a pass takes at most %d' % (len(ids), MAX_TOKENS))
    return ids


def floats(t):
    return t.to(torch.float64).tolist()


def forward_document(fields, model):
    """The forward op's document: {"nll": [T-1]} and each output asked for, in the CLI's order."""
    tokens = read_tokens(fields, model)
    positions = fields.integers("positions", MAX_TOKENS) if fields.has("positions") else None
    threads, scaling, drop = pass_options(fields)
    outputs = ["nll"]
    if fields.has("outputs"):
        v = fields.obj.get("outputs")
        if not isinstance(v, list):
            raise bad("a list of output names" if v is not None else 'missing required field "outputs"')
        outputs = []
        for name in v:
            if not isinstance(name, str) or name not in OUTPUTS:
                raise bad('"outputs": %s is not one of %s' % (json.dumps(name, ensure_ascii=False), ", ".join(OUTPUTS)))
            outputs.append(name)
    want = set(outputs)
    if want & {"logits", "attention", "hidden"}:
        vocab, d, layers, heads = model_shape(model)
        T = float(len(tokens))
        for name, count in (("logits", T * vocab), ("attention", float(layers) * heads * T * T),
                            ("hidden", float(layers + 1) * T * d)):
            if name in want and count > MAX_OUTPUT:
                raise bad('"%s" would be %s numbers, over the limit of 10^7: ask for fewer tokens' % (
                    name, format_number(count)))
    positions = check_pass(model, tokens, positions, scaling, "qk_pair_norms" in want)
    rec = Record(probs="attention" in want, by_distance="attention_by_distance" in want, sink="sink" in want,
                 hidden="hidden" in want, pairs="qk_pair_norms" in want)
    nll, logits, rec = run_pass(model, tokens, positions, scaling, drop, rec, 0, "logits" in want)
    out = {}
    if "nll" in want:
        out["nll"] = floats(nll)
    if "logits" in want:
        out["logits"] = floats(logits)
    if "attention_by_distance" in want:
        out["attention_by_distance"] = [floats(x) for x in rec.by_distance]
    if "sink" in want:
        out["sink"] = [floats(x) for x in rec.sink]
    if "attention" in want:
        out["attention"] = [floats(x) for x in rec.probs]
    if "hidden" in want:
        out["hidden"] = [floats(x) for x in rec.hidden]
    if "qk_pair_norms" in want:
        out["qk_pair_norms"] = {"q": [floats(x) for x in rec.q_pairs], "k": [floats(x) for x in rec.k_pairs]}
    return out


def run_pass(model, tokens, positions, scaling, drop, rec, head_from, keep_logits):
    """forward() on the model; a checkpoint whose tensors do not fit its config is refused (BadRequest)."""
    try:
        with torch.no_grad():
            return forward(model.W, model.cfg, tokens, positions, scaling, drop, rec, head_from, keep_logits)
    except RuntimeError as e:  # a mis-shaped tensor: a product or reshape that does not fit (memory is no refusal)
        if "out of memory" in str(e):
            raise
        raise bad("the checkpoint's tensors do not fit its config: %s" % str(e).splitlines()[0])


# ---- The passkey bench (docs/passkey.md) ------------------------------------------------------------------------
TASK = ("There is an important info hidden inside a lot of irrelevant text. Find it and memorize them. I will quiz "
        "you about the important information there.")
FILLER = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
QUESTION = "What is the pass key? The pass key is"
MASK64 = (1 << 64) - 1


def passkey_keys(seed, count):
    """The keys in cell order: 10000 + next_u64() mod 90000, splitmix64 as core's NormalRng steps it."""
    state, out = seed, []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out.append(10000 + (z ^ (z >> 31)) % 90000)
    return out


def filler(c):
    """The first c characters of FILLER + " " + FILLER + " " + ..."""
    return " ".join([FILLER] * (c // len(FILLER) + 2))[:c]


def passkey_prompt(key, c, depth):
    before = math.floor(depth * c)
    return "\n".join([TASK, filler(before), "The pass key is %d. Remember it. %d is the pass key." % (key, key),
                      filler(c - before), QUESTION])


def passkey_answer(key):
    return " %d" % key


def passkey_trial(encode, encode_answer, key, length, depth):
    """(ids, answer_at): the prompt's ids at the largest filler within `length` tokens (the bisection) followed by the
    answer's, and where the answer starts. encode(text) for the prompt, encode_answer(text) for the answer alone."""
    answer = encode_answer(passkey_answer(key))
    least = len(encode(passkey_prompt(key, 0, depth))) + len(answer)
    if least > length:
        raise bad('"lengths": %s tokens is shorter than the prompt without filler (%s tokens)' % (
            "{:,}".format(length), "{:,}".format(least)))
    lo, hi = 0, 16 * length
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(encode(passkey_prompt(key, mid, depth))) + len(answer) <= length:
            lo = mid
        else:
            hi = mid - 1
    ids = list(encode(passkey_prompt(key, lo, depth)))
    return ids + list(answer), len(ids)


def passkey_cell(model, trial, scaling, drop):
    """One trial, teacher-forced: (whether every answer token is the argmax, the answer tokens' mean log-prob)."""
    ids, at = trial
    check_pass(model, ids, None, scaling, False)
    nll, logits, _ = run_pass(model, ids, None, scaling, drop, Record(), at - 1, True)
    n = len(ids) - at
    right = all(int(logits[r].argmax()) == ids[at + r] for r in range(n))
    logprob = 0.0
    for r in range(n):
        logprob -= float(nll[r])
    return right, logprob / n


def passkey_document(fields, model, rank=0, world=1, timeout=1800.0):
    """The passkey op's document (rank 0; None on the other ranks). With world > 1 the cells (length, depth, trial),
    in the CLI's order, are shared out, cell i to rank i % world, and gathered on rank 0 over gloo."""
    lengths = fields.integers("lengths", PASSKEY_MAX_AXIS)
    depths = fields.numbers("depths", PASSKEY_MAX_AXIS)
    trials = fields.integer("trials", 1)
    seed = fields.integer("seed", 0)
    special = fields.boolean("add_special_tokens", False)
    if not 0 <= seed < EXACT_WHOLE:
        raise bad('"seed" must be in [0, 2^53 - 1], got %d' % seed)
    if not 1 <= trials <= PASSKEY_MAX_TRIALS:
        raise bad('"trials" must be in [1, %d], got %d' % (PASSKEY_MAX_TRIALS, trials))
    _, scaling, drop = pass_options(fields)
    encode = text_encoder(fields, model)
    for name, axis in (("lengths", lengths), ("depths", depths)):
        if not 1 <= len(axis) <= PASSKEY_MAX_AXIS:
            raise bad('"%s" must hold 1 to %d values, got %d' % (name, PASSKEY_MAX_AXIS, len(axis)))
    for L in lengths:
        if not 1 <= L <= MAX_TOKENS:
            raise bad('"lengths": %d is outside [1, %s]' % (L, "{:,}".format(MAX_TOKENS)))
    for d in depths:
        if not 0.0 <= d <= 1.0:
            raise bad('"depths": %s is outside [0, 1]' % format_number(d))
    D, N = len(depths), trials
    keys = passkey_keys(seed, len(lengths) * D * N)
    cells = [(i, j, t) for i in range(len(lengths)) for j in range(D) for t in range(N)]
    mine = {}  # cell index -> (right, logprob), or the RequestError that stopped this rank (its last entry)
    for c in range(rank, len(cells), world):
        if os.environ.get(FAIL_RANK) == str(rank):
            raise RuntimeError("rank %d stops: %s=%d (a test hook)" % (rank, FAIL_RANK, rank))
        i, j, _ = cells[c]
        try:
            trial = passkey_trial(lambda s: encode(s, special), lambda s: encode(s, False), keys[c], lengths[i],
                                  depths[j])
            mine[c] = passkey_cell(model, trial, scaling, drop)
        except RequestError as e:  # the CLI stops at the first cell that fails: so does each rank
            mine[c] = (e.kind, e.message)
            break
    if world > 1:
        got = gather(mine, rank, world, timeout)
        if rank != 0:
            return None
        mine = {c: r for part in got for c, r in part.items()}
    accuracy = [[0.0] * D for _ in lengths]
    logprob = [[0.0] * D for _ in lengths]
    for c, (i, j, t) in enumerate(cells):
        result = mine.get(c)
        if result is None:  # only after an earlier cell's error on the same rank
            continue
        if isinstance(result[0], str):
            raise RequestError(*result)
        accuracy[i][j] += 1.0 if result[0] else 0.0  # a count, divided once the cell is done
        logprob[i][j] += result[1]
        if t + 1 == N:
            accuracy[i][j] /= N
            logprob[i][j] /= N
    return {"lengths": lengths, "depths": depths, "accuracy": accuracy, "key_logprob": logprob}


def gather(part, rank, world, timeout):
    """Every rank's part on rank 0 (a list, rank order; None elsewhere), over a gloo group that lives for this."""
    import torch.distributed as dist
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=timeout))
    try:
        got = [None] * world if rank == 0 else None
        dist.gather_object(part, got, dst=0)
        return got
    finally:
        dist.destroy_process_group()


# ---- Requests in, documents out ---------------------------------------------------------------------------------
def read_request(path):
    """--request: one JSON object (NaN and Infinity read as strings, so the field holding one is named)."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise RequestError("IOError", "--request: cannot read %s (%s)" % (path, getattr(e, "strerror", None) or e))
    try:
        request = json.loads(text, parse_constant=lambda name: name)
    except ValueError as e:
        raise bad("--request %s is not JSON: %s" % (path, e))
    if not isinstance(request, dict):
        raise bad("request must be a JSON object")
    return request


def all_finite(x):
    if isinstance(x, float):
        return math.isfinite(x)
    if isinstance(x, list):
        return all(all_finite(e) for e in x)
    if isinstance(x, dict):
        return all(all_finite(e) for e in x.values())
    return True


def answer(request, model, rank=0, world=1, timeout=1800.0):
    """The document for one request (None on ranks other than 0)."""
    fields = Fields(request)
    op = fields.string("op")
    if op == "forward":
        doc = forward_document(fields, model)
    elif op == "passkey":
        doc = passkey_document(fields, model, rank, world, timeout)
    else:
        raise bad('unknown op "%s": the script answers forward and passkey' % op)
    if doc is not None and not all_finite(doc):
        raise bad("result is not finite (inputs too large)")
    return doc


def run_device(name, local_rank=0):
    """--device as this rank's torch.device: cuda (cuda:LOCAL_RANK of the GPUs here) refused where there is none."""
    device = torch.device(name)
    if device.type != "cuda":
        return device
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus == 0:
        raise bad("--device %s: PyTorch sees no GPU here (torch.cuda.is_available() is False): use --device cpu" % name)
    if device.index is not None and device.index >= gpus:
        raise bad("--device %s: PyTorch sees %d GPU%s here (cuda:0 to cuda:%d)" % (name, gpus, "" if gpus == 1 else "s",
                                                                                 gpus - 1))
    return device if device.index is not None else torch.device("cuda", local_rank % gpus)


def write_document(path, doc):
    """doc as one JSON line to path ('-': stdout); the exit status: 0, or 1 for an error document or a failed
    write."""
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        if path == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    except OSError as e:
        print("ropeviz_run.py: cannot write %s: %s" % (path, e.strerror), file=sys.stderr)
        return 1
    return 1 if "error" in doc else 0


def serve(o, request, rank=0, world=1, local_rank=0):
    """This process's part: load the model, answer, and (rank 0) write the document; the exit status. forward runs on
    rank 0 alone. In one process any failure becomes an error document; in several a failure other than a refusal
    stops this rank (its launcher stops the others)."""
    if world > 1 and request.get("op") != "passkey" and rank != 0:
        return 0
    try:
        device = run_device(o.device, local_rank)
        threads = request.get("threads")
        if world == 1 and is_number(threads) and as_integer(threads) in range(1, 65):  # else refused with the rest
            torch.set_num_threads(as_integer(threads))
        model = load_model(o.model, getattr(torch, o.dtype), device)
        doc = answer(request, model, rank, world, o.timeout)
    except RequestError as e:
        doc = e.document()
    except Exception as e:  # noqa: BLE001
        if world > 1:
            raise
        traceback.print_exc()
        doc = error_document("RuntimeError", "%s: %s" % (type(e).__name__, e))
    if rank != 0:
        return 0
    return write_document(o.out, doc)


# ---- Processes: --nproc, torchrun ---------------------------------------------------------------------------------
def launched():
    """(rank, world size, local rank) as torchrun (or another env:// launcher) gave them to this process; None when
    none of LAUNCH_ENV is set; ValueError when some are missing."""
    if not any(k in os.environ for k in LAUNCH_ENV):
        return None
    missing = [k for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT") if k not in os.environ]
    if missing:
        raise ValueError("%s set, but not %s (torchrun sets them all)" % (
            ", ".join(k for k in LAUNCH_ENV if k in os.environ), ", ".join(missing)))
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    return rank, world, int(os.environ.get("LOCAL_RANK", rank))


def start_processes(o, request):
    """--nproc N for passkey: N processes of this script on this machine, ranks 0..N-1 meeting at env:// on 127.0.0.1
    (a free port), as torchrun's would; the exit status of rank 0. When one fails the others are stopped, its
    traceback goes to stderr and the document is an error naming it.
    Only public API, the same on PyTorch 1.13 and 2.x: each rank that fails puts its own traceback on a queue, in the
    order they failed; ProcessRaisedException / ProcessExitedException only say that some rank ended."""
    import torch.multiprocessing as mp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(o.nproc),
                      LOCAL_WORLD_SIZE=str(o.nproc))
    context = mp.get_context("spawn")
    failures, status = context.SimpleQueue(), context.SimpleQueue()  # (rank, traceback) of each failure; rank 0's exit
    ranks = mp.start_processes(process, args=(o, request, failures, status), nprocs=o.nproc, join=False,
                               start_method="spawn")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))  # stopped: stop the ranks too
    failed = None
    try:
        while not ranks.join():
            pass
    except (mp.ProcessRaisedException, mp.ProcessExitedException) as e:
        failed = getattr(e, "error_index", -1), str(e)  # a rank killed by a signal puts nothing on the queue
        if not failures.empty():
            failed = failures.get()
    finally:
        for p in ranks.processes:
            if p.is_alive():
                p.terminate()
    if failed is None:
        return status.get() if not status.empty() else 1
    rank, text = failed
    text = text[max(0, text.find("Traceback")):].rstrip()  # spawn's own header left out
    print("rank %d of %d failed (the others were stopped):\n%s" % (rank, o.nproc, text), file=sys.stderr)
    last = text.splitlines()[-1] if text else "it ended"
    write_document(o.out, error_document("RuntimeError", "rank %d of %d failed (the others were stopped): %s" % (
        rank, o.nproc, last)))
    return 1


def process(rank, o, request, failures, status):
    """One of --nproc's processes: rank `rank` of o.nproc on this machine; failures: where a rank that fails puts its
    traceback; status: where rank 0 puts its exit status."""
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank))
    if "OMP_NUM_THREADS" not in os.environ:  # the processes share the cores (torchrun sets 1 thread each)
        torch.set_num_threads(max(1, torch.get_num_threads() // o.nproc))
    try:
        code = serve(o, request, rank, o.nproc, rank)
    except Exception:
        failures.put((rank, traceback.format_exc()))
        raise
    if rank == 0:
        status.put(code)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="ropeviz_run.py", description=__doc__, epilog="Run with PyTorch " + CHECKED_WITH,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, metavar="DIR|REPO", help="the checkpoint folder: config.json and "
                    "model.safetensors, or model.safetensors.index.json and its shards; or a Hugging Face Hub repo "
                    "id, owner/name[@revision], downloaded with huggingface_hub")
    ap.add_argument("--request", required=True, metavar="FILE", help="the request, one JSON object ('-': stdin)")
    ap.add_argument("--out", default="-", metavar="FILE", help="where the document goes ('-', the default: stdout)")
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32",
                    help="the pass's arithmetic: float32 (default, as the C++) or float64 (the reference)")
    ap.add_argument("--device", default="cpu", help="cpu (default), cuda or cuda:N")
    ap.add_argument("--nproc", type=int, metavar="N", help="passkey: start N processes on this machine "
                    "(torch.multiprocessing, gloo, env:// on 127.0.0.1), as `torchrun --nproc-per-node N` would; the "
                    "cells are shared out among them (forward runs in this one)")
    ap.add_argument("--timeout", type=float, default=1800.0, metavar="S",
                    help="seconds a process waits for the others at the gather before it fails")
    o = ap.parse_args(argv)
    try:
        launch = launched()
    except ValueError as e:
        ap.error(str(e))
    if o.nproc is not None and o.nproc < 1:
        ap.error("--nproc must be at least 1")
    if o.nproc is not None and launch:
        ap.error("--nproc starts its own processes: not under torchrun (%s set)" % ", ".join(
            k for k in LAUNCH_ENV if k in os.environ))
    if not o.timeout > 0:
        ap.error("--timeout must be positive")
    if o.device != "cpu" and o.device != "cuda" and not (o.device.startswith("cuda:") and o.device[5:].isdigit()):
        ap.error("--device must be cpu, cuda or cuda:N, got %r" % o.device)
    return o


def main(argv=None):
    o = parse_args(argv)
    if torch is None:
        return write_document(o.out, error_document("BadRequest", "the script needs PyTorch, which is not importable "
                                                    "here (%s): pip install torch" % TORCH_MISSING))
    try:
        request = read_request(o.request)
        run_device(o.device)  # a GPU that is not there is refused before any process starts
        o.model = resolve_model(o.model)  # a Hub repo: before --nproc's processes; torchrun's ranks share its cache
    except RequestError as e:
        return write_document(o.out, e.document())
    if o.nproc and o.nproc > 1 and request.get("op") == "passkey":
        return start_processes(o, request)
    return serve(o, request, *(launched() or (0, 1, 0)))


if __name__ == "__main__":
    sys.exit(main())
