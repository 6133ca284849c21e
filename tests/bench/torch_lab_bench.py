#!/usr/bin/env python3
"""PyTorch CPU reference for one lab training step, to compare with rv_bench's BM_lab_train_step/prototype (tokens per
second). The tiny decoder (docs/lab.md) in float32 on one thread: d_model 64,
4 heads, 2 layers, d_ff 256, vocab 11, copy task with sizes n drawn uniformly from 1..8 (inputs of 2n tokens), batch 32,
AdamW (lr 3e-3, weight decay 0.01).
Two ways to feed a batch: "grouped" runs one forward per size present (the rows of one size share a [rows, 2n] batch,
as the lab did before its batched engine) and one backward of the summed loss; "padded" pads every row to the longest
and runs one forward (pad positions are ignored targets; causal attention keeps them out of the real tokens). Tokens
are input tokens without the padding, as the lab counts them. Usage: torch_lab_bench.py [--methods rope,alibi,...]
[--steps N] [--repeats R]; prints the median tokens/s of R timed runs of N steps per method and mode, by wall time
and by CPU time (steadier on a shared machine; rv_bench prints both times too).
torch_lab_bench.py --lab [--lab-flags "FLAGS"] [--repeats R] [--threads N]: the lab script itself
(src/core/lab/ropeviz_lab.py, its default experiment, 6 methods x 3 seeds, or the lab flags given), trained --batched
and --no-batched alternately R times in this process on the CPU in N threads (run it with OPENBLAS_NUM_THREADS=N too):
the median seconds of each, wall and CPU, their ratio, and the largest difference between the two documents."""
import argparse
import contextlib
import importlib.util
import io
import json
import math
import os
import sys
import tempfile
import time

try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

V, SEP, D, H, L, FF, BATCH, TRAIN_LEN = 11, 10, 64, 4, 2, 256, 32, 8
DH = D // H
MAX_T = 2 * TRAIN_LEN


def get_slopes(n):  # Press et al. (a power of two here)
    start = 2 ** (-2 ** -(math.log2(n) - 3))
    return [start * start ** i for i in range(n)]


def t5_bucket(r):  # T5's causal bucket of distance r >= 0, 32 buckets, max distance 128
    large = 16 + (torch.log(r.clamp(min=1).float() / 16) / math.log(8) * 16).long()
    return torch.where(r < 16, r, large.clamp(max=31))


class Decoder(torch.nn.Module):
    def __init__(self, position):
        super().__init__()
        self.position = position
        p = torch.nn.Parameter
        self.tok_emb = p(torch.randn(V, D))
        self.pos_emb = p(torch.randn(MAX_T, D)) if position == "learned" else None
        self.layers = torch.nn.ModuleList()
        for _ in range(L):
            m = torch.nn.Module()
            m.norm1, m.norm2 = p(torch.ones(D)), p(torch.ones(D))
            m.wq, m.wk, m.wv, m.wo = (p(0.02 * torch.randn(D, D)) for _ in range(4))
            m.w1, m.w2 = p(0.02 * torch.randn(D, FF)), p(0.02 * torch.randn(FF, D))
            self.layers.append(m)
        self.rel_bias = p(torch.zeros(32, H)) if position == "t5" else None
        self.norm_f, self.head = p(torch.ones(D)), p(0.02 * torch.randn(D, V))
        t = torch.arange(MAX_T)
        self.register_buffer("rel", (t[:, None] - t[None, :]).clamp(min=0))  # i - j
        self.register_buffer("causal", t[None, :] > t[:, None])
        self.register_buffer("slopes", torch.tensor(get_slopes(H))[:, None, None])
        inv = 1.0 / 10000 ** (torch.arange(0, DH, 2).float() / DH)
        ang = torch.outer(t.float(), inv)  # [T, DH/2], interleaved pairs
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())
        i2 = torch.arange(0, D, 2).float()
        pe = torch.zeros(MAX_T, D)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(t[:, None] / 10000 ** (i2 / D)), torch.cos(t[:, None] / 10000 ** (i2 / D))
        self.register_buffer("pe", pe)

    def rope(self, x):  # [B, H, T, DH], pairs (2i, 2i+1)
        T = x.shape[2]
        a, b = x[..., 0::2], x[..., 1::2]
        c, s = self.cos[:T], self.sin[:T]
        return torch.stack((a * c - b * s, a * s + b * c), dim=-1).flatten(-2)

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w

    def forward(self, x):  # x [B, T] -> logits [B, T, V]
        B, T = x.shape
        h = self.tok_emb[x]
        if self.position == "learned":
            h = h + self.pos_emb[:T]
        if self.position == "sinusoidal":
            h = h + self.pe[:T]
        bias = 0.0
        if self.position == "alibi":
            bias = -self.slopes * self.rel[:T, :T]
        if self.position == "t5":
            bias = self.rel_bias[t5_bucket(self.rel[:T, :T])].permute(2, 0, 1)
        mask = self.causal[:T, :T]
        for m in self.layers:
            a = self.rms(h, m.norm1)
            q, k, v = ((a @ w).view(B, T, H, DH).transpose(1, 2) for w in (m.wq, m.wk, m.wv))
            if self.position == "rope":
                q, k = self.rope(q), self.rope(k)
            s = (q @ k.transpose(-1, -2)) / math.sqrt(DH) + bias
            o = (torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1) @ v).transpose(1, 2).reshape(B, T, D)
            h = h + o @ m.wo
            h = h + F.gelu(self.rms(h, m.norm2) @ m.w1) @ m.w2
        return self.rms(h, self.norm_f) @ self.head


