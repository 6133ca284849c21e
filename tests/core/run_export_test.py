#!/usr/bin/env python3
"""`ropeviz-cli run-export DIR` (docs/run-export.md): it writes DIR/ropeviz_run.py byte for byte as the tree holds it
and prints {"script": PATH}; the exported script, not the tree's copy, then answers forward requests on llama-bytes
(web/models) and on random-weight checkpoints (tests/fixtures/checkpoints: llama under yarn x4, gpt_neox with the rope
dropped, qwen2 split into two shards, one of them F16) with the CLI's documents: the same keys and shapes, NLL within
1e-3 in float64 (and float32, the default); a passkey grid (2 lengths x 2 depths) over --nproc 2 and over two processes
started as torchrun starts them equals the CLI's; the learned table's IndexError, a bad --model folder and --device cuda
without a GPU are error documents with exit 1; a rank that fails stops the run with its own message. `run-export DIR
REQUEST` (a file, "-", inline) writes DIR/request.json without the model's fields and prints the command, which runs
and gives the CLI's document; a bad op, bad JSON or a missing file is refused (exit 2, nothing written). A Hub repo id
as --model goes through a fake huggingface_hub (tests' own, on PYTHONPATH) and gives the local folder's document;
without huggingface_hub it is refused naming it. Exit 77 (skip) without torch."""
import json
import os
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from cli_harness import check, checks, failures

try:
    import torch
    import torch.distributed
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SOURCE = os.path.join(ROOT, "src", "core", "infer", "ropeviz_run.py")
MODELS = os.path.join(ROOT, "web", "models")
CHECKPOINTS = os.path.join(ROOT, "tests", "fixtures", "checkpoints")
NLL_TOL = 1e-3  # the contract's bound, float64 against the C++
CLOSE = 1e-5    # attention by distance and sink
LAUNCH = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
ENV = {k: v for k, v in os.environ.items() if k not in LAUNCH + ("ROPEVIZ_RUN_FAIL_RANK",)}
ENV["OMP_NUM_THREADS"] = "1"  # small models: one thread each, and the processes share the machine
worst = {}


