#!/usr/bin/env python3
"""Cross-check ropeviz-cli against PyTorch float64 (Meta's complex RoPE, HF rotate_half, HF rope_scaling formulas
re-derived here) and report errors by position for the float64 and float32 paths. Exit 77 (skip) without torch."""
import json
import math
import sys

import cli_harness
from cli_harness import check, checks, failures

try:
    import torch
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s); install python3-torch to run this cross-check" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
torch.set_default_dtype(torch.float64)


def ask(reqs, errors_expected=False):
    out = cli_harness.ask(CLI, reqs)
    for r, o in zip(reqs, out):
        if "error" in o and not errors_expected:
            check(False, "unexpected error for %s: %s" % (json.dumps(r)[:160], o))
    return out


def inv_freq_t(d, base):  # HF / Llama formula, float64
    return 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))


def meta_rope(x, pos, base):  # llama/model.py: view_as_complex(x) * polar(1, pos * freqs)
    freqs = inv_freq_t(x.shape[-1], base)
    cis = torch.polar(torch.ones_like(freqs), pos * freqs)
    xc = torch.view_as_complex(x.reshape(-1, 2))
    return torch.view_as_real(xc * cis).flatten()


def hf_rope(x, pos, base):  # transformers: x * cos + rotate_half(x) * sin, emb = cat(freqs, freqs)
    freqs = pos * inv_freq_t(x.shape[-1], base)
    emb = torch.cat((freqs, freqs))
    x1, x2 = x[: x.shape[-1] // 2], x[x.shape[-1] // 2:]
    return x * emb.cos() + torch.cat((-x2, x1)) * emb.sin()


# ---- rotation by position: float64 and float32 paths vs torch float64 --------------------------------------------
gen = torch.Generator().manual_seed(123)
print("max |ropeviz - torch float64| / |x| over d_head in {8, 64, 128}, both pairings, 8 vectors each")
print("%12s %14s %14s" % ("position", "float64 path", "float32 path"))
for pos in [0, 5, 100, 1e3, 1e6, 1e9]:
    err64 = err32 = 0.0
    reqs, refs = [], []
    for d in (8, 64, 128):
        for _ in range(8):
            x = torch.randn(d, generator=gen).float().double()  # float32-representable so both paths see the same x
            for pairing, fn in (("interleaved", meta_rope), ("half_split", hf_rope)):
                ref = fn(x, pos, 10000.0)
                for dtype in ("float64", "float32"):
                    reqs.append({"op": "rotate", "d_head": d, "base": 10000.0, "position": pos, "x": x.tolist(),
                                 "pairing": pairing, "dtype": dtype})
                    refs.append((ref, x.norm().item(), dtype))
    for o, (ref, nx, dtype) in zip(ask(reqs), refs):
        if "x_rot" not in o:
            continue
        e = (torch.tensor(o["x_rot"]) - ref).abs().max().item() / nx
        if dtype == "float64":
            err64 = max(err64, e)
        else:
            err32 = max(err32, e)
    print("%12.0e %14.3e %14.3e" % (pos, err64, err32))
    check(err64 <= 1e-14 + 5e-16 * pos, "float64 path at %g: %.3g" % (pos, err64))
    check(err32 <= 3e-7 + 5e-16 * pos, "float32 path at %g: %.3g" % (pos, err32))

# ---- lesson numbers and angles ------------------------------------------------------------------------------------
o = ask([{"op": "inv_freq", "d_head": d, "base": b} for d in (8, 64, 128, 256) for b in (10000.0, 500000.0)])
n = 0
for d in (8, 64, 128, 256):
    for b in (10000.0, 500000.0):
        ref = inv_freq_t(d, b)
        check(torch.allclose(torch.tensor(o[n]["inv_freq"]), ref, rtol=2.3e-16, atol=0),
              "inv_freq d=%d base=%g" % (d, b))
        n += 1
check(o[0]["inv_freq"] == [1.0, 0.1, 0.01, 0.001], "theta for d_head 8")

# ---- the lesson's 3.1: torch's own IndexError text ----------------------------------------------------------------
pos_table = torch.randn(10, 8)
try:
    pos_table[100]
    torch_msg = None
except IndexError as e:
    torch_msg = str(e)
o = ask([{"op": "lookup", "max_position": 10, "d": 8, "table": pos_table.flatten().tolist(), "positions": [5, 100]}],
        True)
check(o[0] == {"error": {"type": "IndexError", "message": torch_msg}}, "IndexError text equals torch's: %r" % torch_msg)
try:
    pos_table[-11]
except IndexError as e:
    o = ask([{"op": "lookup", "max_position": 10, "d": 8, "table": pos_table.flatten().tolist(), "positions": [-11]}],
            True)
    check(o[0]["error"]["message"] == str(e), "negative IndexError text equals torch's: %r" % str(e))
o = ask([{"op": "lookup", "max_position": 10, "d": 8, "table": pos_table.flatten().tolist(), "positions": [5, 0]}])
check(torch.equal(torch.tensor(o[0]["rows"]), pos_table[torch.tensor([5, 0])]), "lookup rows equal torch indexing")

# ---- scores, sinusoidal, decay bound ------------------------------------------------------------------------------
reqs, refs = [], []
for d in (8, 64):
    q, k = torch.randn(d, generator=gen), torch.randn(d, generator=gen)
    for m, nn in ((5, 3), (102, 100), (0, 7), (4096, 1)):
        reqs.append({"op": "score", "d_head": d, "q": q.tolist(), "k": k.tolist(), "m": m, "n": nn})
        refs.append(torch.dot(meta_rope(q, m, 1e4), meta_rope(k, nn, 1e4)).item())
for o, ref in zip(ask(reqs), refs):
    check(abs(o.get("score", 1e9) - ref) <= 1e-12 * max(1, abs(ref)), "score %s vs %s" % (o, ref))

positions = [0, 1, 2, 50, 1000]
o = ask([{"op": "sinusoidal", "d": 16, "positions": positions}])[0]
pos_t = torch.tensor(positions, dtype=torch.float64)[:, None]
div = 10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16)
pe = torch.zeros(len(positions), 16)
pe[:, 0::2] = torch.sin(pos_t / div)
pe[:, 1::2] = torch.cos(pos_t / div)
check(torch.allclose(torch.tensor(o["pe"]).reshape(len(positions), 16), pe, rtol=1e-13, atol=1e-15), "sinusoidal")

