#!/usr/bin/env python3
"""The demo models' held-out loss by position under each rope_scaling, as ropeviz-cli's forward op computes it
(docs/run-it.md): windows of web/models/heldout.txt, the mean NLL (nats per byte) over positions 64-511,
600-1023 and 1024-2047. Usage: loss_by_position.py [CLI] [--windows N] [--length T] [--jobs J]."""
import argparse
import concurrent.futures
import json
import os
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODELS = os.path.join(ROOT, "web", "models")
RANGES = [(64, 511), (600, 1023), (1024, 2047)]


def scalings(original):
    return [("no scaling", "none"),
            ("llama3 x4", {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": original,
                           "low_freq_factor": 1.0, "high_freq_factor": 4.0}),
            ("yarn x4", {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": original}),
            ("dynamic x4", {"rope_type": "dynamic", "factor": 4.0}),
            ("linear x4", {"rope_type": "linear", "factor": 4.0})]


def nll(cli, model, tokens, scaling):
    with open(os.path.join(MODELS, model, "config.json")) as f:
        cfg = json.load(f)
    req = {"op": "forward", "file": os.path.join(MODELS, model, "model.safetensors"), "config": cfg, "tokens": tokens}
    if scaling is not None:
        req["rope_scaling"] = scaling
    out = subprocess.run([cli, "eval"], input=json.dumps(req) + "\n", capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli", nargs="?", default=os.path.join(ROOT, "build", "native", "ropeviz-cli"))
    ap.add_argument("--windows", type=int, default=8)
    ap.add_argument("--length", type=int, default=2048)
    ap.add_argument("--jobs", type=int, default=2)
    o = ap.parse_args()
    with open(os.path.join(MODELS, "heldout.txt"), "rb") as f:
        text = f.read()
    step = (len(text) - o.length) // o.windows
    windows = [list(text[i * step:i * step + o.length]) for i in range(o.windows)]
    runs = ([("llama-bytes", name, s) for name, s in scalings(512)] +
            [("llama-bytes-pi4", "its config (linear x4)", None)])
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as pool:
        futures = {(m, name, w): pool.submit(nll, o.cli, m, win, s)
                   for m, name, s in runs for w, win in enumerate(windows)}
        print("%-16s %-24s %s" % ("model", "scaling", "  ".join("%d-%d" % r for r in RANGES)))
        for m, name, _ in runs:
            sums = [0.0] * len(RANGES)
            for w in range(len(windows)):
                loss = futures[(m, name, w)].result()["nll"]  # nll[t] predicts token t + 1
                for i, (lo, hi) in enumerate(RANGES):
                    part = loss[lo - 1:hi]
                    sums[i] += sum(part) / len(part) / len(windows)
            print("%-16s %-24s %s" % (m, name, "  ".join("%7.3f" % x for x in sums)))


if __name__ == "__main__":
    main()
