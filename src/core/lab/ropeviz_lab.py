#!/usr/bin/env python3
"""ropeviz's extrapolation lab in PyTorch: train a tiny decoder with each position method (learned, sinusoidal, rope,
alibi, t5, none) on a synthetic task at sizes 1..train_len, then measure it at sizes 1..4*train_len.

Written by `ropeviz-cli lab-export DIR [lab flags]` (or the PyTorch button of the app's Lab panel). The run it was
given is the DEFAULTS line below, the one line the export writes: the defaults of this script's flags.
`python3 ropeviz_lab.py --print-command` prints the same run as a `ropeviz-cli lab` command (the C++ run, as the app's
Lab panel trains it).

Everything is ported from the C++ (the repository's docs/lab.md has the model): the random stream and so every batch,
the initial weights, AdamW and the learning-rate schedule. On the CPU in float32 the training losses agree with the
C++ ones to about 2e-6 over the first 50 steps. The two add numbers up in different orders, so float32 rounding makes
them drift apart: slowly while training is calm, visibly within a few hundred steps where it is not (alibi and none
on copy), so a long run agrees with the app's in character, not to the last digit (--dtype float64 shows how much of a
curve is rounding).
--data ropeviz_lab_data.json starts from the weights the C++ wrote (the same as --init lab draws) and checks that the
batches it holds are the ones generated here.
The runs (one per method and seed) are trained batched (--batched, the default): each method's seeds as one model
whose weights are stacked along a run axis, one forward, backward and AdamW step a step for all, each run with its own
batch, loss and update (a run that reaches the bar leaves the stack unchanged), so the document is the one
--no-batched (the runs one after another) writes: equal to 1e-9 in float64, within float32 rounding in float32 (on
the CPU both are equal bit for bit). Small models pay per operation, so this is faster on a GPU, and on the CPU too.

    python3 ropeviz_lab.py                        # this run, on a GPU when torch.cuda.is_available()
    python3 ropeviz_lab.py --device cpu --data ropeviz_lab_data.json --out result.json
    python3 ropeviz_lab.py --methods rope,alibi --train-len 16 --d-model 128 --layers 4 --steps 5000 --init torch
    python3 ropeviz_lab.py --print-command        # this run as `ropeviz-cli lab ...`, then exit

Past one machine (docs/lab.md, 'Past one machine'): under `torchrun --nproc-per-node N` (and --nnodes), or with
--nproc N (N local processes through torch.multiprocessing, the same env:// rendezvous, where torchrun is missing),
the runs (one per method and seed) are shared out, run i to rank i % world size (each rank batching its own runs of
a method), and rank 0 writes the one document, the one a single process writes (its seconds and tokens_per_s
aside). With --ddp each run (each method's batch of runs) is instead trained by all ranks, data-parallel
(DistributedDataParallel: every batch split across them; gloo on CPUs, nccl on GPUs, where rank r uses
cuda:LOCAL_RANK), its losses within rounding of one process's; rank 0 checks the bar and evaluates, and the document
also holds "world_size". A world of one is a valid --ddp run (torchrun --nproc-per-node 1, --nproc 1).
--device cuda with no GPU, or nccl with more processes on a machine than GPUs, is refused before any process starts.
When a rank fails, the run stops and prints that rank's own error.

    python3 ropeviz_lab.py --nproc 2 --device cpu          # two processes share the runs out
    torchrun --nproc-per-node 8 ropeviz_lab.py --device cuda --ddp

The environment variable ROPEVIZ_LAB_FAIL_RANK=R is a test hook: rank R raises RuntimeError at its first run.

Needs only Python 3 and PyTorch, and uses only PyTorch's public API. CHECKED_WITH below says which PyTorch versions
ran it, and how. Every flag's default is this run's setting (--help lists them).
"""
import argparse
import copy
import datetime
import json
import math
import os
import signal
import socket
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

# The run `ropeviz-cli lab-export` was given, the flags' defaults: the only line that depends on it.
DEFAULTS = {"task": "copy", "methods": "learned,sinusoidal,rope,alibi,t5,none", "train_len": 3, "table_len": 0, "steps": 2000, "seed": 0, "seeds": 3, "positions": "sequential", "position_range": 0, "d_model": 32, "heads": 4, "layers": 3, "d_ff": 64, "batch": 128, "lr": 0.006, "weight_decay": 0.01, "warmup": 100, "eval_count": 100, "check_every": 50, "base": 10000.0, "pairing": "interleaved", "rope_scaling": "none", "rope_factor": 4.0}  # ropeviz-cli lab-export writes this line
METHODS = ["learned", "sinusoidal", "rope", "alibi", "t5", "none"]
TASKS = ["copy", "reverse", "repeat"]
SCALINGS = ["none", "linear", "dynamic", "yarn"]  # Hugging Face's rope_type names, as the C++'s
SCALING_ALIASES = {"pi": "linear", "ntk": "dynamic"}  # the lab's old names, still read
SYMBOLS, SEP, VOCAB = 10, 10, 11  # symbols 0..9 and the separator
REPEAT_PERIOD = 3
BAR = 0.95            # exact match a method must reach at every training size to stop early
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128
INIT_STD, EMB_STD = 0.02, 1.0  # matrices N(0, 0.02^2); tok_emb and pos_emb N(0, 1) like nn.Embedding
EVAL_ROWS = 1024      # tokens per evaluation chunk (as the C++)
LAUNCH_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR")  # what torchrun sets in each process it starts
# The PyTorch versions this script was run with, and what ran there.
CHECKED_WITH = ("1.13.1 (Debian 12, CPU): every path, by ropeviz's tests, the failure paths included; "
                "2.11 (CUDA 13, one H200): one process, shared runs under torchrun and --ddp over 2 CPU processes, "
                "before the failure paths were rewritten on public API and the runs batched")
FAIL_RANK = "ROPEVIZ_LAB_FAIL_RANK"  # a test hook: the rank it names raises RuntimeError at its first run


# ---- The random stream: rv::NormalRng and rv::lab_seed, bit for bit ----------------------------------------
MASK64 = (1 << 64) - 1


class NormalRng:
    """splitmix64 for uniforms and Marsaglia's polar method (with portable_log) for normals: the same numbers as the
    C++ on every machine, so the script draws exactly the batches the app trains on."""

    def __init__(self, seed):
        self.state = seed & MASK64
        self.spare = None

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):  # in [0, 1): 53 random bits
        return (self.next_u64() >> 11) * 2.0 ** -53

    def normal(self):  # N(0, 1)
        if self.spare is not None:
            x, self.spare = self.spare, None
            return x
        while True:  # (u, v) uniform in the unit disc
            u = 2.0 * self.uniform() - 1.0
            v = 2.0 * self.uniform() - 1.0
            s = u * u + v * v
            if 0.0 < s < 1.0:
                break
        f = math.sqrt(-2.0 * portable_log(s) / s)
        self.spare = v * f
        return u * f


def portable_log(x):
    """ln(x) for x > 0 with + - * / only (the C++'s, so that normals agree to the last bit everywhere)."""
    m, e = math.frexp(x)  # x = m * 2^e, m in [0.5, 1)
    if m < 0.70710678118654752440:
        m, e = m * 2.0, e - 1  # m in [sqrt(1/2), sqrt(2))
    s = (m - 1.0) / (m + 1.0)  # ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...)
    s2, term, total = s * s, s, 0.0
    for k in range(1, 30, 2):
        total += term / k
        term *= s2
    ln2_hi, ln2_lo = 6.93147180369123816490e-01, 1.90821492927058770002e-10
    return (e * ln2_hi + 2.0 * total) + e * ln2_lo


def lab_seed(seed, stream, index=0):
    """The seed of one of a run's streams: init (0), training step (1, step), evaluation size (2, n), a training step's
    positions (3, step), an evaluation size's positions (4, n)."""
    k = 0x9E3779B97F4A7C15
    return NormalRng((((seed * k + stream) * k + index) * k) & MASK64).next_u64()


