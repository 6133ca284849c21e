#!/usr/bin/env python3
"""The forward op (core/infer) against a float64 reference written from transformers' modeling files
(src/core/infer/ropeviz_run.py, the script `ropeviz-cli run-export` writes): on the random-weight checkpoints
transformers 5.17 saved for each family it runs (tests/fixtures/checkpoints) and on the demo models trained on real
text (web/models), NLL within 1e-3 and the logits, attention by distance and sink close; every rope_scaling at
inference, rope dropped, shifted positions; and the refusals: a family it does not run, a token past the vocabulary,
a position past a learned table, a tensor missing or mis-shaped. Exit 77 (skip) without torch."""
import json
import os
import random
import sys

import cli_harness
from cli_harness import check, checks, failures, legacy_spelling

try:
    import torch
    from ropeviz_run import Record, forward, load_safetensors
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
CHECKPOINTS = os.path.join(ROOT, "tests", "fixtures", "checkpoints")
MODELS = os.path.join(ROOT, "web", "models")
NLL_TOL = 1e-3  # the contract's bound against the float64 reference
worst = {}


def model(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    path = os.path.join(folder, "model.safetensors")
    return cfg, path, load_safetensors(path)


def request(cfg, path, tokens, **extra):
    return dict({"op": "forward", "file": path, "config": cfg, "tokens": tokens}, **extra)


def compare(name, got, ref_nll, ref_logits=None, probs=None):
    if "error" in got:
        check(False, "%s: %s" % (name, got["error"]))
        return
    gap = max(abs(a - b) for a, b in zip(got["nll"], ref_nll.tolist()))
    worst[name] = gap
    check(len(got["nll"]) == len(ref_nll) and gap <= NLL_TOL, "%s: |nll - float64| %.3g" % (name, gap))
    if ref_logits is not None and "logits" in got:
        lg = torch.tensor(got["logits"], dtype=torch.float64)
        check(lg.shape == ref_logits.shape and (lg - ref_logits).abs().max().item() <= 1e-3,
              "%s: logits %.3g" % (name, (lg - ref_logits).abs().max().item() if lg.shape == ref_logits.shape else -1))
    if probs is not None and "attention_by_distance" in got:
        T = probs[0].shape[-1]
        for l, p in enumerate(probs):
            ref = [[float(torch.diagonal(p[h], -r).mean()) for r in range(T)] for h in range(p.shape[0])]
            err = max(abs(a - b) for gh, rh in zip(got["attention_by_distance"][l], ref) for a, b in zip(gh, rh))
            check(err <= 1e-5, "%s: attention_by_distance layer %d %.3g" % (name, l, err))
            sink = [float(p[h, 1:, 0].mean()) for h in range(p.shape[0])]
            err = max(abs(a - b) for a, b in zip(got["sink"][l], sink))
            check(err <= 1e-5, "%s: sink layer %d %.3g" % (name, l, err))


rng = random.Random(7)
reqs, refs = [], []


def case(name, folder_model, tokens, positions=None, rope_scaling="config", drop=False, outputs=None):
    cfg, path, W = folder_model
    extra = {}
    if positions is not None:
        extra["positions"] = positions
    if rope_scaling != "config":
        extra["rope_scaling"] = rope_scaling
    if drop:
        extra["rope"] = "drop"
    if outputs:
        extra["outputs"] = outputs
    reqs.append(request(cfg, path, tokens, **extra))
    nll, logits, rec = forward(W, legacy_spelling(cfg), tokens, positions, rope_scaling, drop, Record(probs=True))
    refs.append((name, (nll, logits, rec.probs)))


# ---- every family on transformers' own random-weight checkpoints -------------------------------------------------
families = sorted(os.listdir(CHECKPOINTS))
check(len(families) >= 18, "the checkpoints are there: %s" % families)
loaded = {f: model(os.path.join(CHECKPOINTS, f)) for f in families}
for fam in families:
    tokens = [rng.randrange(256) for _ in range(48)]  # past gemma2's sliding window of 32
    case(fam, loaded[fam], tokens, outputs=["nll", "logits", "attention_by_distance", "sink"])

# ---- every scaling at inference, rope dropped, positions shifted (llama) --------------------------------------------
tokens = [rng.randrange(256) for _ in range(48)]
for scaling in ("none", {"rope_type": "linear", "factor": 4.0}, {"rope_type": "dynamic", "factor": 4.0},
                {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 128},
                {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 64,
                 "low_freq_factor": 1.0, "high_freq_factor": 4.0}):
    case("llama rope_scaling %s" % json.dumps(scaling), loaded["llama"], tokens, rope_scaling=scaling)
case("llama rope drop", loaded["llama"], tokens, drop=True)
case("llama positions + 1000", loaded["llama"], tokens, positions=[1000 + t for t in range(48)])
case("llama dynamic, positions past the context", loaded["llama"], tokens,
     positions=[300 + t for t in range(48)], rope_scaling={"rope_type": "dynamic", "factor": 2.0})

# ---- the demo models on held-out text --------------------------------------------------------------------------------
with open(os.path.join(MODELS, "heldout.txt"), "rb") as f:
    text = f.read()[20000:20400]
for name in ("llama-bytes", "llama-bytes-pi4", "gpt2-bytes"):
    case(name, model(os.path.join(MODELS, name)), list(text))

out = cli_harness.ask(CLI, reqs)
check(len(out) == len(reqs), "one answer per request: %d of %d" % (len(out), len(reqs)))
for got, (name, (nll, logits, probs)) in zip(out, refs):
    compare(name, got, nll, logits, probs)

# ---- attention, hidden states and q/k pair norms against the reference (qwen3: q/k norms before the pairs) ----------
for fam in ("qwen3", "llama_yarn"):
    cfg, path, W = loaded[fam]
    tokens = [rng.randrange(256) for _ in range(24)]
    nll, logits, rec = forward(W, legacy_spelling(cfg), tokens, rec=Record(probs=True, hidden=True, pairs=True))
    probs = rec.probs
    got = cli_harness.ask(CLI, [request(cfg, path, tokens, outputs=["attention", "hidden", "qk_pair_norms"])])[0]
    check("nll" not in got and "error" not in got, "%s: only the outputs asked for: %s" % (fam, list(got)))
    att = torch.tensor(got.get("attention", []), dtype=torch.float64)
    ref = torch.stack(probs)
    check(att.shape == ref.shape and (att - ref).abs().max().item() < 1e-5, "%s: attention [L][H][T][T]" % fam)
    hid = torch.tensor(got.get("hidden", []), dtype=torch.float64)
    ref = torch.stack(rec.hidden)
    check(hid.shape == ref.shape and ((hid - ref).abs().max() / ref.abs().max()).item() < 1e-5,
          "%s: hidden [L+1][T][d], %s vs %s" % (fam, tuple(hid.shape), tuple(ref.shape)))
    for key, pairs in (("q", rec.q_pairs), ("k", rec.k_pairs)):
        x = torch.tensor(got.get("qk_pair_norms", {}).get(key, []), dtype=torch.float64)
        ref = torch.stack(pairs)
        check(x.shape == ref.shape and ((x - ref).abs().max() / ref.abs().max()).item() < 1e-5,
              "%s: qk_pair_norms.%s %s vs %s" % (fam, key, tuple(x.shape), tuple(ref.shape)))

# ---- text in for a byte-level model is its bytes; the shift test on a RoPE model ----------------------------------
cfg, path, W = model(os.path.join(MODELS, "llama-bytes"))
words = text[:200].decode("utf-8", "replace")
a, b, c = cli_harness.ask(CLI, [
    {"op": "forward", "file": path, "config": cfg, "text": words},
    request(cfg, path, list(words.encode("utf-8"))),
    {"op": "forward", "file": path, "config": cfg, "text": words, "positions": list(range(512, 512 + len(
        words.encode("utf-8"))))}])
check(a == b, "text is its UTF-8 bytes for a byte-level model")
shift = max(abs(x - y) for x, y in zip(a["nll"], c["nll"]))
check(shift < 1e-3, "RoPE: the same text 512 positions later, the same loss up to rounding: %.3g" % shift)

# ---- refusals, each by name ---------------------------------------------------------------------------------------
g_cfg, g_path, _ = model(os.path.join(MODELS, "gpt2-bytes"))
l_cfg, l_path, _ = loaded["llama"]
falcon = dict(l_cfg, model_type="falcon")
bad = [
    (request(falcon, l_path, [1, 2]), "forward does not run model_type \"falcon\" (it runs llama"),
    (request(l_cfg, l_path, [1, 256]), "IndexError: index 256 is out of bounds for dimension 0 with size 256"),
    (request(g_cfg, g_path, [1, 2], positions=[1023, 1024]),
     "IndexError: index 1024 is out of bounds for dimension 0 with size 1024"),
    (request(dict(l_cfg, model_type="qwen3"), l_path, [1, 2]),
     "the checkpoint holds no tensor \"model.layers.0.self_attn.q_norm.weight\" (expected shape [16])"),
    (request(dict(l_cfg, num_key_value_heads=4), l_path, [1, 2]),
     "tensor \"model.layers.0.self_attn.k_proj.weight\" has shape [32, 64], expected [64, 64]"),
    (request(l_cfg, l_path, [1, 2], outputs=["hidden_states"]), "\"outputs\": \"hidden_states\" is not one of"),
    (request(l_cfg, l_path, [1] * 2000, outputs=["attention"]),
     "\"attention\" would be 32000000 numbers, over the limit of 10^7"),
    (request(g_cfg, g_path, [1, 2], outputs=["qk_pair_norms"]), "\"qk_pair_norms\" are the rotated pairs of a RoPE"),
    (request(l_cfg, l_path, [1, 2], rope="skip"), "\"rope\" must be \"apply\" or \"drop\""),
    (request(l_cfg, l_path, [1, 2], rope_scaling={"rope_type": "linear"}), "missing rope_scaling.factor"),
    (request(l_cfg, l_path, [1, 2], positions=[0]), "\"positions\" has 1 entries for 2 tokens"),
    (request(l_cfg, l_path, []), "\"tokens\" must hold at least one token"),
    ({"op": "forward", "file": l_path, "config": l_cfg, "text": "hi", "tokenizer": "t.json"}, "\"tokenizer\""),
    (request(dict(l_cfg, hidden_act="relu6"), l_path, [1, 2]), "hidden_act \"relu6\" is not one"),
]
for (req, text_), got in zip(bad, cli_harness.ask(CLI, [r for r, _ in bad])):
    e = got.get("error") or {}
    check(text_ in "%s: %s" % (e.get("type"), e.get("message")), "refusal %r: %r" % (text_, got))

for name, gap in sorted(worst.items()):
    print("%-60s |nll - float64| %.2e" % (name, gap))
print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
