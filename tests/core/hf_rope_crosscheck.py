#!/usr/bin/env python3
"""Cross-check the `model` and `analyze` ops against an independent float64 re-implementation of transformers'
modeling_rope_utils RoPE initialisation (default, linear, dynamic, yarn, longrope, llama3), for every fixture config
in tests/fixtures/configs and configs_v5 (transformers 5's rope_parameters, read here through its legacy spelling),
with seq_len variants and synthetic configs; Gemma 3's sliding layers (rope_local) at rope_local_base_freq. Exit 77
(skip) without torch."""
import glob
import json
import math
import os
import sys

import cli_harness
from cli_harness import check, checks, failures, legacy_spelling
from ropeviz_run import LEARNED, get, ref_rope  # transformers' RoPE in float64 (src/core/infer)

try:
    import torch
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "configs")
FIXTURES_V5 = os.path.join(HERE, "..", "fixtures", "configs_v5")
REL = 1e-12
worst = [0.0, ""]


def ask(reqs):
    return cli_harness.ask(CLI, reqs)


def rel_err(a, b):
    a, b = torch.tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64)
    if a.shape != b.shape:
        return math.inf
    return ((a - b).abs() / b.abs().clamp_min(1e-300)).max().item() if a.numel() else 0.0


def compare(name, cfg, seq_len=None):
    """The request for cfg as written, and the reference's view of it: the language model's fields (text_config) in
    the legacy spelling."""
    req = {"op": "model", "config": cfg}
    if seq_len is not None:
        req["seq_len"] = seq_len
    if "text_config" in cfg and get(cfg, "hidden_size") is None:
        cfg = cfg["text_config"]
    return req, (name, legacy_spelling(cfg), seq_len)


cases = []
for path in sorted(glob.glob(os.path.join(FIXTURES, "*.json")) + glob.glob(os.path.join(FIXTURES_V5, "*.json"))):
    cfg = json.load(open(path))
    name = os.path.relpath(path, os.path.join(HERE, "..", "fixtures"))
    cases.append(compare(name, cfg))
    seen = cases[-1][1][1]  # as the reference reads it
    rt = (seen.get("rope_scaling") or {}).get("type") or (seen.get("rope_scaling") or {}).get("rope_type")
    if rt in ("dynamic", "longrope", "su"):
        mp = get(seen, "max_position_embeddings")
        orig = get(seen, "original_max_position_embeddings") or mp
        for sl in (0, 1, orig - 1, orig, orig + 1, mp, mp + 1, 2 * mp, 3 * mp + 7):
            cases.append(compare("%s seq_len=%d" % (name, sl), cfg, sl))

# synthetic configs: every rope type, partial rotary, legacy spellings
llama = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,
         "rope_theta": 10000.0}