# ---- Tasks -------------------------------------------------------------------------------------------------
def input_len(task, n):
    """Tokens the model reads for a task instance of size n."""
    return n + REPEAT_PERIOD - 1 if task == "repeat" else 2 * n


def sequence(task, n, rng):
    """One task instance of size n: (inputs, targets), each input_len(task, n) long; target -1 means no loss there.
      copy     x1..xn SEP x1..xn     reverse  x1..xn SEP xn..x1
      repeat   p1 p2 p3 p1 p2 p3 ... to n + 3 tokens: every answer is the token 3 places back"""
    drawn = REPEAT_PERIOD if task == "repeat" else n
    x = [int(rng.uniform() * SYMBOLS) for _ in range(drawn)]
    if task == "repeat":
        full = [x[i % REPEAT_PERIOD] for i in range(n + REPEAT_PERIOD)]
    else:
        full = x + [SEP] + (x if task == "copy" else x[::-1])
    first_answer = REPEAT_PERIOD if task == "repeat" else n + 1
    targets = [full[i] if i >= first_answer else -1 for i in range(1, len(full))]
    return full[:-1], targets


def train_batch(o, step):
    """Training step `step`'s sequences (rv::lab_train_batch): o.batch sizes drawn uniformly from 1..train_len, then
    the rows of each size present, in increasing size, from a stream of their own."""
    rng = NormalRng(lab_seed(o.seed, 1, step))
    rows_of_size = [0] * (o.train_len + 1)
    for _ in range(o.batch):
        rows_of_size[1 + int(rng.uniform() * o.train_len)] += 1
    rows = []
    for n in range(1, o.train_len + 1):
        if rows_of_size[n]:
            sizes = NormalRng(rng.next_u64())
            rows += [sequence(o.task, n, sizes) for _ in range(rows_of_size[n])]
    return rows


def position_range(o):
    """R of random positions (rv::lab_position_range): --position-range, or 4 x the longest test input; 0 when
    sequential."""
    if o.positions != "random":
        return 0
    return o.position_range or 4 * input_len(o.task, 4 * o.train_len)


def sample_positions(rng, T, R):
    """T distinct positions drawn uniformly from [0, R), sorted (rv::lab_sample_positions: Floyd's sampling)."""
    out = []
    for j in range(R - T, R):
        t = int(rng.uniform() * (j + 1))
        out.append(j if t in out else t)
    return sorted(out)


def place(rows, R, seed):
    """Each row's positions, drawn in order from one stream: sorted random ones in [0, R), or None at R = 0 (0..T-1)."""
    if not R:
        return None
    rng = NormalRng(seed)
    return [sample_positions(rng, len(x), R) for x, _ in rows]


def train_positions(o, step, rows):
    """Training step `step`'s positions: random ones from the stream (3, step), else None."""
    return place(rows, position_range(o), lab_seed(o.seed, 3, step))


def eval_rows(o, n):
    """The o.eval_count evaluation sequences of size n (the same at every check and in the final evaluation)."""
    rng = NormalRng(lab_seed(o.seed, 2, n))
    return [sequence(o.task, n, rng) for _ in range(o.eval_count)]


def to_tensors(batches, T, device):
    """Each run's rows [(inputs, targets)] and positions (None, or a list a row) as [runs, B, T] tensors, every row
    padded on the right to T (token 0, target -1, position 0): causal attention keeps the padding out of every real
    position, and the loss ignores it. Positions: None, or a [runs, B, T] tensor."""
    def pad(lists, fill):
        return [x + [fill] * (T - len(x)) for x in lists]
    tokens = torch.tensor([pad([x for x, _ in rows], 0) for rows, _ in batches], device=device)
    targets = torch.tensor([pad([y for _, y in rows], -1) for rows, _ in batches], device=device)
    positions = None if batches[0][1] is None else torch.tensor([pad(p, 0) for _, p in batches], device=device)
    return tokens, targets, positions


# ---- The model (docs/lab.md) ---------------------------------------------------------------------------------
def alibi_slopes(heads):
    """Press et al.'s get_slopes: 2^(-8(n+1)/heads) for a power of two, else the closest power of two's slopes followed
    by every other slope of twice that many."""
    p = 1 << (heads.bit_length() - 1)
    slopes = [2.0 ** (-8.0 * (n + 1) / p) for n in range(p)]
    return slopes if p == heads else slopes + alibi_slopes(2 * p)[0::2][:heads - p]


def t5_bucket(r):
    """T5's causal bucket of a distance r = i - j >= 0: exact below 16, then logarithmic up to 128."""
    if r < T5_BUCKETS // 2:
        return r
    large = 16.0 + math.floor(math.log(r / 16.0) / math.log(T5_MAX_DISTANCE / 16.0) * 16.0)
    return min(T5_BUCKETS - 1, int(large))


