#!/usr/bin/env python3
"""A SmolLM2-135M-shaped checkpoint with random bf16 weights (30 layers, width 576, 9 heads of 64, 3 key heads, MLP
1,536, vocabulary 49,152, a tied head), written to DIR (model.safetensors and config.json), then ropeviz-cli's forward
on two windows of 1,024 tokens with THREADS threads: the wall time and the process's peak memory (docs/run-it.md).
Usage: smollm2_shaped.py DIR [CLI] [--threads 2]."""
import argparse
import json
import os
import resource
import struct
import subprocess
import sys
import time

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CONFIG = {"model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3,
          "head_dim": 64, "intermediate_size": 1536, "num_hidden_layers": 30, "vocab_size": 49152,
          "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "hidden_act": "silu", "tie_word_embeddings": True,
          "rope_parameters": {"rope_theta": 100000.0, "rope_type": "default"}}


def write(folder):
    g = torch.Generator().manual_seed(0)
    c = CONFIG
    d, inner, hd = c["hidden_size"], c["intermediate_size"], c["head_dim"]
    shapes = {"model.embed_tokens.weight": [c["vocab_size"], d], "model.norm.weight": [d]}
    for l in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % l
        shapes.update({p + "input_layernorm.weight": [d], p + "post_attention_layernorm.weight": [d],
                       p + "self_attn.q_proj.weight": [c["num_attention_heads"] * hd, d],
                       p + "self_attn.k_proj.weight": [c["num_key_value_heads"] * hd, d],
                       p + "self_attn.v_proj.weight": [c["num_key_value_heads"] * hd, d],
                       p + "self_attn.o_proj.weight": [d, c["num_attention_heads"] * hd],
                       p + "mlp.gate_proj.weight": [inner, d], p + "mlp.up_proj.weight": [inner, d],
                       p + "mlp.down_proj.weight": [d, inner]})
    header, blobs, offset = {}, [], 0
    for name in sorted(shapes):
        shape = shapes[name]
        x = torch.ones(shape) if len(shape) == 1 else torch.randn(shape, generator=g) * (1.2 / shape[-1] ** 0.5)
        raw = (x.to(torch.float32).view(torch.int32) >> 16).to(torch.int16).numpy().tobytes()  # bf16, truncated
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for b in blobs:
            f.write(b)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(CONFIG, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("cli", nargs="?", default=os.path.join(ROOT, "build", "native", "ropeviz-cli"))
    ap.add_argument("--threads", type=int, default=2)
    o = ap.parse_args()
    if not os.path.exists(os.path.join(o.dir, "model.safetensors")):
        write(o.dir)
    g = torch.Generator().manual_seed(1)
    lines = "".join(json.dumps({"op": "forward", "file": o.dir, "threads": o.threads,
                                "tokens": torch.randint(0, 49152, (1024,), generator=g).tolist()}) + "\n"
                    for _ in range(2))
    t0 = time.perf_counter()
    p = subprocess.run([o.cli, "eval"], input=lines, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    answers = [json.loads(line) for line in p.stdout.splitlines()]
    ok = len(answers) == 2 and all(len(a.get("nll", [])) == 1023 for a in answers)
    print("SmolLM2-135M-shaped (random bf16, %.0f MB), 2 windows of 1,024 tokens, %d threads: %.2f s, peak memory "
          "%.0f MB%s" % (os.path.getsize(os.path.join(o.dir, "model.safetensors")) / 1e6, o.threads, seconds, peak,
                         "" if ok else " (FAILED: %s)" % p.stdout[:300]))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
