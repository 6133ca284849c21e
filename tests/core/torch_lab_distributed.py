#!/usr/bin/env python3
"""`ropeviz-cli lab-export`'s script past one process (docs/lab.md, 'Past one machine'), on 2 CPU processes over gloo:
the runs shared out by --nproc 2, or by two processes started with torchrun's environment, must give the one-process
document exactly (its seconds and tokens_per_s aside); --ddp --nproc 2 in float64 must train every run with losses
within 1e-9 of one process's (a batch of 15 rows, split 7 + 8), the same bar stops and evaluation, and say
"world_size": 2; --ddp over a world of one (--nproc 1, or torchrun's environment with WORLD_SIZE 1) likewise; the runs
shared out by --nproc 2 --no-batched (each rank training its runs one after another, not batched) the same document;
a rank
that fails (the script's ROPEVIZ_LAB_FAIL_RANK test hook) must fail the whole run with its own message, promptly,
through public API only; a bad flag, --device cuda without a GPU, or nccl with more processes than GPUs must be refused
with exit 2 on every rank before any training, naming both counts. Exit 77 (skip) without torch. With
ROPEVIZ_LAB_SCRIPT=PATH the exported script is PATH with the export's DEFAULTS line (as lab-export writes it):
src/core/lab/ropeviz_lab.py tested before the CLI that embeds it is built again."""
import re
import contextlib
import importlib.util
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

from cli_harness import as_exported, check, checks, failures

try:
    import torch
    import torch.distributed
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)
if not torch.distributed.is_available():
    print("SKIP: this PyTorch has no torch.distributed")
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
# 4 runs (2 methods x 2 seeds) of a small decoder: learned stops at the bar after 30 steps, rope trains all 40
FLAGS = ["--methods", "rope,learned", "--seeds", "2", "--steps", "40", "--check-every", "10", "--train-len", "2",
         "--batch", "15", "--eval-count", "10", "--layers", "2", "--lr", "0.02"]
TOL = 1e-9  # --ddp against one process, float64
TIMING = ("seconds", "tokens_per_s")
LAUNCH = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
ENV = {k: v for k, v in os.environ.items() if k not in LAUNCH + ("ROPEVIZ_LAB_FAIL_RANK",)}
ENV["OMP_NUM_THREADS"] = "1"  # a tiny model: one thread each is fastest, and the machine is shared