def rope_theta(d_head, base):
    """theta_i = 1 / base^(2i/d_head), in the C++'s (and transformers') operation order."""
    return [1.0 / base ** ((2 * k) / d_head) for k in range(d_head // 2)]


def scaled_rope(o):
    """The frequencies and the cos/sin factor rope is evaluated with under --rope-scaling (transformers' semantics, as
    the C++'s rope_scaled_inv_freq): linear divides theta by the factor; dynamic (NTK) raises the base for the longest
    evaluation input over the longest training input; yarn ramps between theta and theta / factor over the pairs
    that turn between 1 and 32 times in the training length and multiplies cos and sin by 0.1 ln(factor) + 1."""
    d_head, base, factor = o.d_model // o.heads, o.base, o.rope_factor
    trained, longest = input_len(o.task, o.train_len), input_len(o.task, 4 * o.train_len)
    theta = rope_theta(d_head, base)
    if o.rope_scaling == "linear":
        return [t / factor for t in theta], 1.0
    if o.rope_scaling == "dynamic":
        L = max(longest, trained)
        return rope_theta(d_head, base * ((factor * L / trained) - (factor - 1.0)) ** (d_head / (d_head - 2))), 1.0
    # yarn, beta_fast 32 and beta_slow 1, the correction range floored and ceiled
    def correction_dim(rotations):
        return (d_head * math.log(trained / (rotations * 2.0 * math.pi))) / (2.0 * math.log(base))
    low, high = max(math.floor(correction_dim(32.0)), 0.0), min(math.ceil(correction_dim(1.0)), float(d_head - 1))
    if low == high:
        high += 0.001
    out = []
    for i in range(d_head // 2):
        pos_freq = base ** ((2 * i) / d_head)
        extrapolation_factor = 1.0 - min(1.0, max(0.0, (i - low) / (high - low)))
        out.append((1.0 / (factor * pos_freq)) * (1.0 - extrapolation_factor) + (1.0 / pos_freq) * extrapolation_factor)
    return out, 0.1 * math.log(factor) + 1.0


def position_tables(position, T, d_model, heads, base, pairing, rope=None):
    """Everything that depends on positions only, for T positions, in float64 with Python's math (as the C++ computes
    them; the model rounds them to its dtype). causal [T, T]: True where j > i (masked). rope: (theta, factor) in
    place of base's theta (scaled_rope)."""
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    tables = {"causal": j > i}
    if position == "sinusoidal":  # PE(t, 2i) = sin(t / 10000^(2i/d)), PE(t, 2i+1) = cos(t / 10000^(2i/d))
        pe = torch.zeros(T, d_model, dtype=torch.float64)
        for c in range(0, d_model, 2):
            denom = 10000.0 ** (c / d_model)
            pe[:, c] = torch.tensor([math.sin(t / denom) for t in range(T)], dtype=torch.float64)
            if c + 1 < d_model:
                pe[:, c + 1] = torch.tensor([math.cos(t / denom) for t in range(T)], dtype=torch.float64)
        tables["pe"] = pe
    if position == "rope":  # angle(t, i) = t * theta_i, theta_i = base^(-2i/d_head); cos and sin times a factor
        theta, f = rope or (rope_theta(d_model // heads, base), 1.0)
        tables["cos"] = torch.tensor([[math.cos(t * th) * f for th in theta] for t in range(T)], dtype=torch.float64)
        tables["sin"] = torch.tensor([[math.sin(t * th) * f for th in theta] for t in range(T)], dtype=torch.float64)
    if position == "alibi":  # -slope_n * (i - j)   # [heads, T, T]
        slopes = torch.tensor(alibi_slopes(heads), dtype=torch.float64)
        tables["bias"] = -slopes[:, None, None] * (i - j).double()
    if position == "t5":  # which row of rel_bias scores (i, j)   # [T, T]
        buckets = torch.tensor([t5_bucket(r) for r in range(T)])
        tables["bucket"] = buckets[(i - j).clamp(min=0)]
    return tables


def rms(x, w):
    """x [runs, ..., d] normalised row by row, times each run's weight w [runs, d]."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w.view(w.shape[0], *[1] * (x.dim() - 2), -1)


def mm(x, w):
    """x [runs, ..., in] @ w [runs, in, out], each run by its own weight: one product per run (bmm over the runs)."""
    return (x.reshape(x.shape[0], -1, x.shape[-1]) @ w).view(*x.shape[:-1], w.shape[-1])


def rotate(x, cos, sin, pairing):
    """RoPE: every head's pairs (a, b) of x [..., T, d_head] -> (a cos - b sin, a sin + b cos) at position t.
    interleaved pairs x[2i], x[2i+1] (Meta's Llama); half_split pairs x[i], x[i + d/2] (GPT-NeoX, Hugging Face)."""
    if pairing == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)
    a, b = x.chunk(2, dim=-1)
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)


LAYER_WEIGHTS = ["norm1", "wq", "wk", "wv", "wo", "norm2", "w1", "w2"]


class Layer(torch.nn.Module):
    def __init__(self, d_model, d_ff, runs):
        super().__init__()
        P = torch.nn.Parameter
        self.norm1, self.norm2 = P(torch.ones(runs, d_model)), P(torch.ones(runs, d_model))
        self.wq, self.wk, self.wv, self.wo = (P(torch.zeros(runs, d_model, d_model)) for _ in range(4))
        self.w1, self.w2 = P(torch.zeros(runs, d_model, d_ff)), P(torch.zeros(runs, d_ff, d_model))


class Decoder(torch.nn.Module):
    """The lab's decoder: pre-RMSNorm layers of causal attention and an erf-GELU MLP; the position method adds to the
    embeddings (learned, sinusoidal), rotates q and k (rope), biases the scores (alibi, t5) or does nothing (none).
    Weights are [in, out] (y = x @ W) under the contract's names (named_weights), each with a leading run axis: the
    model holds `runs` decoders of one method side by side (run r's weights are w[r]), each reading its own rows of
    the input and none touching another's numbers, so that one forward, backward and AdamW step trains them all."""

    def __init__(self, position, vocab, d_model, heads, layers, d_ff, max_position, base, pairing, runs=1):
        super().__init__()
        assert d_model % heads == 0 and (position != "rope" or (d_model // heads) % 2 == 0)
        self.position, self.heads, self.max_position = position, heads, max_position
        self.base, self.pairing = base, pairing
        P = torch.nn.Parameter
        self.tok_emb = P(torch.zeros(runs, vocab, d_model))
        self.pos_emb = P(torch.zeros(runs, max_position, d_model)) if position == "learned" else None
        self.layers = torch.nn.ModuleList(Layer(d_model, d_ff, runs) for _ in range(layers))
        self.rel_bias = P(torch.zeros(runs, T5_BUCKETS, heads)) if position == "t5" else None
        self.norm_f = P(torch.ones(runs, d_model))
        self.head = P(torch.zeros(runs, d_model, vocab))
        self.tables = {}
        self.rope = None  # (theta, factor): rope evaluated with scaled frequencies (scaled_rope)

    def named_weights(self):
        """(name, weight) in the contract's order: tok_emb, pos_emb, l0.norm1, l0.wq, ..., l0.w2, l1..., rel_bias,
        norm_f, head (pos_emb and rel_bias only when used); each [runs, the contract's shape]."""
        out = [("tok_emb", self.tok_emb)] + ([("pos_emb", self.pos_emb)] if self.pos_emb is not None else [])
        for j, layer in enumerate(self.layers):
            out += [("l%d.%s" % (j, name), getattr(layer, name)) for name in LAYER_WEIGHTS]
        out += [("rel_bias", self.rel_bias)] if self.rel_bias is not None else []
        return out + [("norm_f", self.norm_f), ("head", self.head)]

    @torch.no_grad()
    def keep(self, runs):
        """Only the runs `runs` (indices, in that order) from here on: every weight made again of their rows."""
        for module in self.modules():
            for name, w in list(module.named_parameters(recurse=False)):
                setattr(module, name, torch.nn.Parameter(w[runs]))

    def tables_for(self, T):
        """position_tables for T positions on the model's device and in its dtype, made once per T."""
        w = self.tok_emb
        key = (T, w.device, w.dtype, self.rope is not None)
        if key not in self.tables:
            made = position_tables(self.position, T, w.shape[-1], self.heads, self.base, self.pairing, self.rope)
            self.tables[key] = {k: t.to(w.device, w.dtype if t.is_floating_point() else t.dtype)
                                for k, t in made.items()}
        return self.tables[key]

    def by_position(self, positions):
        """What the method reads at each token's position (docs/lab.md's tiny decoder, positions [runs, B, T]): pe,
        cos and sin [runs, B, T, *] from tables of every position up to the largest seen (made again only when one is
        larger); alibi's -slope_n * (p_i - p_j) [runs, B, heads, T, T] and t5's bucket(max(p_i - p_j, 0))
        [runs, B, T, T] by position distance. IndexError for a learned position past the table, as PyTorch's."""
        w = self.tok_emb
        if (positions < 0).any():
            raise ValueError("positions must be >= 0")
        out, top = {}, int(positions.max()) + 1
        if self.position == "learned" and top > self.max_position:
            raise IndexError("index %d is out of bounds for dimension 0 with size %d"
                             % (int(positions[positions >= self.max_position][0]), self.max_position))
        if self.position in ("sinusoidal", "rope"):
            rows = getattr(self, "position_rows", None)  # (positions covered, device, {"pe"} or {"cos", "sin"})
            if rows is None or rows[0] < top or rows[1] != w.device:
                made = position_tables(self.position, top, w.shape[-1], self.heads, self.base, self.pairing, self.rope)
                rows = self.position_rows = (top, w.device, {k: t.to(w.device) for k, t in made.items()
                                                             if k != "causal"})
            out = {k: t.to(w.dtype)[positions] for k, t in rows[2].items()}
        distance = positions[..., :, None] - positions[..., None, :]  # p_i - p_j  # [runs, B, T, T]
        if self.position == "alibi":
            slopes = torch.tensor(alibi_slopes(self.heads), dtype=torch.float64, device=w.device)
            out["bias"] = (-slopes[:, None, None] * distance[:, :, None].double()).to(w.dtype)
        if self.position == "t5":  # every distance from T5_MAX_DISTANCE on is the last bucket
            buckets = torch.tensor([t5_bucket(r) for r in range(T5_MAX_DISTANCE + 1)], device=w.device)
            out["bucket"] = buckets[distance.clamp(0, T5_MAX_DISTANCE)]
        return out

    def forward(self, tokens, positions=None):
        """tokens [runs, B, T] -> logits [runs, B, T, vocab], run r through its own weights; a model of one run also
        takes [B, T] -> [B, T, vocab]. positions (default 0..T-1), tokens' shape: where each token sits, as its
        method reads it (pos_emb[p], PE(p), rope at p, alibi and t5 by p_i - p_j); causality stays by index."""
        if tokens.dim() == 2:
            assert self.tok_emb.shape[0] == 1, "[B, T] tokens are for a model of one run"
            return self(tokens[None], None if positions is None else positions[None])[0]
        R, B, T = tokens.shape
        if positions is None and self.position == "learned" and T > self.max_position:  # PyTorch's for pos_emb[T - 1]
            raise IndexError("index %d is out of bounds for dimension 0 with size %d"
                             % (self.max_position, self.max_position))
        tab = self.tables_for(T)
        at = tab if positions is None else self.by_position(positions)
        run = torch.arange(R, device=tokens.device)[:, None, None]  # each run's rows index its own tables
        h = self.tok_emb[run, tokens]  # [runs, B, T, d_model]
        if self.position == "learned":
            h = h + (self.pos_emb[:, None, :T] if positions is None else self.pos_emb[run, positions])
        if self.position == "sinusoidal":
            h = h + at["pe"]
        bias = at.get("bias")  # alibi: fixed; t5: learned, one table for all layers
        if self.position == "t5":  # [runs, T, T, heads], or [runs, B, T, T, heads] by position
            bias = self.rel_bias[:, at["bucket"]] if positions is None else self.rel_bias[run[..., None], at["bucket"]]
            bias = bias.permute(0, 3, 1, 2)[:, None] if positions is None else bias.permute(0, 1, 4, 2, 3)
        cos, sin = at.get("cos"), at.get("sin")
        if positions is not None and cos is not None:
            cos, sin = cos[:, :, None], sin[:, :, None]  # [runs, B, 1, T, d_head/2]: every head alike
        for layer in self.layers:
            h = self.attend(layer, h, tab["causal"], bias, cos, sin)
            h = h + mm(F.gelu(mm(rms(h, layer.norm2), layer.w1)), layer.w2)  # exact (erf) GELU
        return mm(rms(h, self.norm_f), self.head)

    def attend(self, layer, h, causal, bias, cos, sin):
        """h + one layer's attention; h [runs, B, T, d_model], the scores [runs, B, heads, T, T]."""
        R, B, T, d_model = h.shape
        d_head = d_model // self.heads
        a = rms(h, layer.norm1)
        q, k, v = (mm(a, w).view(R, B, T, self.heads, d_head).transpose(2, 3) for w in (layer.wq, layer.wk, layer.wv))
        if self.position == "rope":
            q = rotate(q, cos, sin, self.pairing)
            k = rotate(k, cos, sin, self.pairing)
        s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(d_head))
        if bias is not None:
            s = s + bias
        p = torch.softmax(s.masked_fill(causal, float("-inf")), dim=-1)
        o = (p @ v).transpose(2, 3).reshape(R, B, T, d_model)  # heads side by side
        return h + mm(o, layer.wo)


def trained_positions(o):
    """Positions a training input reaches: the longest training input; with random positions, the range R."""
    return position_range(o) or input_len(o.task, o.train_len)


def table_len(o):
    """Rows of the learned table: --table-len, or exactly the trained positions when it is 0 (random: R rows)."""
    return o.table_len or trained_positions(o)


def make_model(o, method, runs=1):
    return Decoder(method, VOCAB, o.d_model, o.heads, o.layers, o.d_ff, table_len(o), o.base, o.pairing, runs)


def table_row_change(model, init, run=0):
    """Per row of run's learned table: |P - P_init| / |P_init| (rows no training input reaches: weight decay only)."""
    p, init = model.pos_emb[run].detach().double().cpu(), init[run]
    return ((p - init).norm(dim=1) / init.norm(dim=1).clamp_min(1e-30)).tolist()


def answer_losses(logits, targets):
    """The summed cross-entropy of each run's answers (targets >= 0): [runs] for [runs, B, T] targets, a number for
    [B, T]."""
    each = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-1,
                           reduction="none")
    return each.view(targets.shape).flatten(-2).sum(-1)


def answers(targets):
    """Each run's count of answers (targets >= 0), as answer_losses sums them."""
    return (targets >= 0).flatten(-2).sum(-1)


def loss_of(model, tokens, targets, positions=None):
    """Each run's mean cross-entropy over the answers of its batch: [runs], or a number for one run's [B, T]."""
    return answer_losses(model(tokens, positions), targets) / answers(targets)


# ---- Initial weights: each fills one run of a model ----------------------------------------------------------
@torch.no_grad()
def lab_init(model, seed, run=0):
    """rv::lab_init_weights: one stream, the weights in the contract's order; each matrix entry float32(0.02 * normal),
    tok_emb and pos_emb then times float32(1 / 0.02); norms one; rel_bias zero. Bit for bit the C++'s float32
    weights (slow in pure Python for millions of weights: --init torch is torch's generator instead)."""
    rng = NormalRng(lab_seed(seed, 0))
    for name, w in model.named_weights():
        w = w[run]
        if w.dim() == 1 or name == "rel_bias":
            continue  # norms start at one, rel_bias at zero (as made)
        x = torch.tensor([INIT_STD * rng.normal() for _ in range(w.numel())], dtype=torch.float64).float()
        if name in ("tok_emb", "pos_emb"):
            x = x * torch.tensor(EMB_STD / INIT_STD, dtype=torch.float32)
        w.copy_(x.view(w.shape))


@torch.no_grad()
def torch_init(model, seed, run=0):
    """The same distributions from torch's generator: fast, but other numbers than the app's."""
    g = torch.Generator().manual_seed(seed)
    for name, w in model.named_weights():
        w = w[run]
        if w.dim() == 2 and name != "rel_bias":
            std = EMB_STD if name in ("tok_emb", "pos_emb") else INIT_STD
            w.copy_(torch.randn(w.shape, generator=g) * std)


@torch.no_grad()
def data_init(model, weights, run=0):
    """The initial weights the C++ wrote (the data file), flattened row-major under the contract's names."""
    names = [name for name, _ in model.named_weights()]
    if sorted(names) != sorted(weights):
        sys.exit("data file: weights %s, the model has %s" % (sorted(weights), sorted(names)))
    for name, w in model.named_weights():
        w = w[run]
        if len(weights[name]) != w.numel():
            sys.exit("data file: %s has %d values, the model's is %s" % (name, len(weights[name]), list(w.shape)))
        w.copy_(torch.tensor(weights[name], dtype=torch.float32).view(w.shape))


def init_run(model, run, o, method, k, data):
    """Run `run` of model as seed o.seed + k starts: the data file's weights for k = 0 when given (they are seed
    o.seed's), else --init's."""
    if data is not None and k == 0:
        data_init(model, data["methods"][method]["weights"], run)
    else:
        (torch_init if o.init == "torch" else lab_init)(model, o.seed + k, run)


# ---- AdamW and the schedule --------------------------------------------------------------------------------
class LabAdamW:
    """rv::adamw_step written out (Loshchilov & Hutter; torch.optim.AdamW's update, its operations in the C++'s order):
        m <- b1 m + (1 - b1) g,   v <- b2 v + (1 - b2) g^2
        w <- w (1 - lr wd) - lr (m / c1) / (sqrt(v / c2) + eps),   c1 = 1 - b1^t, c2 = 1 - b2^t
    Every weight decays, norms and embeddings included. Constants are rounded to the weights' dtype, as the C++'s
    static_cast<S>. Every operation is entry by entry, so each run of a batched model (weights [runs, ...], all at
    the same step) gets exactly its own update."""

    def __init__(self, params, weight_decay, beta1=0.9, beta2=0.999, eps=1e-8):
        self.params = list(params)
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.weight_decay, self.beta1, self.beta2, self.eps = weight_decay, beta1, beta2, eps
        self.t = 0

    @torch.no_grad()
    def step(self, lr):
        self.t += 1
        dtype = self.params[0].dtype

        def r(x):  # a number rounded to the weights' precision
            return torch.tensor(x, dtype=dtype).item()

        b1, b2, eps, lr_s = r(self.beta1), r(self.beta2), r(self.eps), r(lr)
        c1, c2 = r(1.0 - self.beta1 ** self.t), r(1.0 - self.beta2 ** self.t)  # bias corrections
        decay = r(1.0 - lr * self.weight_decay)
        for w, m, v in zip(self.params, self.m, self.v):
            g = w.grad
            m.mul_(b1).add_((1 - b1) * g)
            v.mul_(b2).add_((1 - b2) * g * g)
            w.mul_(decay).sub_(lr_s * (m / c1) / ((v / c2).sqrt() + eps))

    def keep(self, params, runs):
        """The model kept only the runs `runs` (Decoder.keep): its new weights, and their moments."""
        self.params = list(params)
        self.m, self.v = [m[runs] for m in self.m], [v[runs] for v in self.v]


def learning_rate(o, step):
    """rv::lab_learning_rate: linear warm-up over min(warmup, steps // 2) steps, then cosine to 0 (step 0-based)."""
    warm = min(o.warmup, o.steps // 2)
    if step < warm:
        return o.lr * (step + 1) / warm
    span = max(1, o.steps - warm)
    return o.lr * 0.5 * (1.0 + math.cos(math.pi * (step - warm) / span))


# ---- Evaluation --------------------------------------------------------------------------------------------
@torch.no_grad()
def accuracy(model, opts, n, device, cache, sequential=False):
    """Each run's (exact match (every answer the argmax), per-answer accuracy) on its evaluation sequences of size n
    (run r: seed opts[r].seed), teacher forced, as trained (random positions from the stream (4, n)) or at 0..T-1
    (sequential); IndexError for a learned table too short."""
    for o in opts:
        if (o.seed, n) not in cache:
            rows = eval_rows(o, n)
            cache[o.seed, n] = rows, place(rows, position_range(o), lab_seed(o.seed, 4, n))
    sets = [cache[o.seed, n] for o in opts]
    count, T = len(sets[0][0]), input_len(opts[0].task, n)
    chunk = max(1, EVAL_ROWS // T)
    exact = right = total = 0
    for at in range(0, count, chunk):
        tokens, targets, where = to_tensors([(rows[at:at + chunk], None if sequential or positions is None else
                                              positions[at:at + chunk]) for rows, positions in sets], T, device)
        hit = model(tokens, where).argmax(-1) == targets
        answer = targets >= 0
        exact = exact + (hit | ~answer).all(dim=2).sum(1)
        right = right + (hit & answer).sum((1, 2))
        total = total + answer.sum((1, 2))
    return [(e / count, r / t) for e, r, t in zip(exact.tolist(), right.tolist(), total.tolist())]


def at_bar(model, opts, device, cache):
    """Each run: every training size at BAR exact match (checked longest first, as the C++; sizes below one that
    misses for every run are not checked)."""
    ok = [True] * len(opts)
    for n in range(opts[0].train_len, 0, -1):
        if not any(ok):
            break
        ok = [k and e >= BAR for k, (e, _) in zip(ok, accuracy(model, opts, n, device, cache))]
    return ok


# ---- Runs trained together, then the lab -------------------------------------------------------------------
class Log:
    """Progress lines on a stream, each behind a prefix ("[rank 1/2] " when several processes share the work)."""

    def __init__(self, stream, prefix=""):
        self.stream, self.prefix = stream, prefix

    def __call__(self, text):
        print(self.prefix + text, file=self.stream, flush=True)


def shard_loss(net, tokens, targets, positions, rank, world):
    """--ddp: rank's part of each run's loss, and each run's mean loss over the batch (summed over the ranks). The
    rank takes its contiguous rows; its part is their answers' summed cross-entropy over the count of ALL the batch's
    answers, times world, so DDP's average of the ranks' gradients is the whole batch's mean gradient however the rows
    split."""
    B = tokens.shape[1]
    lo, hi = rank * B // world, (rank + 1) * B // world
    logits = net(tokens[:, lo:hi], None if positions is None else positions[:, lo:hi])
    part = answer_losses(logits, targets[:, lo:hi]) / answers(targets)
    total = part.detach().clone()
    dist.all_reduce(total)
    return part * world, total


def rank0_says(flags, device):
    """--ddp: rank 0's flags on every rank (its bar checks decide when they all stop)."""
    t = torch.tensor([int(f) for f in flags], device=device)
    dist.broadcast(t, 0)
    return [bool(f) for f in t.tolist()]


class Group:
    """Runs of one method trained together, from seeds o.seed + k (the data file's weights for k = 0 when given): one
    Decoder holding them side by side (weights stacked along a run axis), one forward, backward and AdamW step a step
    for all, each run with its own batch, loss and update, exactly as it trains alone. A run that reaches the bar
    leaves the stack, its weights kept as they were, and the others train on. --batched makes a group of a method's
    runs on this rank; without it every run is a group of one. With ddp (--ddp, a world of one or more) the ranks
    train it together, data-parallel, and rank 0 alone checks the bar and evaluates."""

    def __init__(self, o, method, seeds, data, device, dtype, log, rank=0, world=1, ddp=False):
        self.o, self.method, self.device, self.log = o, method, device, log
        self.rank, self.world, self.ddp = rank, world, ddp
        self.opts = [argparse.Namespace(**dict(vars(o), seed=o.seed + k)) for k in seeds]
        self.labels = [method if o.seeds == 1 else "%s seed %d" % (method, s.seed) for s in self.opts]
        model = make_model(o, method, len(seeds))
        for run, k in enumerate(seeds):
            init_run(model, run, o, method, k, data)
        model.to(device=device, dtype=dtype)
        self.init = model.pos_emb.detach().double().cpu().clone() if method == "learned" else None
        self.final = copy.deepcopy(model)  # each run's weights as it ended, written when it stops
        self.live = list(range(len(seeds)))  # the runs still training: the model's runs, in order
        self.losses, self.cache, self.tokens = [[] for _ in seeds], {}, 0
        self.opt = LabAdamW(model.parameters(), o.weight_decay)
        self.use(model)

    def use(self, model):
        gpu = [self.device] if self.device.type == "cuda" else None
        self.model = model
        self.net = DistributedDataParallel(model, device_ids=gpu) if self.ddp else model  # averages the ranks' grads

    def train(self):
        """Every run to its bar or o.steps; the seconds it took."""
        o, t0 = self.o, time.perf_counter()
        for step in range(o.steps):
            self.step(step)
            done = step + 1
            if not o.losses_only and o.check_every > 0 and done % o.check_every == 0 and done < o.steps:
                self.check(done)
            if not self.live:
                break
        self.save(range(len(self.live)))
        return time.perf_counter() - t0

    def step(self, step):
        """One AdamW step of every live run, on its own batch."""
        opts = [self.opts[r] for r in self.live]
        rows = [train_batch(o, step) for o in opts]
        tokens, targets, positions = to_tensors([(x, train_positions(o, step, x)) for o, x in zip(opts, rows)],
                                                input_len(self.o.task, self.o.train_len), self.device)
        if not self.ddp:
            loss = total = loss_of(self.model, tokens, targets, positions)
        else:
            loss, total = shard_loss(self.net, tokens, targets, positions, self.rank, self.world)
        self.model.zero_grad(set_to_none=True)
        loss.sum().backward()  # each run's loss reaches its own weights only
        lr = learning_rate(self.o, step)
        self.opt.step(lr)
        for r, x in zip(self.live, total.tolist()):
            self.losses[r].append(x)
            if self.o.print_every and (step + 1) % self.o.print_every == 0 and self.rank == 0:
                self.log("%-10s step %5d  lr %.3e  loss %.6f" % (self.labels[r], step + 1, lr, x))
        self.tokens += sum(len(x) for batch in rows for x, _ in batch)

    def check(self, done):
        """The bar check after `done` steps: the runs at it stop."""
        stop = [False] * len(self.live)
        if self.rank == 0:
            stop = at_bar(self.model, [self.opts[r] for r in self.live], self.device, self.cache)
        if self.ddp:
            stop = rank0_says(stop, self.device)
        if not any(stop):
            return
        for r in (r for r, s in zip(self.live, stop) if s and self.rank == 0):
            self.log("%-10s at the bar after %d steps" % (self.labels[r], done))
        self.save([j for j, s in enumerate(stop) if s])
        rest = [j for j, s in enumerate(stop) if not s]
        self.live = [self.live[j] for j in rest]
        if rest:  # the others go on alone: a model (and moments) of their runs only
            self.model.keep(rest)
            self.opt.keep(self.model.parameters(), rest)
            self.use(self.model)

    @torch.no_grad()
    def save(self, js):
        """The model's runs js as they are now are their final weights."""
        for (_, final), (_, w) in zip(self.final.named_weights(), self.model.named_weights()):
            for j in js:
                final[self.live[j]].copy_(w[j])

    def results(self):
        """Each run's result, evaluated on its final weights (None on ranks other than 0 with ddp)."""
        if self.rank != 0:
            return None
        runs = [{"train_loss": x, "accuracy": [], "token_accuracy": [], "error": None, "steps_run": len(x),
                 "reached_bar": False} for x in self.losses]
        for r, result in enumerate(runs):
            if self.init is not None:
                result["table_row_change"] = table_row_change(self.final, self.init, r)
            result["seed"] = self.opts[r].seed
        if not self.o.losses_only:
            self.evaluate(runs)
        for label, result in zip(self.labels, runs):
            if "accuracy_scaled" in result:
                self.log("%-10s with %s x%g: %s" % (label, self.o.rope_scaling, self.o.rope_factor,
                                                   " ".join("%.2f" % a for a in result["accuracy_scaled"])))
            if result["accuracy"]:
                result["reached_bar"] = all((a or 0) >= BAR for a in result["accuracy"][:self.o.train_len])
                self.log("%-10s exact match by size: %s" % (label, " ".join("-" if a is None else "%.2f" % a
                                                                            for a in result["accuracy"])))
        return runs

    def evaluate(self, runs):
        """accuracy and token_accuracy at every evaluation size; with --rope-scaling (rope) the same weights and
        sequences with the scaled frequencies; with random positions, the same at 0..T-1."""
        o, sizes = self.o, range(1, 4 * self.o.train_len + 1)
        for n in sizes:
            try:
                got = self.accuracy(n)
            except IndexError as e:
                got = [(None, None)] * len(runs)
                for result in runs:
                    result["error"] = result["error"] or "IndexError: %s" % e
            self.append(runs, "", got)
        if self.method == "rope" and o.rope_scaling != "none":
            self.final.rope = scaled_rope(o)
            for n in sizes:
                self.append(runs, "_scaled", self.accuracy(n))
            self.final.rope = None
        if o.positions == "random":
            for n in sizes:
                self.append(runs, "_sequential", self.accuracy(n, sequential=True))

    def accuracy(self, n, sequential=False):
        return accuracy(self.final, self.opts, n, self.device, self.cache, sequential)

    @staticmethod
    def append(runs, suffix, got):
        """Each run's (exact, per-answer) to its accuracy<suffix> and token_accuracy<suffix>."""
        for result, (exact, per_answer) in zip(runs, got):
            result.setdefault("accuracy" + suffix, []).append(exact)
            result.setdefault("token_accuracy" + suffix, []).append(per_answer)


def mean_curve(runs, key):
    """rv::lab_combine_runs: at each eval length the mean over the runs (summed in seed order, then divided), None
    when any run's is None."""
    out = []
    for n in range(max(len(r.get(key, [])) for r in runs)):
        values = [r[key][n] for r in runs if n < len(r.get(key, []))]
        total = 0.0
        for v in values:
            total += v or 0.0
        out.append(None if any(v is None for v in values) else total / len(values))
    return out


def combine_runs(runs):
    """A method over its seeds as the C++ writes it: the means, the first seed's loss, steps and table, the runs."""
    first = runs[0]
    method = {"train_loss": first["train_loss"], "accuracy": mean_curve(runs, "accuracy"),
              "token_accuracy": mean_curve(runs, "token_accuracy"),
              "error": next((r["error"] for r in runs if r["error"]), None), "steps_run": first["steps_run"],
              "reached_bar": all(r["reached_bar"] for r in runs)}
    if "table_row_change" in first:
        method["table_row_change"] = first["table_row_change"]
    for key in ("accuracy_scaled", "token_accuracy_scaled", "accuracy_sequential", "token_accuracy_sequential"):
        if key in first:
            method[key] = mean_curve(runs, key)
    method["runs"] = [dict({"seed": r["seed"], "steps": r["steps_run"]},
                           **{k: v for k, v in r.items() if k not in ("seed", "steps_run")}) for r in runs]
    return method


def load_data(path, o):
    """ropeviz_lab_data.json: the C++'s initial weights per method and its first training batches, which must equal
    the ones generated here (a check of the ported random stream)."""
    with open(path) as f:
        data = json.load(f)
    if data.get("format") != "ropeviz-lab-data":
        sys.exit("%s: not a ropeviz lab data file" % path)
    for key in ("task", "seed", "train_len", "table_len", "batch", "d_model", "heads", "layers", "d_ff"):
        if data["options"][key] != getattr(o, key):
            sys.exit("%s: %s is %r there, %r here (drop --data to change it)" % (path, key, data["options"][key],
                                                                               getattr(o, key)))
    missing = [m for m in o.methods if m not in data["methods"]]
    if missing:
        sys.exit("%s: no weights for %s" % (path, ", ".join(missing)))
    for batch in data["batches"]:
        rows = train_batch(o, batch["step"])
        if [x for x, _ in rows] != batch["tokens"] or [y for _, y in rows] != batch["targets"]:
            sys.exit("%s: the batch of step %d differs from the generated one" % (path, batch["step"]))
    return data


def lab_command(o):
    """The `ropeviz-cli lab` command of the run o, its flags as rv::lab_option_flags writes them (the C++ run of the
    same experiment); a note on stderr for settings that command cannot carry."""
    def num(x):
        return "%d" % x if x == int(x) else repr(x)
    flags = ["--task", o.task, "--methods", ",".join(o.methods), "--train-len", o.train_len, "--steps", o.steps,
             "--seed", o.seed, "--seeds", o.seeds, "--d-model", o.d_model, "--heads", o.heads, "--layers", o.layers,
             "--d-ff", o.d_ff,
             "--batch", o.batch, "--lr", num(o.lr), "--warmup", o.warmup, "--eval-count", o.eval_count,
             "--check-every", o.check_every, "--table-len", o.table_len]
    if o.positions != "sequential":
        flags += ["--positions", o.positions, "--position-range", o.position_range]
    if o.rope_scaling != "none":
        flags += ["--rope-scaling", o.rope_scaling]
    if o.rope_scaling != "none" or o.rope_factor != 4.0:  # 4: the C++'s default
        flags += ["--rope-factor", num(o.rope_factor)]
    fixed = {"weight_decay": 0.01, "base": 10000.0, "pairing": "interleaved"}  # what the C++'s lab always uses
    other = [k for k, v in fixed.items() if getattr(o, k) != v]
    if other:
        print("note: ropeviz-cli lab has no flag for %s (it uses %s)" % (
            ", ".join("--" + k.replace("_", "-") for k in other), ", ".join("%s %r" % (k, fixed[k]) for k in other)),
            file=sys.stderr)
    return " ".join(["ropeviz-cli", "lab"] + [str(f) for f in flags])


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="ropeviz's extrapolation lab in PyTorch (defaults: the exported run)",
                                 epilog="Checked with PyTorch " + CHECKED_WITH + "; this is PyTorch " +
                                 torch.__version__ + ".")
    D = DEFAULTS
    ap.add_argument("--task", choices=TASKS, default=D["task"])
    ap.add_argument("--methods", default=D["methods"], help="comma-separated: " + ",".join(METHODS))
    ap.add_argument("--train-len", type=int, default=D["train_len"], help="train at sizes 1..N, evaluate 1..4N")
    ap.add_argument("--table-len", type=int, default=D["table_len"],
                    help="rows of the learned table (0: exactly the longest training input)")
    ap.add_argument("--steps", type=int, default=D["steps"], help="AdamW steps per method at most")
    ap.add_argument("--seed", type=int, default=D["seed"])
    ap.add_argument("--seeds", type=int, default=D["seeds"], help="runs per method, from seeds seed .. seed+N-1")
    ap.add_argument("--positions", choices=["sequential", "random"], default=D["positions"],
                    help="train at 0..T-1, or at sorted random positions in [0, R) (Ruoss et al. 2023)")
    ap.add_argument("--position-range", type=int, default=D["position_range"],
                    help="R for random positions (0: 4 x the longest test input)")
    ap.add_argument("--d-model", type=int, default=D["d_model"])
    ap.add_argument("--heads", type=int, default=D["heads"])
    ap.add_argument("--layers", type=int, default=D["layers"])
    ap.add_argument("--d-ff", type=int, default=D["d_ff"])
    ap.add_argument("--batch", type=int, default=D["batch"], help="sequences per step")
    ap.add_argument("--lr", type=float, default=D["lr"], help="peak learning rate")
    ap.add_argument("--weight-decay", type=float, default=D["weight_decay"])
    ap.add_argument("--warmup", type=int, default=D["warmup"], help="linear warm-up steps (at most steps/2)")
    ap.add_argument("--eval-count", type=int, default=D["eval_count"], help="sequences per evaluation size")
    ap.add_argument("--check-every", type=int, default=D["check_every"],
                    help="stop a method once every training size is at %.2f exact match (0: never)" % BAR)
    ap.add_argument("--base", type=float, default=D["base"], help="RoPE base")
    ap.add_argument("--pairing", choices=["interleaved", "half_split"], default=D["pairing"], help="RoPE pairs")
    ap.add_argument("--rope-scaling", type=lambda name: SCALING_ALIASES.get(name, name), choices=SCALINGS,
                    default=D["rope_scaling"], help="also evaluate rope's trained weights with position interpolation "
                    "(linear), dynamic NTK or YaRN frequencies (pi and ntk: linear and dynamic)")
    ap.add_argument("--rope-factor", type=float, default=D["rope_factor"], help="the scaling's factor, in (1, 64]")
    ap.add_argument("--init", choices=["lab", "torch"], default="lab",
                    help="lab: the app's weights, ported (default); torch: torch's generator (fast for big models)")
    ap.add_argument("--data", help="ropeviz_lab_data.json: start from its weights, check its batches")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--batched", action="store_const", const=True, default=True,
                    help="train each method's runs (its seeds) together, one model with the runs side by side and one "
                    "step for all: the same document as --no-batched, faster on a GPU and on the CPU too (default)")
    ap.add_argument("--no-batched", dest="batched", action="store_const", const=False,
                    help="train the runs one after another")
    ap.add_argument("--out", default="ropeviz_lab_result.json", help="the result document ('-': stdout)")
    ap.add_argument("--print-every", type=int, default=1, help="print the loss every N steps (0: never)")
    ap.add_argument("--losses-only", action="store_true", help="train only: no bar checks, no evaluation")
    ap.add_argument("--print-command", action="store_true",
                    help="print this run as a `ropeviz-cli lab` command (the C++ run) and exit")
    ap.add_argument("--nproc", type=int, metavar="N", help="start N processes on this machine "
                    "(torch.multiprocessing, env:// on 127.0.0.1), as `torchrun --nproc-per-node N` would: the runs "
                    "are shared out among them")
    ap.add_argument("--ddp", action="store_true", help="with several processes: train each run data-parallel "
                    "(DistributedDataParallel, every batch split across the ranks) instead of sharing the runs out")
    ap.add_argument("--timeout", type=float, default=1800.0, metavar="S",
                    help="seconds a process waits for the others (for one group of runs at most) before it fails")
    o = ap.parse_args(argv)
    o.methods = o.methods.split(",")
    for m in o.methods:
        if m not in METHODS:
            ap.error("--methods: unknown method %r (%s)" % (m, ", ".join(METHODS)))
    if o.table_len and o.table_len < trained_positions(o):
        ap.error("--table-len must be 0 or at least the longest training input (%d)" % trained_positions(o))
    if o.d_model % o.heads or ("rope" in o.methods and (o.d_model // o.heads) % 2):
        ap.error("--d-model must be a multiple of --heads (rope: an even d_head)")
    if not 1 <= o.seeds <= 16:
        ap.error("--seeds must be in [1, 16]")
    if o.positions == "sequential" and o.position_range:
        ap.error("--position-range is for --positions random")
    if o.positions == "random" and (o.table_len or not (
            o.position_range == 0 or input_len(o.task, 4 * o.train_len) <= o.position_range <= 8192)):
        ap.error("--positions random: --table-len must be 0 and --position-range 0 or from the longest test input "
                 "(%d) to 8192" % input_len(o.task, 4 * o.train_len))
    if not 1.0 < o.rope_factor <= 64.0:
        ap.error("--rope-factor must be in (1, 64]")
    if o.rope_scaling == "dynamic" and "rope" in o.methods and o.d_model // o.heads < 4:
        ap.error("--rope-scaling dynamic needs d_head >= 4")
    for name in ("train_len", "steps", "batch", "eval_count"):
        if getattr(o, name) < 1:
            ap.error("--%s must be at least 1" % name.replace("_", "-"))
    try:  # several processes: every rank refuses a bad flag here, before any of them starts training
        launch = launched()
    except ValueError as e:
        ap.error(str(e))
    if o.nproc is not None and o.nproc < 1:
        ap.error("--nproc must be at least 1")
    if o.nproc is not None and launch:
        ap.error("--nproc starts its own processes: not under torchrun (%s set)" % ", ".join(
            k for k in LAUNCH_ENV if k in os.environ))
    world = o.nproc or (launch[1] if launch else 1)
    if o.ddp and not (o.nproc or launch):
        ap.error("--ddp trains each run in a process group: add --nproc N (1 or more), or start it with torchrun")
    short = cuda_shortage(o, launch)
    if short:
        ap.error(short)
    if o.ddp and o.batch < world:
        ap.error("--ddp splits every batch across the %d processes: --batch must be at least that" % world)
    if not o.timeout > 0:
        ap.error("--timeout must be positive")
    return o


def cuda_shortage(o, launch):
    """Why --device can't run on this machine, before any process starts (None when it can): not a device, cuda with
    no GPU, a GPU index past the GPUs, or --ddp on cuda (nccl: a GPU of its own for each process) with more processes
    on this machine than GPUs."""
    try:
        device = torch.device(o.device)
    except (RuntimeError, ValueError) as e:
        return "--device %s: %s" % (o.device, e)
    if device.type != "cuda":
        return None
    gpus = torch.cuda.device_count()
    if launch:  # torchrun says how many processes run on this machine; another launcher, at least this rank's
        here = int(os.environ.get("LOCAL_WORLD_SIZE", launch[2] + 1))
    else:
        here = o.nproc or 1
    procs = "%d process%s on this machine" % (here, "" if here == 1 else "es")
    if gpus == 0:
        return "--device %s: %s, and PyTorch sees no GPU here (torch.cuda.device_count() is 0): use --device cpu" % (
            o.device, procs)
    if device.index is not None and device.index >= gpus:
        return "--device %s: PyTorch sees %d GPU%s here (cuda:0 to cuda:%d)" % (o.device, gpus, "" if gpus == 1 else
                                                                                 "s", gpus - 1)
    if o.ddp and (here > gpus or (device.index is not None and here > 1)):
        return ("--ddp on --device %s runs nccl, which needs a GPU of its own for each process: %s, %d GPU%s "
                "(start at most %d, or use --device cpu)" % (o.device, procs, gpus, "" if gpus == 1 else "s",
                                                             1 if device.index is not None else gpus))
    return None


def launched():
    """(rank, world size, local rank) as torchrun (or another env:// launcher) gave them to this process; None when
    none of LAUNCH_ENV is set; ValueError when some are missing."""
    if not any(k in os.environ for k in LAUNCH_ENV):
        return None
    missing = [k for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT") if k not in os.environ]
    if missing:
        raise ValueError("%s set, but not %s (torchrun sets them all)" % (
            ", ".join(k for k in LAUNCH_ENV if k in os.environ), ", ".join(missing)))
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    return rank, world, int(os.environ.get("LOCAL_RANK", rank))


def start_processes(o, data):
    """--nproc N: N processes of this script on this machine, ranks 0..N-1 meeting at env:// on 127.0.0.1 (a free
    port), as torchrun's would. When one fails the others are stopped, and this exits 1 with the error of the rank that
    failed first (the others' follow from it).
    Only public API, the same on PyTorch 1.13 and 2.x: each rank that fails puts its own traceback on a queue, in the
    order they failed; ProcessRaisedException / ProcessExitedException only say that some rank ended."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(o.nproc),
                      LOCAL_WORLD_SIZE=str(o.nproc))
    failures = mp.get_context("spawn").SimpleQueue()  # (rank, traceback) of each rank that failed, first first
    ranks = mp.start_processes(process, args=(o, data, failures), nprocs=o.nproc, join=False, start_method="spawn")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))  # stopped: stop the ranks too
    try:
        while not ranks.join():
            pass
    except (mp.ProcessRaisedException, mp.ProcessExitedException) as e:
        rank, text = getattr(e, "error_index", -1), str(e)  # a rank killed by a signal puts nothing on the queue
        if not failures.empty():
            rank, text = failures.get()
        text = text[max(0, text.find("Traceback")):].rstrip()  # spawn's own header left out
        sys.exit("rank %d of %d failed (the others were stopped):\n%s" % (rank, o.nproc, text))
    finally:
        for p in ranks.processes:
            if p.is_alive():
                p.terminate()


def process(rank, o, data, failures):
    """One of --nproc's processes: rank `rank` of o.nproc, on this machine; failures: where a rank that fails puts
    its traceback."""
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank))
    if "OMP_NUM_THREADS" not in os.environ:  # the processes share the cores (torchrun sets 1 thread each)
        torch.set_num_threads(max(1, torch.get_num_threads() // o.nproc))
    try:
        lab(o, data, rank, o.nproc, rank)
    except Exception:
        failures.put((rank, traceback.format_exc()))
        raise


def plan(o, rank=0, world=1):
    """The groups of runs (indices into the lab's runs: methods in order, seeds within) this rank trains, in order:
    run i is rank i % world's (every run is, on one process or with --ddp); --batched makes one group of each method's
    runs, else every run is a group of its own."""
    mine = [i for i in range(len(o.methods) * o.seeds) if o.ddp or i % world == rank]
    if not o.batched:
        return [[i] for i in mine]
    groups = ([i for i in mine if i // o.seeds == j] for j in range(len(o.methods)))
    return [group for group in groups if group]


def lab(o, data, rank=0, world=1, local_rank=0):
    """The run on this process: all of it (one process), its share of the runs (run i on rank i % world), or every
    run together with the others (--ddp). Rank 0 writes the document."""
    log = Log(sys.stderr if o.out == "-" else sys.stdout, "[rank %d/%d] " % (rank, world) if world > 1 else "")
    device, dtype = torch.device(o.device), getattr(torch, o.dtype)
    grouped = world > 1 or o.ddp  # in a process group (--ddp: a world of one too)
    here = device  # this rank's device: in a process group, --device cuda is cuda:LOCAL_RANK (parse_args checked)
    if grouped and device.type == "cuda" and device.index is None:
        here = torch.device("cuda", local_rank % torch.cuda.device_count())
    if grouped:
        if here.type == "cuda":
            torch.cuda.set_device(here)
        os.environ.setdefault("NCCL_ASYNC_ERROR_HANDLING", "1")  # so that nccl's collectives time out too
        dist.init_process_group("nccl" if o.ddp and here.type == "cuda" else "gloo", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=o.timeout))
    if data is not None and rank == 0:
        log("%s: %d batches equal the generated ones" % (o.data, len(data["batches"])))
    doc = {"task": o.task, "train_len": o.train_len, "eval_lengths": list(range(1, 4 * o.train_len + 1)),
           "steps": o.steps, "seed": o.seed, "seeds": o.seeds, "vocab": VOCAB, "sep": SEP, "d_model": o.d_model,
           "heads": o.heads,
           "layers": o.layers, "d_ff": o.d_ff, "batch": o.batch, "lr": o.lr, "weight_decay": o.weight_decay,
           "warmup": min(o.warmup, o.steps // 2), "eval_count": o.eval_count, "check_every": o.check_every,
           "bar": BAR, "max_position": table_len(o), "trained_positions": trained_positions(o),
           "positions": o.positions, "position_range": position_range(o), "base": o.base, "pairing": o.pairing,
           "device": str(device), "dtype": o.dtype, "init": o.data or o.init, "torch": torch.__version__}
    if o.ddp:
        doc["world_size"] = world
    if o.rope_scaling != "none":
        theta, factor = scaled_rope(o)
        doc.update(rope_scaling=o.rope_scaling, rope_factor=o.rope_factor, rope_inv_freq_scaled=theta,
                   rope_attention_factor=factor)
    runs = [(m, k) for m in o.methods for k in range(o.seeds)]  # seed o.seed + k, exactly the one-seed run of it

    def train(group):  # (run indices, (results, training seconds, tokens)); results None on ranks > 0 with --ddp
        if os.environ.get(FAIL_RANK) == str(rank):
            raise RuntimeError("rank %d stops: %s=%d (a test hook)" % (rank, FAIL_RANK, rank))
        g = Group(o, runs[group[0]][0], [runs[i][1] for i in group], data, here, dtype, log,
                  *((rank, world, True) if o.ddp else ()))
        seconds = g.train()
        return group, (g.results(), seconds, g.tokens)

    t0 = time.perf_counter()
    mine = plan(o, rank, world)
    if o.ddp or world == 1:
        done = [train(group) for group in mine]
    else:  # in rounds of one group per rank, so that no rank waits for more than one group at the gather
        done = []
        for j in range(max(len(plan(o, r, world)) for r in range(world))):
            got = [None] * world if rank == 0 else None
            dist.gather_object(train(mine[j]) if j < len(mine) else None, got, dst=0)
            done += filter(None, got or [])
    if grouped:
        dist.destroy_process_group()
    if rank != 0:
        return
    seconds = time.perf_counter() - t0
    results = [None] * len(runs)
    for group, (got, _, _) in done:
        for i, result in zip(group, got):
            results[i] = result
    train_seconds, tokens = sum(d[1][1] for d in done), sum(d[1][2] for d in done)
    methods = {m: combine_runs(results[j * o.seeds:(j + 1) * o.seeds])  # as one process combines
               for j, m in enumerate(o.methods)}
    doc.update(seconds=seconds, tokens_per_s=tokens / train_seconds if train_seconds > 0 else 0.0, methods=methods)
    text = json.dumps(doc)
    if o.out == "-":
        print(text)
    else:
        with open(o.out, "w") as f:
            f.write(text + "\n")
        log("wrote %s (%.1f s)" % (o.out, seconds))


def main(argv=None):
    o = parse_args(argv)
    if o.print_command:
        print(lab_command(o))
        return
    data = load_data(o.data, o) if o.data else None
    if o.nproc and (o.nproc > 1 or o.ddp):
        start_processes(o, data)
    else:
        lab(o, data, *(launched() or (0, 1, 0)))


if __name__ == "__main__":
    main()
