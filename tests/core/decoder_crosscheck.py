#!/usr/bin/env python3
"""Cross-check the `decoder_grad` op against an independent float64 PyTorch implementation of the tiny decoder
(the README's 'Interfaces: the tiny decoder'; autograd for the gradients), for every position method and both RoPE
pairings, on random weights and tokens. Exit 77 (skip) without torch."""
import json
import math
import sys

import cli_harness
from cli_harness import check, checks, failures

try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
TOL = 1e-10  # max |ours - torch| relative to the largest |torch| entry of that weight (loss: relative to |loss|)


def ask(reqs):
    return cli_harness.ask(CLI, reqs, timeout=600)


# ---- the reference model -------------------------------------------------------------------------------------------
def get_slopes(n):  # Press et al., ALiBi's reference code
    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return get_slopes_power_of_2(closest) + get_slopes(2 * closest)[0::2][:n - closest]


def t5_bucket(rel, num_buckets=32, max_distance=128):  # T5's _relative_position_bucket, causal; rel = j - i
    n = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.double() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return torch.where(is_small, n, large)


def rope(x, base, pairing):  # x [B, heads, T, d_head] rotated at t = 0..T-1
    T, dh = x.shape[-2], x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)  # [T, dh/2]
    if pairing == "interleaved":  # Meta's Llama: view_as_complex * polar
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], dh // 2, 2).contiguous())
        return torch.view_as_real(xc * torch.polar(torch.ones_like(freqs), freqs)).flatten(-2)
    emb = torch.cat((freqs, freqs), dim=-1)  # Hugging Face rotate_half
    x1, x2 = x[..., :dh // 2], x[..., dh // 2:]
    return x * emb.cos() + torch.cat((-x2, x1), dim=-1) * emb.sin()


def rms(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w


def forward(cfg, W, tokens, targets):
    B, T = tokens.shape
    d, H = cfg["d_model"], cfg["heads"]
    dh = d // H
    pos = cfg["position"]
    h = W["tok_emb"][tokens]
    if pos == "learned":
        h = h + W["pos_emb"][torch.arange(T)]  # tensor indexing: IndexError past the table
    if pos == "sinusoidal":
        t = torch.arange(T, dtype=torch.float64)[:, None]
        pe = torch.zeros(T, d, dtype=torch.float64)
        i2 = torch.arange(0, d, 2, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(t / 10000 ** (i2 / d))
        pe[:, 1::2] = torch.cos(t / 10000 ** (i2[: d // 2] / d))
        h = h + pe
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    bias = torch.zeros(H, T, T, dtype=torch.float64)
    if pos == "alibi":
        bias = -torch.tensor(get_slopes(H), dtype=torch.float64)[:, None, None] * (i - j).double()
    if pos == "t5":
        bias = W["rel_bias"][t5_bucket(j - i)].permute(2, 0, 1)  # [H, T, T]
    causal = j > i
    for l in range(cfg["layers"]):
        a = rms(h, W["l%d.norm1" % l])
        q, k, v = (x.view(B, T, H, dh).transpose(1, 2) for x in (a @ W["l%d.wq" % l], a @ W["l%d.wk" % l],
                                                                    a @ W["l%d.wv" % l]))
        if pos == "rope":
            q, k = rope(q, cfg["base"], cfg["pairing"]), rope(k, cfg["base"], cfg["pairing"])
        s = q @ k.transpose(-1, -2) / math.sqrt(dh) + bias
        p = torch.softmax(s.masked_fill(causal, float("-inf")), dim=-1)
        o = (p @ v).transpose(1, 2).reshape(B, T, d)
        h = h + o @ W["l%d.wo" % l]
        b = rms(h, W["l%d.norm2" % l])
        h = h + F.gelu(b @ W["l%d.w1" % l]) @ W["l%d.w2" % l]
    logits = rms(h, W["norm_f"]) @ W["head"]
    return F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(-1), ignore_index=-1)


def weight_shapes(cfg):
    V, d, f, H = cfg["vocab"], cfg["d_model"], cfg["d_ff"], cfg["heads"]
    shapes = [("tok_emb", (V, d))]
    if cfg["position"] == "learned":
        shapes.append(("pos_emb", (cfg["max_position"], d)))
    for l in range(cfg["layers"]):
        shapes += [("l%d.norm1" % l, (d,)), ("l%d.wq" % l, (d, d)), ("l%d.wk" % l, (d, d)), ("l%d.wv" % l, (d, d)),
                   ("l%d.wo" % l, (d, d)), ("l%d.norm2" % l, (d,)), ("l%d.w1" % l, (d, f)), ("l%d.w2" % l, (f, d))]
    if cfg["position"] == "t5":
        shapes.append(("rel_bias", (32, H)))
    shapes += [("norm_f", (d,)), ("head", (d, V))]
    return shapes


def random_case(cfg, B, T, seed):
    g = torch.Generator().manual_seed(seed)
    W = {}
    for name, shape in weight_shapes(cfg):
        x = torch.randn(*shape, generator=g, dtype=torch.float64)
        W[name] = 1.0 + 0.3 * x if len(shape) == 1 else 0.5 * x
    tokens = torch.randint(0, cfg["vocab"], (B, T), generator=g)
    targets = torch.randint(0, cfg["vocab"], (B, T), generator=g)
    targets[torch.rand(B, T, generator=g) < 0.3] = -1
    targets[0, 0] = 1
    return W, tokens, targets


def request(cfg, W, tokens, targets):
    return {"op": "decoder_grad", "config": cfg, "weights": {n: w.flatten().tolist() for n, w in W.items()},
            "tokens": tokens.tolist(), "targets": targets.tolist()}


# ---- the cases -----------------------------------------------------------------------------------------------------
def config(position, pairing="interleaved", vocab=7, d_model=8, heads=2, layers=2, d_ff=12, max_position=8):
    return {"vocab": vocab, "d_model": d_model, "heads": heads, "layers": layers, "d_ff": d_ff, "position": position,
            "max_position": max_position, "base": 10000.0, "pairing": pairing}


cases = []
for pos, pairing in [("learned", "interleaved"), ("sinusoidal", "interleaved"), ("rope", "interleaved"),
                     ("rope", "half_split"), ("alibi", "interleaved"), ("t5", "interleaved"), ("none", "interleaved")]:
    label = pos + (" " + pairing if pos == "rope" else "")
    cases.append((label, config(pos, pairing), 2, 5, 1))  # the tiny config of the unit tests
    cases.append((label, config(pos, pairing, vocab=11, d_model=24, heads=3 if pos != "rope" else 4, layers=2,
                                d_ff=20, max_position=40), 3, 40 if pos == "t5" else 19, 2))  # 3 heads: ALiBi's
    # non-power-of-two slopes; T 40: T5's logarithmic buckets
cases.append(("rope base 500000", dict(config("rope"), base=500000.0), 2, 6, 3))

reqs, refs = [], []
for label, cfg, B, T, seed in cases:
    W, tokens, targets = random_case(cfg, B, T, seed)
    reqs.append(request(cfg, W, tokens, targets))
    Wg = {n: w.clone().requires_grad_(True) for n, w in W.items()}
    loss = forward(cfg, Wg, tokens, targets)
    loss.backward()
    refs.append((label, cfg, loss.item(), {n: w.grad for n, w in Wg.items()}))

worst = {}
for got, (label, cfg, loss, grads) in zip(ask(reqs), refs):
    if "error" in got:
        check(False, "%s: %s" % (label, got["error"]))
        continue
    err = abs(got["loss"] - loss) / max(abs(loss), 1e-300)
    check(err < TOL, "%s loss %r vs torch %r" % (label, got["loss"], loss))
    check(list(got["grads"]) == [n for n, _ in weight_shapes(cfg)], "%s: grads in the contract's order" % label)
    for name, g in grads.items():
        ours = torch.tensor(got["grads"].get(name, []), dtype=torch.float64)
        if ours.numel() != g.numel():
            check(False, "%s %s: %d entries, want %d" % (label, name, ours.numel(), g.numel()))
            continue
        scale = g.abs().max().item()
        e = (ours - g.flatten()).abs().max().item() / max(scale, 1e-300)
        err = max(err, e)
        check(e < TOL, "%s %s: max diff %.3g relative to %.3g" % (label, name, e, scale))
    worst[label] = max(worst.get(label, 0.0), err)
for label, e in worst.items():
    print("torch cross-check %-16s worst relative difference %.3g" % (label, e))

# ---- errors: PyTorch's own messages where PyTorch has one ------------------------------------------------------------
cfg = config("learned", max_position=4)
W, tokens, targets = random_case(cfg, 2, 5, 4)
try:
    forward(cfg, W, tokens, targets)
    torch_msg = None
except IndexError as e:
    torch_msg = str(e)
got = ask([request(cfg, W, tokens, targets)])[0]
check(got.get("error") == {"type": "IndexError", "message": torch_msg},
      "learned past the table: %r vs torch %r" % (got, torch_msg))
cfg = config("rope")
W, tokens, targets = random_case(cfg, 1, 3, 5)
bad = request(cfg, W, tokens, targets)
missing = json.loads(json.dumps(bad))
del missing["weights"]["l1.w2"]
short = json.loads(json.dumps(bad))
short["weights"]["head"].pop()
token = json.loads(json.dumps(bad))
token["tokens"][0][1] = 7
odd = json.loads(json.dumps(bad))
odd["config"]["heads"] = 8
answers = ask([missing, short, token, odd])
want = [("BadRequest", "weights.l1.w2"), ("BadRequest", "weights.head"), ("IndexError", "index 7 is out of bounds"),
        ("BadRequest", "d_head")]
for got, (kind, text) in zip(answers, want):
    err = got.get("error", {})
    check(err.get("type") == kind and text in err.get("message", ""), "error %r wants %s %r" % (got, kind, text))

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
