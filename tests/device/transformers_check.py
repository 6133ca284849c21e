#!/usr/bin/env python3
"""The forward op against Hugging Face transformers' own models, for a machine that has transformers (docs/building.md,
"Checks on a GPU machine"). Two steps, so that the machine with transformers needs no C++ toolchain:

  prepare CLI OUT      here: every case's request through `ropeviz-cli eval`, written with its answer to OUT/cases.json
  compare OUT          there: each case through AutoModelForCausalLM (eager attention, float64 on the CPU by default)
                       and the answers held to it: NLL within 1e-3 per position, logits within 1e-3

The cases: every family's random-weight checkpoint (tests/fixtures/checkpoints, as transformers 5.17 saved them) on 48
seeded tokens; llama under each rope_scaling at inference and at shifted positions; the demo models (web/models) on
1,024 held-out bytes, llama-bytes under each scaling at 2,048, where its loss by position is the Run it measurement.
`compare --reference ropeviz_run` uses the float64 reference script instead of transformers (a check of this file)."""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CHECKPOINTS = os.path.join("tests", "fixtures", "checkpoints")
MODELS = os.path.join("web", "models")
NLL_TOL = 1e-3
LOGIT_TOL = 1e-3
# the keys a rope_scaling at inference replaces in a config's rope_parameters (rope_theta and partial rotary stay)
SCALING_KEYS = ("rope_type", "type", "factor", "original_max_position_embeddings", "low_freq_factor",
                "high_freq_factor", "beta_fast", "beta_slow", "attention_factor", "mscale", "mscale_all_dim",
                "short_factor", "long_factor", "truncate")
SCALINGS = {
    "none": "none",
    "linear x4": {"rope_type": "linear", "factor": 4.0},
    "dynamic x4": {"rope_type": "dynamic", "factor": 4.0},
    "yarn x4": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512},
    "llama3 x4": {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 512,
                  "low_freq_factor": 1.0, "high_freq_factor": 4.0},
}