def start(script, args, env=None):
    return subprocess.Popen([sys.executable, script, "--device", "cpu", "--print-every", "10", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(ENV, **(env or {})),
                            start_new_session=True)  # its own process group, ranks included


def finish(p, timeout=120):
    """(exit code, stdout, stderr) of a started script; a hang is killed, ranks and all, and counts as failed."""
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return "hung", out, err
    return p.returncode, out, err


def document(path, what, code, err):
    check(code == 0 and os.path.exists(path), "%s: exit %r: %s" % (what, code, err[-2000:]))
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_env(rank, port, world=2):
    """What torchrun sets in rank `rank` of `world` on this machine."""
    return {"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(world),
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}


def without_timing(doc):
    return {k: v for k, v in doc.items() if k not in TIMING}


def compare_ddp(one, ddp, world, what):
    """A --ddp document against one process's: the same settings, world_size, and every run within TOL."""
    check(ddp.get("world_size") == world, "%s: world_size %r" % (what, ddp.get("world_size")))
    check(set(ddp) == set(one) | {"world_size"}, "%s: one process's keys and world_size: %r" % (what, sorted(ddp)))
    check({k: v for k, v in without_timing(ddp).items() if k not in ("methods", "world_size")} ==
          {k: v for k, v in without_timing(one).items() if k != "methods"}, "%s: the same settings" % what)
    worst = 0.0
    for m in ("rope", "learned"):
        a, b = one["methods"][m], ddp["methods"][m]
        for ra, rb in zip(a["runs"], b["runs"]):
            tag = "%s %s seed %d" % (what, m, ra["seed"])
            check(rb["seed"] == ra["seed"] and rb["steps"] == ra["steps"] and rb["reached_bar"] ==
                  ra["reached_bar"] and rb["error"] == ra["error"], "%s: seed, steps, bar, error" % tag)
            check(len(rb["train_loss"]) == len(ra["train_loss"]) == ra["steps"], "%s: a loss a step" % tag)
            gap = max(abs(x - y) for x, y in zip(ra["train_loss"], rb["train_loss"]))
            worst = max(worst, gap)
            check(gap <= TOL, "%s: losses differ by %.3g" % (tag, gap))
            for key in ("accuracy", "token_accuracy", "table_row_change"):
                x, y = ra.get(key, []), rb.get(key, [])
                check(len(x) == len(y) and all(u == v or None not in (u, v) and abs(u - v) <= TOL
                                               for u, v in zip(x, y)),
                      "%s: %s %r, one process %r" % (tag, key, y, x))
        check(a["train_loss"][-1] < 0.8 * a["train_loss"][0], "%s: the loss falls" % m)
    print("%s, float64: worst |loss - one process's loss| %.3g" % (what, worst))


def refusals(script, tmp):
    """Flags main refuses with exit 2 before it starts a process or trains (nothing on stdout), with the GPUs PyTorch
    sees set by hand (torch.cuda.device_count) for the nccl cases; and --ddp accepted under torchrun."""
    spec = importlib.util.spec_from_file_location("ropeviz_lab", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    saved, device_count = dict(os.environ), mod.torch.cuda.device_count
    printed = io.StringIO()
    bad = os.path.join(tmp, "bad.json")
    for args, env, gpus, text in [
            (["--nproc", "0"], {}, None, "--nproc must be at least 1"),
            (["--nproc", "2", "--ddp", "--batch", "1"], {}, None, "--batch must be at least that"),
            (["--ddp"], {}, None, "--ddp trains each run in a process group: add --nproc N (1 or more)"),
            (["--nproc", "2"], torchrun_env(0, 29500), None, "--nproc starts its own processes"),
            ([], {"RANK": "0"}, None, "RANK set, but not WORLD_SIZE, MASTER_ADDR, MASTER_PORT"),
            (["--timeout", "0"], {}, None, "--timeout must be positive"),
            (["--batch", "0"], {}, None, "--batch must be at least 1"),
            (["--device", "cuda"], {}, 0, "1 process on this machine, and PyTorch sees no GPU here "
                                          "(torch.cuda.device_count() is 0)"),
            (["--device", "cuda", "--nproc", "2"], {}, 0, "2 processes on this machine, and PyTorch sees no GPU"),
            (["--device", "cuda", "--ddp"], torchrun_env(0, 29500), 0, "2 processes on this machine, and PyTorch "
                                                                       "sees no GPU"),
            (["--device", "cuda", "--nproc", "2", "--ddp"], {}, 1,
             "runs nccl, which needs a GPU of its own for each process: 2 processes on this machine, 1 GPU"),
            (["--device", "cuda", "--ddp"], torchrun_env(1, 29500, world=3), 2,
             "3 processes on this machine, 2 GPUs"),
            (["--device", "cuda:0", "--nproc", "2", "--ddp"], {}, 2, "2 processes on this machine, 2 GPUs "
                                                                     "(start at most 1"),
            (["--device", "cuda:2"], {}, 2, "PyTorch sees 2 GPUs here (cuda:0 to cuda:1)"),
            (["--device", "gpu"], {}, None, "--device gpu:")]:
        os.environ.clear()
        os.environ.update(ENV, **env)
        mod.torch.cuda.device_count = device_count if gpus is None else (lambda n=gpus: n)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(printed):
                mod.main(["--device", "cpu"] + args + ["--out", bad])
            code = 0
        except SystemExit as e:
            code = e.code
        check(code == 2 and text in err.getvalue(), "%s %s: exit %r, %r" % (env, args, code, err.getvalue()[-300:]))
    mod.torch.cuda.device_count = device_count
    check(printed.getvalue() == "" and not os.path.exists(bad), "refused runs print nothing: %r" % printed.getvalue())
    os.environ.clear()
    os.environ.update(saved)
    os.environ.update(torchrun_env(1, 29500))
    o = mod.parse_args(["--ddp", "--device", "cpu"])  # torchrun's world of 2
    check(o.ddp and mod.launched() == (1, 2, 1), "under torchrun's environment --ddp is accepted: %r" % (
        mod.launched(),))
    os.environ.clear()
    os.environ.update(torchrun_env(0, 29500, world=1))
    o = mod.parse_args(["--ddp", "--device", "cpu"])
    check(o.ddp and mod.launched() == (0, 1, 0), "torchrun's world of one: --ddp is accepted")
    os.environ.clear()
    os.environ.update(saved)


t_start = time.perf_counter()
with tempfile.TemporaryDirectory() as tmp:
    p = subprocess.run([CLI, "lab-export", tmp, *FLAGS], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "lab-export: exit %d: %s" % (p.returncode, p.stderr))
    script, data = os.path.join(tmp, "ropeviz_lab.py"), os.path.join(tmp, "ropeviz_lab_data.json")
    as_exported(script)
    out = {name: os.path.join(tmp, name + ".json")
           for name in ("one", "shared", "torchrun", "ddp", "failed", "ddp1", "torchrun1", "unbatched")}
    with open(script) as f:
        source = f.read()
    private = sorted(set(re.findall(r"\b(?:torch|mp|dist|ranks|e)\.(?:\w+\.)*_(?!_)\w*", source)) |
                     set(re.findall(r"error_queues", source)))
    check(not private, "the script uses only PyTorch's public API: %r" % private)

    # ---- one process, the reference; --nproc 2 at the same time (the two share the machine) ------------------------
    one_p = start(script, ["--dtype", "float64", "--data", data, "--out", out["one"]])
    shared_p = start(script, ["--dtype", "float64", "--data", data, "--out", out["shared"], "--nproc", "2"])
    code, stdout, err = finish(one_p)
    one = document(out["one"], "one process", code, err)
    code, stdout, err = finish(shared_p)
    shared = document(out["shared"], "--nproc 2", code, err)
    if one:
        steps = {m: [r["steps"] for r in one["methods"][m]["runs"]] for m in one["methods"]}
        check(steps == {"rope": [40, 40], "learned": [30, 30]}, "one process: the runs' steps %r" % steps)
        check("world_size" not in one, "one process: no world_size")
    if one and shared:
        check(without_timing(shared) == without_timing(one), "--nproc 2 writes the one-process document")
        check(set(shared) == set(one), "--nproc 2: the same keys as one process")
    for rank, runs in ((0, ("rope seed 0", "learned seed 0")), (1, ("rope seed 1", "learned seed 1"))):
        for name in runs:  # run i trains on rank i % 2
            check("[rank %d/2] %s step" % (rank, name) in stdout, "--nproc 2: rank %d trains %s: %r" % (
                rank, name, stdout[-1500:]))

    # ---- two processes started as torchrun starts them (its environment), and a rank that fails -------------------
    port = free_port()
    ranks = [start(script, ["--dtype", "float64", "--data", data, "--out", out["torchrun"]], torchrun_env(r, port))
             for r in range(2)]
    failed_p = start(script, ["--out", out["failed"], "--nproc", "2", "--timeout", "30"],
                     {"ROPEVIZ_LAB_FAIL_RANK": "1"})
    t0 = time.perf_counter()
    results = [finish(p) for p in ranks]
    for r, (code, _, err) in enumerate(results):
        check(code == 0, "torchrun's environment, rank %d: exit %r: %s" % (r, code, err[-2000:]))
    launched = document(out["torchrun"], "torchrun's environment", results[0][0], results[0][2])
    if one and launched:
        check(without_timing(launched) == without_timing(one), "torchrun's environment writes the one-process document")
    code, stdout, err = finish(failed_p)
    elapsed = time.perf_counter() - t0
    check(code not in (0, "hung"), "a failed rank fails the run: exit %r" % code)
    check("rank 1 of 2 failed" in err and "RuntimeError: rank 1 stops: ROPEVIZ_LAB_FAIL_RANK=1" in err,
          "the failed rank's message: %r" % err[-1500:])
    check(not os.path.exists(out["failed"]), "a failed run writes no document")
    check(elapsed < 60, "the failure ends the run promptly, not at the 30 s timeout: %.1f s" % elapsed)

    # ---- --ddp: every run trained by both ranks, float64 losses within 1e-9 of one process's (and bad flags) -------
    ddp_p = start(script, ["--dtype", "float64", "--data", data, "--out", out["ddp"], "--nproc", "2", "--ddp"])
    port = free_port()  # meanwhile, bad flags: exit 2 on every rank, before any training
    ranks = [start(script, ["--out", os.path.join(tmp, "bad.json"), "--steps", "-1"], torchrun_env(r, port))
             for r in range(2)]
    code, stdout, err = finish(ddp_p)
    ddp = document(out["ddp"], "--ddp --nproc 2", code, err)
    if one and ddp:
        compare_ddp(one, ddp, 2, "--ddp --nproc 2")
    check("[rank 1/2]" not in stdout and "[rank 0/2] learned seed 1 at the bar after 30 steps" in stdout,
          "--ddp: rank 0 reports: %r" % stdout[-1500:])

    # ---- --ddp over a world of one: --nproc 1, and torchrun's environment with WORLD_SIZE 1; --no-batched ----------
    ddp1_p = start(script, ["--dtype", "float64", "--data", data, "--out", out["ddp1"], "--nproc", "1", "--ddp"])
    torchrun1_p = start(script, ["--dtype", "float64", "--data", data, "--out", out["torchrun1"], "--ddp"],
                        torchrun_env(0, free_port(), world=1))
    unbatched_p = start(script, ["--dtype", "float64", "--data", data, "--out", out["unbatched"], "--nproc", "2",
                                 "--no-batched"])
    for name, p, what in (("ddp1", ddp1_p, "--ddp --nproc 1"), ("torchrun1", torchrun1_p, "--ddp, torchrun's world 1")):
        code, stdout, err = finish(p)
        doc = document(out[name], what, code, err)
        if one and doc:
            compare_ddp(one, doc, 1, what)
    code, stdout, err = finish(unbatched_p)
    unbatched = document(out["unbatched"], "--nproc 2 --no-batched", code, err)
    if one and unbatched:
        check(without_timing(unbatched) == without_timing(one), "--nproc 2 --no-batched: the one-process document")
    check("[rank 1/2] learned seed 1 at the bar" in stdout, "--no-batched: rank 1 trains learned seed 1: %r" % (
        stdout[-1500:]))

    # ---- bad flags: exit 2 on every rank, before any training ------------------------------------------------------
    for r, (code, stdout, err) in enumerate([finish(p) for p in ranks]):
        check(code == 2 and "--steps must be at least 1" in err and "step" not in stdout,
              "torchrun's environment, rank %d refuses --steps -1: exit %r, %r" % (r, code, err[-300:]))
    check(not os.path.exists(os.path.join(tmp, "bad.json")), "a refused run writes no document")
    refusals(script, tmp)

print("%d checks, %d failures (%.1f s)" % (checks[0], len(failures), time.perf_counter() - t_start))
sys.exit(1 if failures else 0)
