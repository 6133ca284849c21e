#!/usr/bin/env python3
"""The forward pass against PyTorch, side by side (the README's 'Run it'): llama-bytes (web/models) on 2,048 held-out
bytes, ropeviz-cli's forward op against the same model written in plain torch in float32 (tests/core/
forward_reference.py's decoder, its weights cast to float32), at the same thread counts; medians of RUNS. PyTorch's
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
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))

import torch  # noqa: E402

from forward_reference import decoder, load_safetensors, ref_rope  # noqa: E402


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
    _, rotary, _, _, inv, att = ref_rope(legacy, len(tokens))
    angle = torch.arange(len(tokens), dtype=torch.float64)[:, None] * inv[None, :]
    rope = ((angle.cos() * att).float(), (angle.sin() * att).float(), rotary, False)
    blas = "openblas" if os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3").find("openblas") >= 0 else "reference"
    print("llama-bytes, %d tokens, medians of %d runs (torch %s, BLAS: %s)" % (len(tokens), o.runs, torch.__version__,
                                                                                blas))
    req = {"op": "forward", "file": os.path.join(model, "model.safetensors"), "config": cfg, "tokens": tokens}
    for threads in [int(t) for t in o.threads.split(",")]:
        torch.set_num_threads(threads)
        with torch.no_grad():
            decoder(W, legacy, tokens, rope)  # warm-up
            t_torch = statistics.median(timed(lambda: decoder(W, legacy, tokens, rope)) for _ in range(o.runs))
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