synth = [
    ("linear x4", dict(llama, rope_scaling={"rope_type": "linear", "factor": 4.0})),
    ("linear legacy type", dict(llama, rope_scaling={"type": "linear", "factor": 2.5})),
    ("dynamic x2", dict(llama, rope_scaling={"rope_type": "dynamic", "factor": 2.0})),
    ("dynamic partial 0.5", dict(llama, partial_rotary_factor=0.5,
                                 rope_scaling={"rope_type": "dynamic", "factor": 4.0})),
    ("distilbert dim/n_heads", {"model_type": "distilbert", "dim": 768, "n_heads": 12, "max_position_embeddings": 512}),
    ("yarn x8 defaults", dict(llama, rope_scaling={"rope_type": "yarn", "factor": 8.0})),
    ("yarn with original", dict(llama, max_position_embeddings=32768,
                                rope_scaling={"rope_type": "yarn", "factor": 8.0,
                                              "original_max_position_embeddings": 4096})),
    ("yarn betas", dict(llama, rope_scaling={"rope_type": "yarn", "factor": 4.0, "beta_fast": 16, "beta_slow": 2})),
    ("yarn attention_factor", dict(llama, rope_scaling={"rope_type": "yarn", "factor": 4.0, "attention_factor": 0.9})),
    ("yarn mscale", dict(llama, rope_scaling={"rope_type": "yarn", "factor": 16.0, "mscale": 1.0,
                                              "mscale_all_dim": 0.5})),
    ("yarn mscale zero", dict(llama, rope_scaling={"rope_type": "yarn", "factor": 16.0, "mscale": 0,
                                                   "mscale_all_dim": 1.0})),
    ("yarn no truncate", dict(llama, rope_scaling={"rope_type": "yarn", "factor": 4.0, "truncate": False})),
    ("yarn partial", dict(llama, partial_rotary_factor=0.5, rope_scaling={"rope_type": "yarn", "factor": 4.0})),
    ("llama3 x16", dict(llama, rope_theta=500000.0, rope_scaling={"rope_type": "llama3", "factor": 16.0,
                                                                  "low_freq_factor": 2.0, "high_freq_factor": 8.0,
                                                                  "original_max_position_embeddings": 2048})),
    ("llama3 defaults lo/hi", dict(llama, rope_scaling={"rope_type": "llama3", "factor": 8.0,
                                                        "original_max_position_embeddings": 8192})),
    ("default explicit", dict(llama, rope_scaling={"rope_type": "default"})),
    ("mrope (Qwen2-VL)", dict(llama, rope_theta=1e6, rope_scaling={"type": "mrope", "mrope_section": [16, 24, 24]})),
    ("partial 0.4 (phi-2)", {"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32,
                             "partial_rotary_factor": 0.4, "max_position_embeddings": 2048}),
    ("rotary_pct 0.25", {"model_type": "gpt_neox", "hidden_size": 768, "num_attention_heads": 12, "rotary_pct": 0.25,
                         "rotary_emb_base": 10000, "max_position_embeddings": 2048}),
    ("legacy n_embd/n_head", {"model_type": "codegen", "n_embd": 1024, "n_head": 16, "rotary_dim": 32,
                              "n_positions": 2048}),
    ("longrope su, seq", {"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 4,
                          "max_position_embeddings": 8192, "original_max_position_embeddings": 1024,
                          "rope_scaling": {"type": "su", "short_factor": [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5],
                                           "long_factor": [2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0]}}),
    ("longrope original in rope_scaling", {"model_type": "x", "hidden_size": 64, "num_attention_heads": 4,
                                           "max_position_embeddings": 8192,
                                           "rope_scaling": {"rope_type": "longrope",
                                                            "original_max_position_embeddings": 2048,
                                                            "short_factor": [1.0] * 8, "long_factor": [4.0] * 8}}),
    ("longrope attention given", {"model_type": "x", "hidden_size": 64, "num_attention_heads": 4,
                                  "max_position_embeddings": 4096,
                                  "rope_scaling": {"rope_type": "longrope", "attention_factor": 1.25,
                                                   "short_factor": [1.0] * 8, "long_factor": [4.0] * 8}}),
]
for name, cfg in synth:
    cases.append(compare(name, cfg))
    if name.startswith("dynamic") or name.startswith("longrope"):
        for sl in (100, 1024, 1025, 4096, 4097, 9000, 50000):
            cases.append(compare("%s seq_len=%d" % (name, sl), cfg, sl))

out = ask([c[0] for c in cases])
check(len(out) == len(cases), "one response per model request")
for o, (req, (name, cfg, seq_len)) in zip(out, cases):
    mt = cfg.get("model_type")
    if mt in LEARNED or cfg.get("position_embedding_type") == "absolute":
        mp, d = get(cfg, "max_position_embeddings"), get(cfg, "hidden_size")
        check(o == {"rope": None, "absolute": {"max_position": mp, "d": d, "parameters": mp * d}},
              "%s: absolute %s" % (name, o))
        continue
    if "rope" not in o or o["rope"] is None:
        check(False, "%s: no rope in %s" % (name, str(o)[:200]))
        continue
    r = o["rope"]
    head_dim, dim, base, rope_type, inv, att = ref_rope(cfg, seq_len)
    pairing = "interleaved" if mt in ("gptj", "deepseek_v2", "deepseek_v3") else "half_split"
    check(o["absolute"] is None, name + ": absolute null")
    check((r["head_dim"], r["rotary_dims"], r["base"], r["rope_type"], r["pairing"]) ==
          (head_dim, dim, base, rope_type, pairing),
          "%s: %s vs %s" % (name, (r["head_dim"], r["rotary_dims"], r["base"], r["rope_type"], r["pairing"]),
                            (head_dim, dim, base, rope_type, pairing)))
    e = max(rel_err(r["inv_freq"], inv),
            abs(r["attention_factor"] - att) / abs(att) if att else abs(r["attention_factor"]))
    if e > worst[0]:
        worst[:] = [e, name]
    check(e <= REL, "%s: inv_freq/attention_factor relative error %.3g" % (name, e))
    check(r["max_position_embeddings"] == get(cfg, "max_position_embeddings"), name + ": max_position_embeddings")
    rs = cfg.get("rope_scaling") or {}
    top, inner, mp = get(cfg, "original_max_position_embeddings"), rs.get("original_max_position_embeddings"), \
        get(cfg, "max_position_embeddings")
    orig = (top or inner or mp) if rope_type == "longrope" else (inner or mp) if rope_type == "yarn" else \
        (inner or top or mp)
    check(r["original_max_position_embeddings"] == orig, "%s: original_max_position_embeddings %s vs %s" %
          (name, r["original_max_position_embeddings"], orig))
    local = "rope_local_base_freq" in cfg or mt in ("gemma3", "gemma3_text")
    check(("rope_local" in o) == local, "%s: rope_local only for sliding layers of their own" % name)
    if local and "rope_local" in o:  # Gemma 3's sliding layers: their base, default rope, the same heads
        cl = {k: v for k, v in cfg.items() if k != "rope_scaling"}
        cl["rope_theta"] = cfg.get("rope_local_base_freq", 10000.0)
        head_dim, dim, base, rope_type, inv, att = ref_rope(cl, seq_len)
        rl = o["rope_local"]
        check((rl["head_dim"], rl["rotary_dims"], rl["base"], rl["rope_type"], rl["attention_factor"]) ==
              (head_dim, dim, base, rope_type, att) and rel_err(rl["inv_freq"], inv) <= REL,
              "%s: rope_local %s" % (name, {k: v for k, v in rl.items() if k != "inv_freq"}))