def read_json(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def cases():
    """(name, folder relative to the repository, tokens, positions or None, rope_scaling or None, keep logits)."""
    rng = random.Random(7)
    out = []
    for fam in sorted(os.listdir(os.path.join(ROOT, CHECKPOINTS))):
        out.append((fam, os.path.join(CHECKPOINTS, fam), [rng.randrange(256) for _ in range(48)], None, None, True))
    llama = os.path.join(CHECKPOINTS, "llama")
    tokens = [rng.randrange(256) for _ in range(48)]
    for name, scaling in SCALINGS.items():
        small = scaling if not isinstance(scaling, dict) or "original_max_position_embeddings" not in scaling \
            else dict(scaling, original_max_position_embeddings=64)
        out.append(("llama " + name, llama, tokens, None, small, True))
    out.append(("llama positions + 1000", llama, tokens, [1000 + t for t in range(48)], None, True))
    with open(os.path.join(ROOT, MODELS, "heldout.txt"), "rb") as f:
        text = f.read()
    for name in ("llama-bytes", "llama-bytes-pi4", "gpt2-bytes"):
        out.append((name, os.path.join(MODELS, name), list(text[20000:21024]), None, None, False))
    for name, scaling in SCALINGS.items():
        out.append(("llama-bytes 2,048 " + name, os.path.join(MODELS, "llama-bytes"), list(text[40000:42048]), None,
                    scaling, False))
    return out


def prepare(cli, out_dir):
    rows, reqs = [], []
    for name, folder, tokens, positions, scaling, logits in cases():
        req = {"op": "forward", "file": os.path.join(ROOT, folder, "model.safetensors"),
               "config": read_json(os.path.join(folder, "config.json")), "tokens": tokens,
               "outputs": ["nll", "logits"] if logits else ["nll"]}
        if positions is not None:
            req["positions"] = positions
        if scaling is not None:
            req["rope_scaling"] = scaling
        reqs.append(req)
        rows.append({"name": name, "folder": folder, "tokens": tokens, "positions": positions, "rope_scaling": scaling})
    started = time.time()
    run = subprocess.run([cli, "eval"], input="".join(json.dumps(r) + "\n" for r in reqs), capture_output=True,
                         text=True, timeout=1800)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    if len(answers) != len(reqs):
        print("FAIL: ropeviz-cli eval answered %d of %d requests: %s" % (len(answers), len(reqs), run.stderr[-500:]))
        return 1
    for row, answer in zip(rows, answers):
        row["answer"] = answer
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump({"cli_seconds": time.time() - started, "cases": rows}, f)
    errors = [r["name"] for r in rows if "error" in r["answer"]]
    print("prepared %d cases in %.1f s%s" % (len(rows), time.time() - started,
                                              "; errors: " + ", ".join(errors) if errors else ""))
    return 1 if errors else 0


def hf_rope(rope_parameters, scaling):
    """The config's rope_parameters with a scaling at inference in place of its own (transformers 5's spelling)."""
    kept = {k: v for k, v in (rope_parameters or {}).items() if k not in SCALING_KEYS}
    if scaling == "none":
        return dict(kept, rope_type="default")
    return dict(kept, **scaling)


class Transformers:
    """A case through transformers' *ForCausalLM: (nll [T-1], logits [T, V]) as float64 tensors."""

    def __init__(self, device, dtype):
        import torch
        import transformers
        self.torch, self.transformers, self.device = torch, transformers, device
        self.dtype = getattr(torch, dtype)
        self.version = "transformers %s, torch %s, %s %s" % (transformers.__version__, torch.__version__, device,
                                                            dtype)

    def __call__(self, case):
        torch, tf = self.torch, self.transformers
        folder = os.path.join(ROOT, case["folder"])
        config = tf.AutoConfig.from_pretrained(folder)
        if case["rope_scaling"] is not None:
            config.rope_parameters = hf_rope(getattr(config, "rope_parameters", None), case["rope_scaling"])
        try:
            model = tf.AutoModelForCausalLM.from_pretrained(folder, config=config, dtype=self.dtype,
                                                            attn_implementation="eager")
        except TypeError:  # transformers 4's name for dtype
            model = tf.AutoModelForCausalLM.from_pretrained(folder, config=config, torch_dtype=self.dtype,
                                                            attn_implementation="eager")
        model = model.to(self.device).eval()
        ids = torch.tensor([case["tokens"]], device=self.device)
        kwargs = {"input_ids": ids, "use_cache": False}
        if case["positions"] is not None:
            kwargs["position_ids"] = torch.tensor([case["positions"]], device=self.device)
        with torch.no_grad():
            logits = model(**kwargs).logits[0].double().cpu()
        nll = torch.nn.functional.cross_entropy(logits[:-1], ids[0, 1:].cpu(), reduction="none")
        return nll, logits


class Reference:
    """The same through ropeviz_run.py's float64 forward pass: a check of this file without transformers."""

    def __init__(self):
        sys.path.insert(0, os.path.join(ROOT, "src", "core", "infer"))
        import ropeviz_run
        self.run = ropeviz_run
        self.version = "ropeviz_run.py's float64 reference"

    def __call__(self, case):
        r = self.run
        folder = os.path.join(ROOT, case["folder"])
        cfg = r.legacy_spelling(read_json(os.path.join(case["folder"], "config.json")))
        W = r.load_safetensors(os.path.join(folder, "model.safetensors"))
        scaling = "config" if case["rope_scaling"] is None else case["rope_scaling"]
        nll, logits, _ = r.forward(W, cfg, case["tokens"], case["positions"], scaling, False, r.Record())
        return nll.double(), logits.double()


def band(nll, lo, hi):
    xs = nll[lo:hi]
    return sum(xs) / len(xs) if xs else float("nan")


def compare(out_dir, reference, device, dtype):
    with open(os.path.join(out_dir, "cases.json")) as f:
        doc = json.load(f)
    ref = Reference() if reference == "ropeviz_run" else Transformers(device, dtype)
    import torch
    print("reference: %s" % ref.version)
    failures = 0
    for case in doc["cases"]:
        started = time.time()
        answer = case["answer"]
        try:
            nll, logits = ref(case)
        except Exception as e:  # noqa: BLE001: a case the reference cannot run is reported, the others go on
            print("FAIL %s: the reference raised %s: %s" % (case["name"], type(e).__name__, str(e)[:300]))
            failures += 1
            continue
        got = torch.tensor(answer.get("nll", []), dtype=torch.float64)
        gap = (got - nll).abs().max().item() if got.shape == nll.shape else math.inf
        line = "%s: |nll - reference| %.2e" % (case["name"], gap)
        ok = gap <= NLL_TOL
        if "logits" in answer:
            lg = torch.tensor(answer["logits"], dtype=torch.float64)
            lgap = (lg - logits).abs().max().item() if lg.shape == logits.shape else math.inf
            line += ", logits %.2e" % lgap
            ok = ok and lgap <= LOGIT_TOL
        if len(case["tokens"]) >= 2048:  # the loss by position, as Run it draws it
            ours, theirs = got.tolist(), nll.tolist()
            line += "; nats/byte 64-511 / 600-1023 / 1024-2047: ropeviz %.3f / %.3f / %.3f, reference %.3f / %.3f / " \
                    "%.3f" % (band(ours, 64, 511), band(ours, 600, 1023), band(ours, 1024, 2047),
                              band(theirs, 64, 511), band(theirs, 600, 1023), band(theirs, 1024, 2047))
        print("%s %s (%.1f s)" % ("ok  " if ok else "FAIL", line, time.time() - started))
        failures += not ok
    print("%d of %d cases within NLL %g and logits %g of %s" % (len(doc["cases"]) - failures, len(doc["cases"]),
                                                               NLL_TOL, LOGIT_TOL, ref.version))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("cli")
    p.add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("out")
    c.add_argument("--reference", choices=["transformers", "ropeviz_run"], default="transformers")
    c.add_argument("--device", default="cpu")
    c.add_argument("--dtype", choices=["float32", "float64"], default="float64")
    a = ap.parse_args()
    if a.step == "prepare":
        return prepare(a.cli, a.out)
    return compare(a.out, a.reference, a.device, a.dtype)


if __name__ == "__main__":
    sys.exit(main())