def copy_rows(n, rows, g):  # x1..xn SEP x1..xn: inputs [rows, 2n], targets the copy
    xs = torch.randint(0, 10, (rows, n), generator=g)
    full = torch.cat((xs, torch.full((rows, 1), SEP), xs), dim=1)
    tgt = full[:, 1:].clone()
    tgt[:, :n] = -1
    return full[:, :-1], tgt


def step_batch(g):  # sizes 1..8 uniformly, as the lab draws them; [(inputs, targets)] per size
    sizes = torch.randint(1, TRAIN_LEN + 1, (BATCH,), generator=g)
    return [copy_rows(n, int((sizes == n).sum()), g) for n in range(1, TRAIN_LEN + 1) if (sizes == n).any()]


def loss_grouped(model, groups):
    total = sum(F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1), ignore_index=-1, reduction="sum")
                for x, y in groups)
    return total / sum(int((y >= 0).sum()) for _, y in groups)


def loss_padded(model, groups):
    T = max(x.shape[1] for x, _ in groups)
    x = torch.cat([F.pad(x, (0, T - x.shape[1])) for x, _ in groups])
    y = torch.cat([F.pad(y, (0, T - y.shape[1]), value=-1) for _, y in groups])
    return F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1), ignore_index=-1)


def run(position, mode, steps, seed):
    torch.manual_seed(seed)
    model = Decoder(position)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    g = torch.Generator().manual_seed(seed)
    loss_fn = loss_grouped if mode == "grouped" else loss_padded
    batches = [step_batch(g) for _ in range(steps + 3)]
    for groups in batches[:3]:  # warm-up
        opt.zero_grad()
        loss_fn(model, groups).backward()
        opt.step()
    tokens = sum(x.numel() for groups in batches[3:] for x, _ in groups)
    t0, c0 = time.perf_counter(), time.process_time()
    for groups in batches[3:]:
        opt.zero_grad()
        loss = loss_fn(model, groups)
        loss.backward()
        opt.step()
    return tokens / (time.perf_counter() - t0), tokens / (time.process_time() - c0)


def numbers(doc):
    """Every number of a lab document but its timings, in order."""
    if isinstance(doc, dict):
        for k in sorted(doc):
            if k not in ("seconds", "tokens_per_s"):
                yield from numbers(doc[k])
    elif isinstance(doc, list):
        for x in doc:
            yield from numbers(x)
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        yield doc


def lab_bench(flags, repeats, threads):
    """--lab: the lab script's experiment --batched and --no-batched, side by side."""
    sys.dont_write_bytecode = True  # no __pycache__ beside the script
    spec = importlib.util.spec_from_file_location("ropeviz_lab", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "../../src/core/lab/ropeviz_lab.py"))
    lab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lab)
    times, docs = {"--batched": [], "--no-batched": []}, {}
    print("torch %s, %d thread%s, lab flags: %s" % (torch.__version__, threads, "" if threads == 1 else "s",
                                                   " ".join(flags) or "(the default experiment)"))
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for mode in times:
                out = os.path.join(tmp, "result.json")
                t0, c0 = time.perf_counter(), time.process_time()
                with contextlib.redirect_stdout(io.StringIO()):
                    lab.main(["--device", "cpu", "--print-every", "0", "--out", out, mode, *flags])
                times[mode].append((time.perf_counter() - t0, time.process_time() - c0))
                with open(out) as f:
                    docs[mode] = list(numbers(json.load(f)))
                print("%-12s %7.2f s wall, %7.2f s CPU" % (mode, *times[mode][-1]), flush=True)
    median = {mode: [sorted(t[i] for t in runs)[len(runs) // 2] for i in (0, 1)] for mode, runs in times.items()}
    for mode, (wall, cpu) in median.items():
        print("%-12s median %7.2f s wall, %7.2f s CPU (of %d)" % (mode, wall, cpu, repeats))
    a, b = docs["--batched"], docs["--no-batched"]
    print("--no-batched / --batched: %.2f wall, %.2f CPU; the documents' numbers differ by at most %s" % (
        median["--no-batched"][0] / median["--batched"][0], median["--no-batched"][1] / median["--batched"][1],
        "%.3g" % max(abs(x - y) for x, y in zip(a, b)) if len(a) == len(b) else "(other lengths)"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--methods", default="rope")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--lab", action="store_true", help="the lab script, --batched against --no-batched")
    ap.add_argument("--lab-flags", default="", help="the lab script's flags (default: its default experiment)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.lab:
        return lab_bench(args.lab_flags.split(), args.repeats, args.threads)
    print("torch %s, %d thread, d_model %d, %d heads, %d layers, d_ff %d, batch %d, copy n = 1..%d, AdamW" %
          (torch.__version__, torch.get_num_threads(), D, H, L, FF, BATCH, TRAIN_LEN))
    for position in args.methods.split(","):
        for mode in ("grouped", "padded"):
            runs = [run(position, mode, args.steps, r) for r in range(args.repeats)]
            wall, cpu = sorted(r[0] for r in runs), sorted(r[1] for r in runs)
            print("%-10s %-8s median %8.0f tokens/s wall (runs: %s), %8.0f tokens/s of CPU time" %
                  (position, mode, wall[len(wall) // 2], ", ".join("%.0f" % r for r in wall), cpu[len(cpu) // 2]))


if __name__ == "__main__":
    main()
