"""A float64 forward pass written again from transformers' modeling files (modeling_llama.py, modeling_mistral.py,
modeling_qwen2.py, modeling_qwen3.py, modeling_gemma.py, modeling_gpt2.py) for forward_crosscheck.py: its own
safetensors reader, eager attention with the full T x T matrix, the rope of hf_rope_reference.py. What the C++ pass
(core/infer) is held to."""
import json
import math
import struct

import torch
import torch.nn.functional as F

from hf_rope_reference import ref_rope

DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16}


def load_safetensors(path):
    """{name: float64 tensor}: F32, F64, F16 and BF16 (its 16 bits as a float32's top half), widened exactly."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        lo, hi = t["data_offsets"]
        raw = bytearray(data[lo:hi])
        if t["dtype"] == "BF16":
            bits = torch.frombuffer(raw, dtype=torch.int16).to(torch.int32) << 16
            x = bits.view(torch.float32)
        else:
            x = torch.frombuffer(raw, dtype=DTYPES[t["dtype"]])
        out[name] = x.to(torch.float64).reshape(t["shape"])
    return out


def rms(x, w, eps, plus_one=False):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y * (1.0 + w) if plus_one else y * w


def act(name):
    if name in ("silu", "swish"):
        return F.silu
    if name in ("gelu_pytorch_tanh", "gelu_new", "gelu_fast"):
        return lambda x: F.gelu(x, approximate="tanh")
    return F.gelu


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


def attention(q, k, v, scale):
    """q [T, H, hd], k and v [T, Hk, hd]: causal softmax attention; (output [T, H*hd], probabilities [H, T, T])."""
    T, H, hd = q.shape
    group = H // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = torch.einsum("thd,shd->hts", q, k) * scale
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    p = scores.masked_fill(mask, -math.inf).softmax(-1)
    return torch.einsum("hts,shd->thd", p, v).reshape(T, H * hd), p


def llama_like(W, cfg, tokens, positions, rope):
    mt = cfg["model_type"]
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    Hk = cfg.get("num_key_value_heads") or H
    hd = cfg.get("head_dim") or d // H
    eps = cfg.get("rms_norm_eps", 1e-6)
    gemma = mt == "gemma"
    f = act(cfg.get("hidden_activation") or cfg.get("hidden_act") or "silu")
    x = W["model.embed_tokens.weight"][tokens]
    if gemma:
        x = x * math.sqrt(d)
    probs = []
    L = 0
    while "model.layers.%d.input_layernorm.weight" % L in W:
        L += 1
    for l in range(L):
        p = "model.layers.%d." % l

        def lin(name, a):
            y = a @ W[p + name + ".weight"].T
            return y + W[p + name + ".bias"] if p + name + ".bias" in W else y
        a = rms(x, W[p + "input_layernorm.weight"], eps, gemma)
        q = lin("self_attn.q_proj", a).reshape(len(tokens), H, hd)
        k = lin("self_attn.k_proj", a).reshape(len(tokens), Hk, hd)
        v = lin("self_attn.v_proj", a).reshape(len(tokens), Hk, hd)
        if mt == "qwen3":
            q, k = rms(q, W[p + "self_attn.q_norm.weight"], eps), rms(k, W[p + "self_attn.k_norm.weight"], eps)
        if rope is not None:
            cos, sin, rotary = rope
            q, k = rotate(q, cos, sin, rotary), rotate(k, cos, sin, rotary)
        o, pr = attention(q, k, v, hd ** -0.5)
        probs.append(pr)
        x = x + lin("self_attn.o_proj", o)
        a = rms(x, W[p + "post_attention_layernorm.weight"], eps, gemma)
        x = x + lin("mlp.down_proj", f(lin("mlp.gate_proj", a)) * lin("mlp.up_proj", a))
    x = rms(x, W["model.norm.weight"], eps, gemma)
    head = W.get("lm_head.weight", W["model.embed_tokens.weight"])
    return x @ head.T, probs


def gpt2(W, cfg, tokens, positions):
    d, H = cfg.get("n_embd") or cfg["hidden_size"], cfg.get("n_head") or cfg["num_attention_heads"]
    hd, eps = d // H, cfg.get("layer_norm_epsilon", 1e-5)
    f = act(cfg.get("activation_function", "gelu_new"))
    wpe = W["transformer.wpe.weight"]
    for pos in positions:
        if pos >= wpe.shape[0]:
            raise IndexError("index %d is out of bounds for dimension 0 with size %d" % (pos, wpe.shape[0]))
    x = W["transformer.wte.weight"][tokens] + wpe[positions]
    probs = []
    L = 0
    while "transformer.h.%d.ln_1.weight" % L in W:
        L += 1

    def ln(a, name):
        return F.layer_norm(a, (d,), W[name + ".weight"], W[name + ".bias"], eps)

    def conv(a, name):
        return a @ W[name + ".weight"] + W[name + ".bias"]
    for l in range(L):
        p = "transformer.h.%d." % l
        qkv = conv(ln(x, p + "ln_1"), p + "attn.c_attn")
        q, k, v = (t.reshape(len(tokens), H, hd) for t in qkv.split(d, dim=-1))
        o, pr = attention(q, k, v, hd ** -0.5)
        probs.append(pr)
        x = x + conv(o, p + "attn.c_proj")
        x = x + conv(f(conv(ln(x, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
    x = ln(x, "transformer.ln_f")
    return x @ W.get("lm_head.weight", W["transformer.wte.weight"]).T, probs


def forward(W, cfg, tokens, positions=None, rope_scaling="config", drop=False):
    """(nll [T-1], logits [T, V], attention probabilities per layer [H, T, T]) in float64. cfg in the legacy spelling;
    rope_scaling: "config", "none" or a rope_scaling dict."""
    positions = list(range(len(tokens))) if positions is None else positions
    if cfg["model_type"] == "gpt2":
        logits, probs = gpt2(W, cfg, tokens, positions)
    else:
        c = dict(cfg)
        if rope_scaling == "none":
            c.pop("rope_scaling", None)
        elif rope_scaling != "config":
            c["rope_scaling"] = rope_scaling
        _, rotary, _, _, inv, att = ref_rope(c, max(positions) + 1)
        angle = torch.tensor(positions, dtype=torch.float64)[:, None] * inv[None, :]
        rope = None if drop else (angle.cos() * att, angle.sin() * att, rotary)
        logits, probs = llama_like(W, c, tokens, positions, rope)
    target = torch.tensor(tokens[1:])
    nll = torch.logsumexp(logits[:-1], -1) - logits[:-1].gather(1, target[:, None])[:, 0]
    return nll, logits, probs
