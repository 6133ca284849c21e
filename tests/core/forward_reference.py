"""A float64 forward pass written again from transformers' modeling files (modeling_llama.py and its kin: mistral,
mixtral, qwen2, qwen3, gemma, gemma2, olmo2, phi3, phi, stablelm, starcoder2; gpt_neox, gptj, gpt2, opt) for
forward_crosscheck.py: its own
safetensors reader, eager attention with the full T x T matrix, the rope of hf_rope_reference.py. What the C++ pass
(core/infer) is held to."""
import json
import math
import struct

import torch
import torch.nn.functional as F

from hf_rope_reference import ref_rope

DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16}
EXTRA = {}  # the last decoder() pass's hidden states [L+1] and q/k pair norms [L] -> [heads, r/2]


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
    if name == "relu":
        return F.relu
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


def attention(q, k, v, scale, window=0, softcap=0.0):
    """q [T, H, hd], k and v [T, Hk, hd]: causal softmax attention (keys within the last `window` positions when
    window > 0; Gemma 2's soft cap); (output [T, H*hd], probabilities [H, T, T])."""
    T, H, hd = q.shape
    group = H // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = torch.einsum("thd,shd->hts", q, k) * scale
    if softcap:
        scores = torch.tanh(scores / softcap) * softcap
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    if window:
        mask |= torch.ones(T, T, dtype=torch.bool).tril(-window)
    p = scores.masked_fill(mask, -math.inf).softmax(-1)
    return torch.einsum("hts,shd->thd", p, v).reshape(T, H * hd), p


def count_layers(W, pattern):
    L = 0
    while pattern % L in W:
        L += 1
    return L