dist = [0, 1, 2, 5, 10, 100, 1000, 10000]
o = ask([{"op": "decay_bound", "d": 128, "base": 10000.0, "distances": dist}])[0]
th = inv_freq_t(128, 10000.0)
r = torch.tensor(dist, dtype=torch.float64)[:, None]
S = torch.cumsum(torch.polar(torch.ones(len(dist), 64), r * th), dim=1)
ref = S.abs().mean(dim=1)
check(torch.allclose(torch.tensor(o["bound"]), ref, rtol=1e-12, atol=0), "decay bound vs torch cumsum")


# ---- rope_scaling: transformers' formulas, re-derived here in float64 -------------------------------------------
def hf_linear(d, base, factor):
    return inv_freq_t(d, base) / factor, 1.0


def hf_dynamic(d, base, factor, seq_len, max_pos):
    seq_len = max(seq_len, max_pos)
    base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (d / (d - 2))
    return inv_freq_t(d, base), 1.0


def hf_yarn(d, base, factor, orig, beta_fast=32, beta_slow=1, attention_factor=None):
    def mscale(s, m=1.0):
        return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0
    att = attention_factor if attention_factor is not None else mscale(factor)

    def corr_dim(n_rot):
        return (d * math.log(orig / (n_rot * 2 * math.pi))) / (2 * math.log(base))
    low = max(math.floor(corr_dim(beta_fast)), 0)
    high = min(math.ceil(corr_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(d // 2, dtype=torch.float64) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    ef = 1 - ramp
    return inter * (1 - ef) + extra * ef, att


def meta_llama3(d, base, factor, low_ff, high_ff, old_len):  # llama-models apply_scaling
    out = []
    for f in inv_freq_t(d, base).tolist():
        wl = 2 * math.pi / f
        if wl < old_len / high_ff:
            out.append(f)
        elif wl > old_len / low_ff:
            out.append(f / factor)
        else:
            s = (old_len / wl - low_ff) / (high_ff - low_ff)
            out.append((1 - s) * f / factor + s * f)
    return torch.tensor(out), 1.0


cases = []
for d in (8, 64, 128):
    for base in (10000.0, 500000.0):
        for factor in (1.0, 2.0, 8.0, 32.0):
            cases.append(({"type": "linear", "factor": factor}, hf_linear(d, base, factor), d, base))
            cases.append(({"type": "dynamic", "factor": factor, "seq_len": 10000, "max_position_embeddings": 4096},
                          hf_dynamic(d, base, factor, 10000, 4096), d, base))
            cases.append(({"type": "dynamic", "factor": factor, "seq_len": 100, "max_position_embeddings": 4096},
                          hf_dynamic(d, base, factor, 100, 4096), d, base))
            for orig in (2048, 4096, 32768):
                cases.append(({"type": "yarn", "factor": factor, "original_max_position_embeddings": orig},
                              hf_yarn(d, base, factor, orig), d, base))
            cases.append(({"type": "yarn", "factor": factor, "original_max_position_embeddings": 4096, "beta_fast": 16,
                           "beta_slow": 2, "attention_factor": 0.75},
                          hf_yarn(d, base, factor, 4096, 16, 2, 0.75), d, base))
            cases.append(({"type": "llama3", "factor": factor, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                           "original_max_position_embeddings": 8192},
                          meta_llama3(d, base, factor, 1.0, 4.0, 8192), d, base))
cases.append(({"type": "llama3"}, meta_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192), 128, 500000.0))
reqs = [{"op": "inv_freq", "d_head": d, "base": base, "scaling": sc} for sc, _, d, base in cases]
worst = 0.0
for o, (sc, (ref, att), d, base) in zip(ask(reqs), cases):
    if "inv_freq" not in o:
        continue
    got = torch.tensor(o["inv_freq"])
    e = ((got - ref).abs() / ref).max().item()
    worst = max(worst, e)
    check(e < 1e-13, "scaling %s d=%d base=%g: rel err %.3g" % (sc, d, base, e))
    check(abs(o["attention_factor"] - att) < 1e-15, "attention factor %s: %s vs %s" % (sc, o["attention_factor"], att))
print("rope_scaling: %d configurations, max relative error vs re-derived transformers formulas %.2e"
      % (len(cases), worst))

# ---- precision: Llama 2's float32 recipe in real torch vs ours ---------------------------------------------------
d, pos = 128, 1_000_000
freqs32 = 1.0 / (10000.0 ** (torch.arange(0, d, 2)[: d // 2].float() / d))
t32 = torch.arange(pos + 1, dtype=torch.int64)[-1:]
ang32 = torch.outer(t32, freqs32).float()[0].double()
ang64 = pos * inv_freq_t(d, 10000.0)
torch_naive = torch.remainder(ang32 - ang64 + math.pi, 2 * math.pi).sub(math.pi).abs().max().item()
naive, ours = ask([{"op": "precision", "d_head": d, "position": pos, "format": "float32", "recipe": r}
                   for r in ("naive", "ours")])
print("angle error at position 1e6, d_head 128: torch float32 Llama-2 recipe %.3g rad; "
      "our emulation of it %.3g; ours %.3g"
      % (torch_naive, naive.get("max_angle_err", -1), ours.get("max_angle_err", -1)))
check(torch_naive > 1e-2, "torch's float32 recipe really loses > 1e-2 rad at 1e6")
check(0.25 * torch_naive < naive.get("max_angle_err", 0) < 4 * torch_naive, "naive emulation matches torch's magnitude")
check(ours.get("max_angle_err", 1) < 2e-7, "ours stays at float32 rounding")

print("%d checks," % checks[0], "%d failures" % len(failures) if failures else "torch_crosscheck: all checks passed")
sys.exit(1 if failures else 0)