# presets with a fixture give exactly what the fixture gives
PRESET_FIXTURE = {"gpt2": "gpt2.json", "bert-base": "bert-base-arctic-embed-m.json", "llama-2-7b": "llama-2-7b.json",
                  "llama-3.1-8b": "llama-3.1-8b.json", "phi-3.5-mini": "phi-3.5-mini.json",
                  "deepseek-v2-lite": "deepseek-v2-lite.json", "gpt-neox": "redpajama-3b-gpt-neox.json",
                  "minicpm-2b": "minicpm-2b.json", "gpt-j-6b": "gpt-j-6b.json", "gemma-3-4b": "gemma-3-4b.json"}
reqs = []
for p, f in PRESET_FIXTURE.items():
    cfg = json.load(open(os.path.join(FIXTURES, f)))
    reqs += [{"op": "model", "preset": p, "seq_len": 200000}, {"op": "model", "config": cfg, "seq_len": 200000}]
o = ask(reqs)
for i, p in enumerate(PRESET_FIXTURE):
    check(o[2 * i] == o[2 * i + 1] and "error" not in o[2 * i], "preset %s == its fixture" % p)

# ---- analyze against a direct computation ------------------------------------------------------------------------
def critical_dim(d, base, ctx):
    return int(min(d, max(0, 2 * math.ceil((d / 2) * math.log(ctx / (2 * math.pi)) / math.log(base)))))


def first_negative(d, base, limit):
    th = [1.0 / base ** (2 * i / d) for i in range(d // 2)]
    th_t = torch.tensor(th, dtype=torch.float64)
    step = 65536
    for lo in range(1, limit + 1, step):
        m = torch.arange(lo, min(limit, lo + step - 1) + 1, dtype=torch.float64)
        s = torch.cos(m[:, None] * th_t[None, :]).sum(dim=1)
        neg = (s < 0).nonzero()
        if len(neg):
            return int(m[neg[0, 0]].item())
    return None


areqs, arefs = [], []
for d, base, ctx, limit in [(128, 10000.0, 4096, 10000000), (128, 500000.0, 8192, 10000000),
                            (64, 10000.0, 2048, 100000), (8, 10000.0, 10, 1000), (256, 10000.0, 8192, 100000),
                            (128, 1e6, 32768, 2000000), (2, 10000.0, 1, 10), (96, 10000.0, 131072, 10000),
                            (16, 1e9, 1e12, 50)]:
    areqs.append({"op": "analyze", "d_head": d, "base": base, "context": ctx, "limit": limit})
    arefs.append((critical_dim(d, base, ctx), first_negative(d, base, limit)))
for o, (cd, fm), rq in zip(ask(areqs), arefs, areqs):
    check(o.get("critical_dim") == cd and o.get("first_negative_m") == fm,
          "analyze %s: %s vs (%s, %s)" % (rq, o, cd, fm))
    print("analyze d_head=%d base=%g context=%g: critical_dim %s, first_negative_m %s" %
          (rq["d_head"], rq["base"], rq["context"], o.get("critical_dim"), o.get("first_negative_m")))

print("model cases: %d; worst relative error %.3g (%s)" % (len(cases), worst[0], worst[1]))
print("%d checks," % checks[0], "%d failures" % len(failures) if failures else "hf_rope_crosscheck: all checks passed")
sys.exit(1 if failures else 0)
