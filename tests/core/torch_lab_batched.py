#!/usr/bin/env python3
"""The lab script's batched training (src/core/lab/ropeviz_lab.py, --batched: each method's seeds as one model, the
default) against its runs one after another (--no-batched): from `ropeviz-cli lab-export`'s data file, 6 methods x 2
seeds whose runs stop at the bar at different steps must give the same document, every number within 1e-9 in float64
and within the export test's tolerances in float32 (losses 1e-4, accuracies 0.05); a run that stops early leaves the
stack and is the run trained alone, weights and losses; --ddp --nproc 2 and --nproc 2 batched give one process's
document. Exit 77 (skip) without torch."""
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import time

from cli_harness import check, checks, failures

try:
    import torch
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../src/core/lab/ropeviz_lab.py")
# 12 runs of a small decoder; with check-every 5 rope's seed 0 stops at 45 steps and seed 1 trains all 60
LAB = ["--methods", "learned,sinusoidal,rope,alibi,t5,none", "--seeds", "2", "--steps", "60", "--check-every", "5",
       "--train-len", "2", "--batch", "15", "--eval-count", "10", "--layers", "2", "--lr", "0.02"]
TOL64 = 1e-9
TOL32 = {"loss": 1e-4, "accuracy": 0.05}  # torch_lab_export.py's: |torch loss - C++ loss|, accuracies
TIMING = ("seconds", "tokens_per_s")
ENV = dict(os.environ, OMP_NUM_THREADS="1")
torch.set_num_threads(1)
sys.dont_write_bytecode = True  # no __pycache__ beside the script
spec = importlib.util.spec_from_file_location("ropeviz_lab", SCRIPT)
lab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lab)


def run_lab(out, *args, processes=False):
    """The script's document for the run LAB + args on the CPU: in this process, or as `python3 ropeviz_lab.py`."""
    argv = [*LAB, "--device", "cpu", "--print-every", "0", "--out", out, *args]
    printed, code = io.StringIO(), 0
    if processes:
        p = subprocess.run([sys.executable, SCRIPT, *argv], capture_output=True, text=True, timeout=300, env=ENV)
        code, printed = p.returncode, io.StringIO(p.stdout + p.stderr)
    else:
        try:
            with contextlib.redirect_stdout(printed):
                lab.main(argv)
        except SystemExit as e:
            code = e.code
    check(code in (0, None) and os.path.exists(out), "%s: exit %r: %s" % (args, code, printed.getvalue()[-2000:]))
    with open(out) as f:
        return {k: v for k, v in json.load(f).items() if k not in TIMING}


def differences(a, b, where="", out=None):
    """{kind: the largest |a - b| of that kind of number} ("loss": every other number), and where structure or a
    non-number differs."""
    out = out if out is not None else {"loss": 0.0, "accuracy": 0.0, "other": []}
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        for k in a:
            differences(a[k], b[k], where + "." + k, out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            differences(x, y, "%s[%d]" % (where, i), out)
    elif all(isinstance(x, float) and not isinstance(x, bool) for x in (a, b)):
        kind = "accuracy" if "accuracy" in where else "loss"
        out[kind] = max(out[kind], abs(a - b))
    elif a != b:
        out["other"].append("%s: %r, %r" % (where, a, b))
    return out


def compare(a, b, tol, what):
    got = differences(a, b)
    print("%s: worst difference %.3g (losses and other numbers), %.3g (accuracies)" % (what, got["loss"],
                                                                                     got["accuracy"]))
    check(not got["other"], "%s: %s" % (what, got["other"][:5]))
    for kind in ("loss", "accuracy"):
        check(got[kind] <= tol[kind], "%s: %s differ by %.3g" % (what, kind, got[kind]))


def alone_and_together(o, method, seeds):
    """Group of `seeds` trained together, and each seed's group of one: the runs' losses and final weights."""
    def train(group):
        g = lab.Group(o, method, group, None, torch.device("cpu"), torch.float64, lambda text: None)
        g.train()
        return g
    together = train(seeds)
    check(together.model.tok_emb.shape[0] == 1, "%s: the run at the bar left the stack" % method)
    for run, k in enumerate(seeds):
        alone = train([k])
        check(together.losses[run] == alone.losses[0], "%s seed %d: the losses of the run alone" % (method, k))
        worst = max((w[run] - v[0]).abs().max().item() for (_, w), (_, v) in
                    zip(together.final.named_weights(), alone.final.named_weights()))
        check(worst <= TOL64, "%s seed %d: final weights %.3g from the run alone" % (method, k, worst))
    return [len(x) for x in together.losses]


t_start = time.perf_counter()
with tempfile.TemporaryDirectory() as tmp:
    p = subprocess.run([CLI, "lab-export", tmp, *LAB], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "lab-export: exit %d: %s" % (p.returncode, p.stderr))
    data = ["--data", os.path.join(tmp, "ropeviz_lab_data.json")]
    out = os.path.join(tmp, "result.json")
    docs = {}
    for dtype in ("float64", "float32"):
        for mode in ("--batched", "--no-batched"):
            docs[dtype, mode] = run_lab(out, "--dtype", dtype, mode, *data)
    compare(docs["float64", "--batched"], docs["float64", "--no-batched"], {"loss": TOL64, "accuracy": TOL64},
            "float64, --batched vs --no-batched")
    compare(docs["float32", "--batched"], docs["float32", "--no-batched"], TOL32, "float32, --batched vs --no-batched")
    steps = {m: [r["steps"] for r in v["runs"]] for m, v in docs["float64", "--batched"]["methods"].items()}
    print("steps of each run: %s" % steps)
    check(steps["rope"] == [45, 60], "rope: seed 0 stops at the bar while seed 1 trains on: %r" % steps["rope"])

    # ---- the run that stopped left the stack unchanged: the run trained alone, weights and losses --------------------
    o = lab.parse_args([*LAB, "--device", "cpu", "--dtype", "float64", "--print-every", "0"])
    check(alone_and_together(o, "rope", [0, 1]) == [45, 60], "rope's group: 45 and 60 steps")
    check(lab.parse_args([]).batched and not lab.parse_args(["--no-batched"]).batched, "--batched is the default")
    check(lab.plan(o, 1, 2) == [[1], [3], [5], [7], [9], [11]] and lab.plan(o)[2] == [4, 5] and
          lab.plan(lab.parse_args(["--no-batched", "--seeds", "2", "--methods", "rope"])) == [[0], [1]],
          "groups: a method's runs on this rank: %r" % lab.plan(o, 1, 2))

    # ---- batched on 2 processes: the runs shared out, and --ddp (a stack split across the ranks) -------------------
    one = docs["float64", "--batched"]
    shared = run_lab(out, "--dtype", "float64", "--nproc", "2", *data, processes=True)
    check(shared == one, "--nproc 2, batched: the one-process document")
    ddp = run_lab(out, "--dtype", "float64", "--nproc", "2", "--ddp", *data, processes=True)
    check(ddp.pop("world_size", None) == 2, "--ddp: world_size 2")
    compare(one, ddp, {"loss": TOL64, "accuracy": TOL64}, "float64, --ddp --nproc 2 vs one process")

print("%d checks, %d failures (%.1f s)" % (checks[0], len(failures), time.perf_counter() - t_start))
sys.exit(1 if failures else 0)