def start(script, tmp, name, model, request, args=(), env=None):
    """The exported script on one request (written to tmp/name.json); its document goes to tmp/name.out.json."""
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(request, f)
    out = os.path.join(tmp, name + ".out.json")
    p = subprocess.Popen([sys.executable, script, "--model", model, "--request", path, "--out", out, *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(ENV, **(env or {})),
                         start_new_session=True)  # its own process group, ranks included
    return p, out


def finish(started, timeout=120):
    """(exit code, the document or None, stderr); a hang is killed, ranks and all."""
    p, out = started
    try:
        _, err = p.communicate(timeout=timeout)
        code = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        code = "hung"
    doc = None
    if os.path.exists(out):
        with open(out) as f:
            doc = json.load(f)
    return code, doc, err


def cli(request, model):
    """The CLI's answer to the same request, with "file" naming the checkpoint folder."""
    p = subprocess.run([CLI, "eval"], input=json.dumps(dict(request, file=model)) + "\n", capture_output=True,
                       text=True, timeout=120)
    return json.loads(p.stdout)


def shape(x):
    """A nested list's shape (ragged: None), a dict's by key."""
    if isinstance(x, dict):
        return {k: shape(v) for k, v in x.items()}
    if not isinstance(x, list):
        return ()
    inner = [shape(e) for e in x]
    return (len(x),) + inner[0] if inner and all(s == inner[0] for s in inner) else (len(x), None) if inner else (0,)


def flat(x):
    if isinstance(x, dict):
        for k in sorted(x):
            yield from flat(x[k])
    elif isinstance(x, list):
        for e in x:
            yield from flat(e)
    else:
        yield x


def compare_forward(name, got, want, tol):
    """The script's forward document against the CLI's: keys and shapes, NLL within tol, the rest within CLOSE."""
    code, doc, err = got
    check(code == 0 and doc is not None and "error" not in doc, "%s: exit %r, %s %s" % (name, code, doc, err[-1500:]))
    check("error" not in want, "%s: the CLI answers: %s" % (name, want))
    if not doc or "error" in doc or "error" in want:
        return
    check(list(doc) == list(want), "%s: the CLI's keys in its order: %s vs %s" % (name, list(doc), list(want)))
    for key in want:
        check(shape(doc.get(key)) == shape(want[key]), "%s: %s has shape %s, the CLI's %s" % (
            name, key, shape(doc.get(key)), shape(want[key])))
        gap = max((abs(a - b) for a, b in zip(flat(doc.get(key)), flat(want[key]))), default=0.0)
        if key == "nll":
            worst[name] = gap
        check(gap <= (tol if key == "nll" else CLOSE), "%s: %s differs from the CLI's by %.3g" % (name, key, gap))


def write_shards(src, dst):
    """src's checkpoint as two shards and model.safetensors.index.json in dst: the first half of its tensors stored
    as F16, the rest as they are; config.json copied."""
    os.makedirs(dst)
    shutil.copy(os.path.join(src, "config.json"), dst)
    with open(os.path.join(src, "model.safetensors"), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    names = sorted(k for k in header if k != "__metadata__")
    weight_map = {}
    for part, chosen in enumerate((names[:len(names) // 2], names[len(names) // 2:])):
        shard = "model-%05d-of-00002.safetensors" % (part + 1)
        head, blobs, at = {}, [], 0
        for name in chosen:
            t = header[name]
            raw = data[t["data_offsets"][0]:t["data_offsets"][1]]
            if part == 0 and t["dtype"] == "F32":
                raw = torch.frombuffer(bytearray(raw), dtype=torch.float32).to(torch.float16).numpy().tobytes()
                t = dict(t, dtype="F16")
            head[name] = {"dtype": t["dtype"], "shape": t["shape"], "data_offsets": [at, at + len(raw)]}
            blobs.append(raw)
            at += len(raw)
            weight_map[name] = shard
        text = json.dumps(head).encode()
        text += b" " * (-len(text) % 8)
        with open(os.path.join(dst, shard), "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    with open(os.path.join(dst, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


FAKE_HUB = '''"""A fake huggingface_hub for run_export_test.py: snapshot_download copies a repo's files (those
allow_patterns match) from FAKE_HUB_ROOT/owner/name into FAKE_HUB_CACHE and logs each call to FAKE_HUB_LOG."""
import fnmatch, json, os, shutil


def snapshot_download(repo_id, revision=None, allow_patterns=None, **kwargs):
    with open(os.environ["FAKE_HUB_LOG"], "a") as f:
        f.write(json.dumps({"repo_id": repo_id, "revision": revision, "allow_patterns": allow_patterns}) + "\\n")
    src = os.path.join(os.environ["FAKE_HUB_ROOT"], repo_id)
    if not os.path.isdir(src):
        raise OSError("404 Client Error: Repository Not Found for %s" % repo_id)
    dst = os.path.join(os.environ["FAKE_HUB_CACHE"], repo_id, revision or "main")
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(src):
        if any(fnmatch.fnmatch(name, p) for p in allow_patterns or ["*"]):
            shutil.copy(os.path.join(src, name), dst)
    return dst
'''


def export(dir, *request, stdin=None):
    """`ropeviz-cli run-export dir [request]`: (exit code, its line or None, stderr)."""
    p = subprocess.run([CLI, "run-export", dir, *request], input=stdin, capture_output=True, text=True, timeout=60)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None if not p.stdout else p.stdout, p.stderr


def fake_hub(tmp, shards):
    """The fake huggingface_hub's folder, its environment, and the repo ropeviz-fake/qwen2-shards: shards' files and
    one the script must not ask for."""
    hub = os.path.join(tmp, "fake-hub")
    os.makedirs(os.path.join(hub, "module", "huggingface_hub"))
    with open(os.path.join(hub, "module", "huggingface_hub", "__init__.py"), "w") as f:
        f.write(FAKE_HUB)
    os.makedirs(os.path.join(hub, "missing", "huggingface_hub"))  # one that is "not installed"
    with open(os.path.join(hub, "missing", "huggingface_hub", "__init__.py"), "w") as f:
        f.write("raise ImportError(\"No module named 'huggingface_hub'\")\n")
    shutil.copytree(shards, os.path.join(hub, "root", "ropeviz-fake", "qwen2-shards"))
    with open(os.path.join(hub, "root", "ropeviz-fake", "qwen2-shards", "pytorch_model.bin"), "w") as f:
        f.write("not asked for")
    env = {"PYTHONPATH": os.path.join(hub, "module"), "FAKE_HUB_ROOT": os.path.join(hub, "root"),
           "FAKE_HUB_CACHE": os.path.join(hub, "cache"), "FAKE_HUB_LOG": os.path.join(hub, "log.jsonl")}
    return hub, env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_env(rank, port, world=2):
    """What torchrun sets in rank `rank` of `world` on this machine."""
    return {"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(world),
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}


t_start = time.perf_counter()
with tempfile.TemporaryDirectory() as tmp:
    # ---- the export: the file, its line, its refusals ---------------------------------------------------------------
    p = subprocess.run([CLI, "run-export", os.path.join(tmp, "out")], capture_output=True, text=True, timeout=60)
    script = os.path.join(tmp, "out", "ropeviz_run.py")
    check(p.returncode == 0 and json.loads(p.stdout or "null") == {"script": script},
          "run-export: exit %d, %r %r" % (p.returncode, p.stdout, p.stderr))
    with open(script, "rb") as a, open(SOURCE, "rb") as b:
        check(a.read() == b.read(), "run-export writes src/core/infer/ropeviz_run.py byte for byte")
    for args, code in (([], 2), ([os.path.join(tmp, "x"), "extra"], 2), ([script], 1)):
        p = subprocess.run([CLI, "run-export", *args], capture_output=True, text=True, timeout=60)
        check(p.returncode == code and p.stdout == "" and "run-export" in p.stderr,
              "run-export %s: exit %d (want %d), %r" % (args, p.returncode, code, p.stderr))
    os.makedirs(os.path.join(tmp, "blocked", "ropeviz_run.py"))  # the file's name taken by a folder
    p = subprocess.run([CLI, "run-export", os.path.join(tmp, "blocked")], capture_output=True, text=True, timeout=60)
    check(p.returncode == 1 and "cannot write" in p.stderr, "an unwritable script: exit %d, %r" % (p.returncode,
                                                                                                  p.stderr))
    p = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, timeout=60, env=ENV)
    check(p.returncode == 0 and all(w in p.stdout for w in ("--model", "--request", "--dtype", "--device", "--nproc",
                                                            "torchrun", "float64", "passkey")),
          "--help explains the script: %r" % p.stdout[-500:])

    # ---- forward: the CLI's documents -------------------------------------------------------------------------------
    with open(os.path.join(MODELS, "heldout.txt"), "rb") as f:
        text = f.read()[30000:30096]
    llama_bytes = os.path.join(MODELS, "llama-bytes")
    shards = os.path.join(tmp, "qwen2-shards")
    write_shards(os.path.join(CHECKPOINTS, "qwen2"), shards)
    stats = ["nll", "attention_by_distance", "sink"]
    forward_cases = [
        ("llama-bytes float64", llama_bytes, {"op": "forward", "tokens": list(text), "outputs": stats}, "float64"),
        ("llama yarn x4 float64", os.path.join(CHECKPOINTS, "llama"),
         {"op": "forward", "tokens": list(text[:40]), "outputs": stats,
          "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32}}, "float64"),
        ("gpt_neox rope drop float64", os.path.join(CHECKPOINTS, "gpt_neox"),
         {"op": "forward", "tokens": list(text[:40]), "outputs": stats + ["qk_pair_norms"], "rope": "drop"},
         "float64"),
        ("qwen2 in shards float64", shards,
         {"op": "forward", "tokens": list(text[:32]), "outputs": ["nll", "logits", "hidden"]}, "float64"),
        ("llama-bytes text float32", llama_bytes,
         {"op": "forward", "text": text[:64].decode("utf-8", "replace"), "positions": list(range(100, 100 + 64)),
          "outputs": stats}, None),
    ]
    running = []
    for i, (name, model, request, dtype) in enumerate(forward_cases):
        running.append(start(script, tmp, "forward%d" % i, model, request, ["--dtype", dtype] if dtype else []))
    for (name, model, request, dtype), started in zip(forward_cases, running):
        want = cli(request, model)
        compare_forward(name, finish(started), want, NLL_TOL)

    # ---- run-export DIR REQUEST: request.json, the command, refusals; a Hub repo id as --model -------------------
    model_fields = {"file": llama_bytes, "config": os.path.join(llama_bytes, "config.json")}
    tiny = {"op": "forward", "tokens": list(text[:24]), "outputs": ["nll", "sink"]}
    with open(os.path.join(tmp, "tiny.json"), "w") as f:
        json.dump(dict(tiny, **model_fields), f, indent=1)
    grid_line = {"op": "passkey", "lengths": [260], "depths": [0.5], "seed": 2}
    exports = [("a file", os.path.join(tmp, "req-file"), [os.path.join(tmp, "tiny.json")], None, tiny, llama_bytes),
               ("stdin", os.path.join(tmp, "req-stdin"), ["-"], json.dumps(dict(grid_line, preset="gpt2")), grid_line,
                "CHECKPOINT_DIR"),
               ("inline", os.path.join(tmp, "req inline"), [json.dumps(dict(tiny, index=os.path.join(
                   shards, "model.safetensors.index.json")))], None, tiny, shards)]
    commands = []
    for what, dir, args, stdin, want, model in exports:
        code, line, err = export(dir, *args, stdin=stdin)
        paths = [os.path.join(dir, n) for n in ("ropeviz_run.py", "request.json", "result.json")]
        command = ["python3", paths[0], "--model", model, "--request", paths[1], "--out", paths[2]]
        check(code == 0 and isinstance(line, dict) and list(line) == ["script", "request", "command"] and
              line["script"] == paths[0] and line["request"] == paths[1] and shlex.split(line["command"]) == command,
              "run-export with a request (%s): exit %d, %s %s" % (what, code, line, err))
        commands.append(shlex.split(line["command"]) if isinstance(line, dict) else command)
        with open(paths[1]) as f:
            check(json.load(f) == want, "request.json (%s) is the request without file/index/config/preset" % what)
    hub, hub_env = fake_hub(tmp, shards)
    hub_tiny = dict(tiny, tokens=list(text[:16]), outputs=["nll"])
    commanded = subprocess.Popen([sys.executable] + commands[0][1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=ENV, start_new_session=True), commands[0][-1]
    hub_runs = [start(script, tmp, "hub", "ropeviz-fake/qwen2-shards@v1", hub_tiny, env=hub_env),
                start(script, tmp, "hub-none", "ropeviz-fake/no-such-repo", hub_tiny, env=hub_env),
                start(script, tmp, "hub-missing", "ropeviz-fake/qwen2-shards", hub_tiny,
                      env=dict(hub_env, PYTHONPATH=os.path.join(hub, "missing")))]
    for args, stdin in (([json.dumps({"op": "model", "preset": "gpt2"})], None), (['{"op": "forward",'], None),
                        ([os.path.join(tmp, "no-such-request.json")], None), (["-"], "[1, 2]"),
                        ([json.dumps(dict(tiny, outputs=["nll", "everything"]))], None)):
        code, line, err = export(os.path.join(tmp, "refused"), *args, stdin=stdin)
        check(code == 2 and line is None and "run-export: REQUEST" in err and not os.path.exists(
            os.path.join(tmp, "refused")), "run-export refuses %s: exit %d, %r %r" % (args or stdin, code, line, err))
    compare_forward("run-export's command", finish(commanded), cli(dict(tiny, **model_fields), llama_bytes), NLL_TOL)
    compare_forward("a Hub repo id (fake huggingface_hub)", finish(hub_runs[0]), cli(hub_tiny, shards), NLL_TOL)
    with open(hub_env["FAKE_HUB_LOG"]) as f:
        calls = [json.loads(l) for l in f]
    got = [c for c in calls if c["repo_id"] == "ropeviz-fake/qwen2-shards"]
    check(len(got) == 2 and all(c["revision"] == "v1" for c in got) and set(os.listdir(shards)) <= set(
        got[1]["allow_patterns"]) and "model.safetensors" in got[0]["allow_patterns"] and not os.path.exists(
        os.path.join(hub_env["FAKE_HUB_CACHE"], "ropeviz-fake", "qwen2-shards", "v1", "pytorch_model.bin")),
        "the Hub: config, index, then its shards, at the revision, nothing else: %s" % calls)
    code, doc, err = finish(hub_runs[1])
    check(code == 1 and doc is not None and doc.get("error", {}).get("type") == "IOError" and "Repository Not Found"
          in doc["error"].get("message", ""), "a Hub repo that cannot be downloaded: exit %r, %s %s" % (code, doc, err))
    code, doc, err = finish(hub_runs[2])
    message = (doc or {}).get("error", {}).get("message", "")
    check(code == 1 and "huggingface_hub" in message and "pip install huggingface_hub" in message,
          "a Hub repo id without huggingface_hub: exit %r, %s %s" % (code, doc, err[-500:]))

    # ---- passkey: 2 lengths x 2 depths over two processes (--nproc 2, and torchrun's environment) -------------------
    grid = {"op": "passkey", "lengths": [260, 300], "depths": [0, 1], "trials": 1, "seed": 5}
    port = free_port()
    nproc = start(script, tmp, "passkey", llama_bytes, grid, ["--dtype", "float64", "--nproc", "2"])
    ranks = [start(script, tmp, "passkey_torchrun", llama_bytes, grid, ["--dtype", "float64"], torchrun_env(r, port))
             for r in range(2)]
    want = cli(grid, llama_bytes)
    check("error" not in want, "the CLI's passkey: %s" % want)
    for what, started in (("--nproc 2", nproc), ("torchrun's environment", ranks[0])):
        code, doc, err = finish(started)
        check(code == 0 and doc is not None and "error" not in doc, "passkey %s: exit %r, %s %s" % (
            what, code, doc, err[-1500:]))
        if doc and "error" not in doc and "error" not in want:
            check(list(doc) == list(want) and doc["lengths"] == want["lengths"] and doc["depths"] == want["depths"],
                  "passkey %s: the CLI's keys, lengths and depths: %s" % (what, doc))
            check(doc["accuracy"] == want["accuracy"], "passkey %s: accuracy %s, the CLI's %s" % (
                what, doc["accuracy"], want["accuracy"]))
            gap = max(abs(a - b) for a, b in zip(flat(doc["key_logprob"]), flat(want["key_logprob"])))
            worst["passkey key_logprob, " + what] = gap
            check(gap <= NLL_TOL, "passkey %s: key_logprob differs from the CLI's by %.3g" % (what, gap))
    code, _, err = finish(ranks[1])
    check(code == 0, "torchrun's environment, rank 1: exit %r: %s" % (code, err[-1500:]))

    # ---- refusals: error documents with the CLI's types, exit 1 ---------------------------------------------------
    gpt2 = os.path.join(MODELS, "gpt2-bytes")
    past = {"op": "forward", "tokens": [65, 66], "positions": [1023, 1024]}
    failed = start(script, tmp, "failed", llama_bytes, dict(grid, lengths=[300]), ["--nproc", "2", "--timeout", "30"],
                   {"ROPEVIZ_RUN_FAIL_RANK": "1"})
    t0 = time.perf_counter()
    refusals = [("a position past the learned table", start(script, tmp, "past", gpt2, past), cli(past, gpt2)),
                ("a rope the CLI refuses", start(script, tmp, "skip", llama_bytes, dict(past, rope="skip")),
                 cli(dict(past, rope="skip"), llama_bytes))]
    nowhere = start(script, tmp, "nowhere", os.path.join(tmp, "no-such-model"), past)
    empty = start(script, tmp, "empty", tmp, past)
    cuda = None if torch.cuda.is_available() else start(script, tmp, "cuda", llama_bytes, past, ["--device", "cuda"])
    for what, started, want in refusals:
        code, doc, err = finish(started)
        check(code == 1 and doc == want and "error" in want, "%s: exit %r, %s; the CLI's %s" % (what, code, doc,
                                                                                                 want))
    code, doc, err = finish(nowhere)
    check(code == 1 and doc is not None and doc.get("error", {}).get("type") == "IOError" and "no-such-model" in
          doc["error"].get("message", ""), "a --model folder that is not there: exit %r, %s %s" % (code, doc, err))
    code, doc, err = finish(empty)
    check(code == 1 and doc is not None and "holds neither model.safetensors" in doc.get("error", {}).get(
        "message", ""), "a --model folder without weights: exit %r, %s" % (code, doc))
    if cuda:
        code, doc, err = finish(cuda)
        check(code == 1 and doc is not None and "PyTorch sees no GPU here" in doc.get("error", {}).get("message", ""),
              "--device cuda without a GPU: exit %r, %s" % (code, doc))
    code, doc, err = finish(failed)
    check(code == 1 and "rank 1 of 2 failed" in err and "RuntimeError: rank 1 stops: ROPEVIZ_RUN_FAIL_RANK=1" in err,
          "a failed rank fails the run: exit %r, %r" % (code, err[-1500:]))
    check(doc is not None and "rank 1 of 2 failed" in doc.get("error", {}).get("message", ""),
          "a failed rank's run writes an error document naming it: %s" % doc)
    check(time.perf_counter() - t0 < 30, "the failure ends the run promptly, not at the 30 s timeout")

for name, gap in sorted(worst.items()):
    print("%-45s |script - CLI| %.2e" % (name, gap))
print("%d checks, %d failures (%.1f s)" % (checks[0], len(failures), time.perf_counter() - t_start))
sys.exit(1 if failures else 0)
