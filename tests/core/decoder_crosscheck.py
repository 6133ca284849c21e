#!/usr/bin/env python3
"""Cross-check the `decoder_grad` op against an independent float64 PyTorch implementation of the tiny decoder
(docs/lab.md; autograd for the gradients), for every position method and both RoPE
pairings, on random weights and tokens, at positions 0..T-1 and at given `positions` (sorted random ones, and
unsorted ones for the relative methods); with positions, the lab script's model (src/core/lab/ropeviz_lab.py) too.
Exit 77 (skip) without torch."""
import importlib.util
import json
import math
import os
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


def rope(x, base, pairing, positions):  # x [B, heads, T, d_head] rotated at positions [B, T]
    dh = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    freqs = (positions.double()[..., None] * inv_freq)[:, None]  # [B, 1, T, dh/2]
    if pairing == "interleaved":  # Meta's Llama: view_as_complex * polar
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], dh // 2, 2).contiguous())
        return torch.view_as_real(xc * torch.polar(torch.ones_like(freqs), freqs)).flatten(-2)
    emb = torch.cat((freqs, freqs), dim=-1)  # Hugging Face rotate_half
    x1, x2 = x[..., :dh // 2], x[..., dh // 2:]
    return x * emb.cos() + torch.cat((-x2, x1), dim=-1) * emb.sin()


def rms(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w


def forward(cfg, W, tokens, targets, positions=None):
    B, T = tokens.shape
    d, H = cfg["d_model"], cfg["heads"]
    dh = d // H
    pos = cfg["position"]
    at = torch.arange(T).expand(B, T) if positions is None else positions  # token j of row b at at[b, j]
    h = W["tok_emb"][tokens]
    if pos == "learned":
        h = h + W["pos_emb"][at]  # tensor indexing: IndexError past the table
    if pos == "sinusoidal":
        t = at.double()[..., None]  # [B, T, 1]
        pe = torch.zeros(B, T, d, dtype=torch.float64)
        i2 = torch.arange(0, d, 2, dtype=torch.float64)
        pe[..., 0::2] = torch.sin(t / 10000 ** (i2 / d))
        pe[..., 1::2] = torch.cos(t / 10000 ** (i2[: d // 2] / d))
        h = h + pe
    pi, pj = at[:, None, :, None], at[:, None, None, :]  # p_i, p_j  # [B, 1, T, 1], [B, 1, 1, T]
    bias = torch.zeros(B, H, T, T, dtype=torch.float64)
    if pos == "alibi":
        bias = -torch.tensor(get_slopes(H), dtype=torch.float64)[:, None, None] * (pi - pj).double()
    if pos == "t5":
        bias = W["rel_bias"][t5_bucket(pj - pi)[:, 0]].permute(0, 3, 1, 2)  # [B, H, T, T]
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    causal = j > i  # by index, whatever the positions
    for l in range(cfg["layers"]):
        a = rms(h, W["l%d.norm1" % l])
        q, k, v = (x.view(B, T, H, dh).transpose(1, 2) for x in (a @ W["l%d.wq" % l], a @ W["l%d.wk" % l],
                                                                    a @ W["l%d.wv" % l]))
        if pos == "rope":
            q, k = rope(q, cfg["base"], cfg["pairing"], at), rope(k, cfg["base"], cfg["pairing"], at)
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


def request(cfg, W, tokens, targets, positions=None):
    r = {"op": "decoder_grad", "config": cfg, "weights": {n: w.flatten().tolist() for n, w in W.items()},
         "tokens": tokens.tolist(), "targets": targets.tolist()}
    if positions is not None:
        r["positions"] = positions.tolist()
    return r


def random_positions(B, T, R, seed, order="sorted"):
    """[B, T] positions drawn from [0, R): sorted (as the lab's remedies train), or in random order."""
    g = torch.Generator().manual_seed(1000 + seed)
    p = torch.randint(0, R, (B, T), generator=g)
    return p.sort(dim=1).values if order == "sorted" else p


def lab_model(cfg, W):
    """The lab script's Decoder (src/core/lab/ropeviz_lab.py) in float64 with the weights W."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("ropeviz_lab",
                                                  os.path.join(here, "../../src/core/lab/ropeviz_lab.py"))
    lab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lab)
    model = lab.Decoder(cfg["position"], cfg["vocab"], cfg["d_model"], cfg["heads"], cfg["layers"], cfg["d_ff"],
                        cfg["max_position"], cfg["base"], cfg["pairing"]).double()
    with torch.no_grad():
        for name, w in model.named_weights():
            w.copy_(W[name].view(w.shape))
    return model


# ---- the cases -----------------------------------------------------------------------------------------------------
def config(position, pairing="interleaved", vocab=7, d_model=8, heads=2, layers=2, d_ff=12, max_position=8):
    return {"vocab": vocab, "d_model": d_model, "heads": heads, "layers": layers, "d_ff": d_ff, "position": position,
            "max_position": max_position, "base": 10000.0, "pairing": pairing}


cases = []  # (label, config, B, T, seed, positions: None, or (R, order) for random positions in [0, R))
for pos, pairing in [("learned", "interleaved"), ("sinusoidal", "interleaved"), ("rope", "interleaved"),
                     ("rope", "half_split"), ("alibi", "interleaved"), ("t5", "interleaved"), ("none", "interleaved")]:
    label = pos + (" " + pairing if pos == "rope" else "")
    cases.append((label, config(pos, pairing), 2, 5, 1, None))  # the tiny config of the unit tests
    big = config(pos, pairing, vocab=11, d_model=24, heads=3 if pos != "rope" else 4, layers=2, d_ff=20,
                 max_position=40)  # 3 heads: ALiBi's non-power-of-two slopes
    cases.append((label, big, 3, 40 if pos == "t5" else 19, 2, None))  # T 40: T5's logarithmic buckets
    # positions: sorted from [0, R) (R 40 = learned's table; 3000: T5's distances past 128, rope's and the
    # sinusoid's tables past T), and unsorted for the methods that compare positions
    cases.append((label + " positions", config(pos, pairing), 2, 5, 4, (8, "sorted")))
    cases.append((label + " positions", big, 3, 19, 5, (40 if pos == "learned" else 3000, "sorted")))
    if pos in ("rope", "alibi", "t5"):
        cases.append((label + " unsorted positions", big, 2, 12, 6, (200, "unsorted")))
cases.append(("rope base 500000", dict(config("rope"), base=500000.0), 2, 6, 3, None))

reqs, refs = [], []
for label, cfg, B, T, seed, where in cases:
    W, tokens, targets = random_case(cfg, B, T, seed)
    positions = None if where is None else random_positions(B, T, where[0], seed, where[1])
    reqs.append(request(cfg, W, tokens, targets, positions))
    Wg = {n: w.clone().requires_grad_(True) for n, w in W.items()}
    loss = forward(cfg, Wg, tokens, targets, positions)
    loss.backward()
    lab = None  # the lab script's model at the same positions: its loss and gradients
    if positions is not None:
        model = lab_model(cfg, W)
        logits = model(tokens, positions)
        lab_loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-1)
        lab_loss.backward()
        lab = (lab_loss.item(), {n: w.grad for n, w in model.named_weights()})
    refs.append((label, cfg, loss.item(), {n: w.grad for n, w in Wg.items()}, lab))

worst = {}
for got, (label, cfg, loss, grads, lab) in zip(ask(reqs), refs):
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
        if lab is not None:
            e = (lab[1][name].flatten() - g.flatten()).abs().max().item() / max(scale, 1e-300)
            err = max(err, e)
            check(e < TOL, "%s %s: ropeviz_lab.py's max diff %.3g relative to %.3g" % (label, name, e, scale))
    if lab is not None:
        e = abs(lab[0] - loss) / max(abs(loss), 1e-300)
        err = max(err, e)
        check(e < TOL, "%s: ropeviz_lab.py's loss %r vs torch %r" % (label, lab[0], loss))
    worst[label] = max(worst.get(label, 0.0), err)
for label, e in worst.items():
    print("torch cross-check %-35s worst relative difference %.3g" % (label, e))

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
cfg = config("learned", max_position=8)  # positions past the table, short rows: PyTorch names the first by row
W, tokens, targets = random_case(cfg, 2, 3, 4)
positions = torch.tensor([[0, 3, 7], [2, 9, 8]])
try:
    forward(cfg, W, tokens, targets, positions)
    torch_msg = None
except IndexError as e:
    torch_msg = str(e)
got = ask([request(cfg, W, tokens, targets, positions)])[0]
check(torch_msg is not None and got.get("error") == {"type": "IndexError", "message": torch_msg},
      "learned position past the table: %r vs torch %r" % (got, torch_msg))
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