def decoder(W, cfg, tokens, rope):
    """The model.layers.{l} families: llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, olmo2, phi3, phi,
    stablelm, starcoder2."""
    mt = cfg["model_type"]
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    Hk = cfg.get("num_key_value_heads") or H
    hd = cfg.get("head_dim") or d // H
    layer_norm = mt in ("phi", "stablelm", "starcoder2")
    eps = cfg.get("layer_norm_eps", cfg.get("norm_epsilon", 1e-5)) if layer_norm else cfg.get("rms_norm_eps", 1e-6)
    gemma = mt in ("gemma", "gemma2")
    f = act(cfg.get("hidden_activation") or cfg.get("hidden_act") or "silu")
    T = len(tokens)
    x = W["model.embed_tokens.weight"][tokens]
    if gemma:
        x = x * math.sqrt(d)
    scale = cfg["query_pre_attn_scalar"] ** -0.5 if mt == "gemma2" else hd ** -0.5
    softcap = cfg.get("attn_logit_softcapping") or 0.0
    probs = []
    EXTRA["hidden"], EXTRA["q_pairs"], EXTRA["k_pairs"] = [x], [], []
    o_name = "self_attn.dense" if mt == "phi" else "self_attn.o_proj"
    for l in range(count_layers(W, "model.layers.%d." + o_name + ".weight")):
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
        if rope is not None:
            cos, sin, rotary, interleaved = rope
            for name, m in (("q_pairs", q), ("k_pairs", k)):  # RMS over tokens of each pair's norm, before rotating
                r = m[..., :rotary]
                a1, a2 = (r[..., 0::2], r[..., 1::2]) if interleaved else (r[..., :rotary // 2], r[..., rotary // 2:])
                EXTRA[name].append((a1 ** 2 + a2 ** 2).mean(0).sqrt())
            q, k = rotate(q, cos, sin, rotary, interleaved), rotate(k, cos, sin, rotary, interleaved)
        types = cfg.get("layer_types")
        sliding = types[l] == "sliding_attention" if types else mt in ("mistral", "mixtral", "starcoder2", "phi3")
        o, pr = attention(q, k, v, scale, (cfg.get("sliding_window") or 0) if sliding else 0, softcap)
        probs.append(pr)
        attn = lin(o_name, o)
        if mt == "phi":  # parallel: attention and MLP of the same normed input
            x = attn + lin("mlp.fc2", f(lin("mlp.fc1", a))) + x
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
        EXTRA["hidden"].append(x)
    if mt == "phi":
        x = F.layer_norm(x, (d,), W["model.final_layernorm.weight"], W["model.final_layernorm.bias"], eps)
    elif layer_norm:
        x = F.layer_norm(x, (d,), W["model.norm.weight"], W["model.norm.bias"], eps)
    else:
        x = rms(x, W["model.norm.weight"], eps, gemma)
    EXTRA["hidden"][-1] = x  # hidden_states ends with the final norm's output
    logits = x @ W.get("lm_head.weight", W["model.embed_tokens.weight"]).T
    if "lm_head.bias" in W:
        logits = logits + W["lm_head.bias"]
    if cfg.get("final_logit_softcapping"):
        cap = cfg["final_logit_softcapping"]
        logits = torch.tanh(logits / cap) * cap
    return logits, probs


def moe(W, p, a, top_k, f):
    """MixtralSparseMoeBlock: softmax router, top-k renormalised, experts added in index order."""
    router = (a @ W[p + "block_sparse_moe.gate.weight"].T).softmax(-1)
    weights, chosen = router.topk(top_k, dim=-1)
    weights = weights / weights.sum(-1, keepdim=True)
    out = torch.zeros_like(a)
    for e in range(W[p + "block_sparse_moe.gate.weight"].shape[0]):
        e_p = p + "block_sparse_moe.experts.%d." % e
        for t in range(a.shape[0]):
            for j in range(top_k):
                if chosen[t, j] == e:
                    y = (f(a[t] @ W[e_p + "w1.weight"].T) * (a[t] @ W[e_p + "w3.weight"].T)) @ W[e_p + "w2.weight"].T
                    out[t] += weights[t, j] * y
    return out


def neox(W, cfg, tokens, rope):
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    hd, eps, T = d // H, cfg.get("layer_norm_eps", 1e-5), len(tokens)
    f = act(cfg.get("hidden_act", "gelu"))
    x = W["gpt_neox.embed_in.weight"][tokens]
    probs = []
    for l in range(count_layers(W, "gpt_neox.layers.%d.attention.dense.weight")):
        p = "gpt_neox.layers.%d." % l

        def lin(name, a):
            return a @ W[p + name + ".weight"].T + W[p + name + ".bias"]

        def ln(name, a):
            return F.layer_norm(a, (d,), W[p + name + ".weight"], W[p + name + ".bias"], eps)
        q, k, v = lin("attention.query_key_value", ln("input_layernorm", x)).reshape(T, H, 3 * hd).chunk(3, dim=-1)
        if rope is not None:
            cos, sin, rotary, _ = rope
            q, k = rotate(q, cos, sin, rotary), rotate(k, cos, sin, rotary)
        o, pr = attention(q, k, v, hd ** -0.5)
        probs.append(pr)
        attn = lin("attention.dense", o)
        if cfg.get("use_parallel_residual", True):
            x = lin("mlp.dense_4h_to_h", f(lin("mlp.dense_h_to_4h", ln("post_attention_layernorm", x)))) + attn + x
        else:
            x = x + attn
            x = x + lin("mlp.dense_4h_to_h", f(lin("mlp.dense_h_to_4h", ln("post_attention_layernorm", x))))
    x = F.layer_norm(x, (d,), W["gpt_neox.final_layer_norm.weight"], W["gpt_neox.final_layer_norm.bias"], eps)
    return x @ W["embed_out.weight"].T, probs


def gptj(W, cfg, tokens, rope):
    d, H = cfg["n_embd"], cfg["n_head"]
    hd, eps, T = d // H, cfg.get("layer_norm_epsilon", 1e-5), len(tokens)
    f = act(cfg.get("activation_function", "gelu_new"))
    x = W["transformer.wte.weight"][tokens]
    probs = []
    for l in range(count_layers(W, "transformer.h.%d.ln_1.weight")):
        p = "transformer.h.%d." % l
        a = F.layer_norm(x, (d,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        q, k, v = ((a @ W[p + "attn.%s_proj.weight" % n].T).reshape(T, H, hd) for n in "qkv")
        if rope is not None:
            cos, sin, rotary, _ = rope
            q, k = rotate(q, cos, sin, rotary, True), rotate(k, cos, sin, rotary, True)
        o, pr = attention(q, k, v, hd ** -0.5)
        probs.append(pr)
        mlp = (f(a @ W[p + "mlp.fc_in.weight"].T + W[p + "mlp.fc_in.bias"]) @ W[p + "mlp.fc_out.weight"].T +
               W[p + "mlp.fc_out.bias"])
        x = o @ W[p + "attn.out_proj.weight"].T + mlp + x
    x = F.layer_norm(x, (d,), W["transformer.ln_f.weight"], W["transformer.ln_f.bias"], eps)
    return x @ W["lm_head.weight"].T + W["lm_head.bias"], probs


def opt(W, cfg, tokens, positions):
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    hd, T = d // H, len(tokens)
    f = act(cfg.get("activation_function", "relu"))
    table = W["model.decoder.embed_positions.weight"]
    for pos in positions:
        if pos + 2 >= table.shape[0]:
            raise IndexError("index %d is out of bounds for dimension 0 with size %d" % (pos + 2, table.shape[0]))
    x = W["model.decoder.embed_tokens.weight"][tokens] + table[[pos + 2 for pos in positions]]
    probs = []
    for l in range(count_layers(W, "model.decoder.layers.%d.fc1.weight")):
        p = "model.decoder.layers.%d." % l

        def lin(name, a):
            return a @ W[p + name + ".weight"].T + W[p + name + ".bias"]

        def ln(name, a):
            return F.layer_norm(a, (d,), W[p + name + ".weight"], W[p + name + ".bias"], 1e-5)
        a = ln("self_attn_layer_norm", x)
        q, k, v = (lin("self_attn.%s_proj" % n, a).reshape(T, H, hd) for n in "qkv")
        o, pr = attention(q, k, v, hd ** -0.5)
        probs.append(pr)
        x = x + lin("self_attn.out_proj", o)
        x = x + lin("fc2", f(lin("fc1", ln("final_layer_norm", x))))
    x = F.layer_norm(x, (d,), W["model.decoder.final_layer_norm.weight"], W["model.decoder.final_layer_norm.bias"],
                     1e-5)
    return x @ W.get("lm_head.weight", W["model.decoder.embed_tokens.weight"]).T, probs


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
    mt = cfg["model_type"]
    if mt == "gpt2":
        logits, probs = gpt2(W, cfg, tokens, positions)
    elif mt == "opt":
        logits, probs = opt(W, cfg, tokens, positions)
    else:
        c = dict(cfg)
        if rope_scaling == "none":
            c.pop("rope_scaling", None)
        elif rope_scaling != "config":
            c["rope_scaling"] = rope_scaling
        _, rotary, _, _, inv, att = ref_rope(c, max(positions) + 1)
        angle = torch.tensor(positions, dtype=torch.float64)[:, None] * inv[None, :]
        rope = None if drop else (angle.cos() * att, angle.sin() * att, rotary, mt == "gptj")
        run = {"gpt_neox": neox, "gptj": gptj}.get(mt, decoder)
        logits, probs = run(W, c, tokens, rope)
    target = torch.tensor(tokens[1:])
    nll = torch.logsumexp(logits[:-1], -1) - logits[:-1].gather(1, target[:, None])[:, 0]
    return nll, logits, probs
