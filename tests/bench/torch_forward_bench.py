#!/usr/bin/env python3
"""The forward pass against PyTorch, side by side (docs/run-it.md): llama-bytes (web/models) on 2,048 held-out
bytes, ropeviz-cli's forward op against the same model written in plain torch in float32 (llama() below: batched
matmuls per layer, the causal mask, softmax), at the same thread counts; medians of RUNS. PyTorch's
anchor is torch with OpenBLAS (libopenblas0-pthread, which make setup installs): Debian's reference BLAS is ~7x slower.
Usage: torch_forward_bench.py [CLI] [--runs N] [--threads 1,2] [--tokens T]."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "src", "core", "infer"))  # ropeviz_run.py: what run-export writes

import torch  # noqa: E402

from ropeviz_run import load_safetensors, ref_rope  # noqa: E402


def llama(W, cfg, tokens, cos, sin):
    """LlamaForCausalLM's eager forward in float32, as a user would write it in torch: the NLL of each next token."""
    d, H, Hk = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps, T = cfg.get("head_dim") or d // H, cfg["rms_norm_eps"], len(tokens)
    ids = torch.tensor(tokens)
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)

    def rms(x, w):
        return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

    def rope(x):  # [heads, T, hd], rotate_half
        x1, x2 = x[..., :hd // 2], x[..., hd // 2:]
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
    x = W["model.embed_tokens.weight"][ids]
    layer = 0
    while "model.layers.%d.input_layernorm.weight" % layer in W:
        p = "model.layers.%d." % layer
        a = rms(x, W[p + "input_layernorm.weight"])
        q = rope((a @ W[p + "self_attn.q_proj.weight"].T).view(T, H, hd).transpose(0, 1))
        k = rope((a @ W[p + "self_attn.k_proj.weight"].T).view(T, Hk, hd).transpose(0, 1))
        v = (a @ W[p + "self_attn.v_proj.weight"].T).view(T, Hk, hd).transpose(0, 1)
        k, v = k.repeat_interleave(H // Hk, 0), v.repeat_interleave(H // Hk, 0)
        s = (q @ k.transpose(1, 2)) * hd ** -0.5
        o = (s.masked_fill(mask, float("-inf")).softmax(-1) @ v).transpose(0, 1).reshape(T, H * hd)
        x = x + o @ W[p + "self_attn.o_proj.weight"].T
        a = rms(x, W[p + "post_attention_layernorm.weight"])
        g = torch.nn.functional.silu(a @ W[p + "mlp.gate_proj.weight"].T) * (a @ W[p + "mlp.up_proj.weight"].T)
        x = x + g @ W[p + "mlp.down_proj.weight"].T
        layer += 1
    logits = rms(x, W["model.norm.weight"]) @ W["lm_head.weight"].T
    return torch.nn.functional.cross_entropy(logits[:-1], ids[1:], reduction="none")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli", nargs="?", default=os.path.join(ROOT, "build", "native", "ropeviz-cli"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--tokens", type=int, default=2048)
    o = ap.parse_args()
    model = os.path.join(ROOT, "web", "models", "llama-bytes")
    with open(os.path.join(model, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(ROOT, "web", "models", "heldout.txt"), "rb") as f:
        tokens = list(f.read()[:o.tokens])
    legacy = dict(cfg, rope_theta=cfg["rope_parameters"]["rope_theta"])
    W = {k: v.to(torch.float32) for k, v in load_safetensors(os.path.join(model, "model.safetensors")).items()}
    _, _, _, _, inv, _ = ref_rope(legacy, len(tokens))
    angle = torch.arange(len(tokens), dtype=torch.float32)[:, None] * inv.float()[None, :]
    cos, sin = angle.cos(), angle.sin()
    blas = ("openblas" if os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3").find("openblas") >= 0
            else "reference")
    print("llama-bytes, %d tokens, medians of %d runs (torch %s, BLAS: %s)" % (len(tokens), o.runs, torch.__version__,
                                                                                blas))
    req = {"op": "forward", "file": os.path.join(model, "model.safetensors"), "config": cfg, "tokens": tokens}
    for threads in [int(t) for t in o.threads.split(",")]:
        torch.set_num_threads(threads)
        with torch.no_grad():
            llama(W, legacy, tokens, cos, sin)  # warm-up
            t_torch = statistics.median(timed(lambda: llama(W, legacy, tokens, cos, sin)) for _ in range(o.runs))
        line = json.dumps(dict(req, threads=threads)) + "\n"
        t_cli = statistics.median(timed(lambda: subprocess.run([o.cli, "eval"], input=line, capture_output=True,
                                                               text=True, check=True)) for _ in range(o.runs))
        print("threads %d: ropeviz-cli %.2f s (the whole process: reading the weights too), torch float32 %.2f s: "
              "%.2fx torch's speed" % (threads, t_cli, t_torch, t_torch / t_cli))


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
