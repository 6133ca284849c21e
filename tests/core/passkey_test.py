#!/usr/bin/env python3
"""The passkey op (docs/passkey.md) against the document as ropeviz_run.py (src/core/infer, the script
`ropeviz-cli run-export` writes) builds it: the keys (splitmix64), the prompt, the filler's bisection and, where
PyTorch is importable, the teacher-forced score through its float64 pass on llama-bytes; then the refusals and the
grid's own invariants. Usage: passkey_test.py CLI."""
import json
import math
import os
import sys

import cli_harness
from cli_harness import check, checks, failures, legacy_spelling
from ropeviz_run import passkey_keys, passkey_trial

CLI = sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODEL = os.path.join(ROOT, "web", "models", "llama-bytes")


def utf8(text):
    return list(text.encode())


def trial_ids(key, length, depth):
    """The bytes of the prompt at the largest filler within `length` (the document's bisection), then the answer's."""
    ids, at = passkey_trial(utf8, utf8, key, length, depth)
    return ids[:at], at, ids[at:]


def ask(req):
    return cli_harness.ask(CLI, [req])[0]


base = {"op": "passkey", "file": MODEL, "lengths": [300, 700], "depths": [0, 0.5, 1], "trials": 2, "seed": 7}
doc = ask(base)
check(set(doc) == {"lengths", "depths", "accuracy", "key_logprob"}, "the document's keys: %s" % sorted(doc))
check(doc.get("lengths") == [300, 700] and doc.get("depths") == [0, 0.5, 1], "lengths and depths echoed")
acc, lp = doc.get("accuracy", []), doc.get("key_logprob", [])
check(len(acc) == 2 and all(len(r) == 3 for r in acc) and len(lp) == 2 and all(len(r) == 3 for r in lp),
      "accuracy and key_logprob are [lengths][depths]")
check(all(a in (0.0, 0.5, 1.0) for r in acc for a in r), "accuracy counts whole trials (0, 1/2 or 1 of 2)")
check(all(x < 0 and math.isfinite(x) for r in lp for x in r), "key_logprob is a finite log-probability")
check(ask(dict(base, threads=1)) == doc, "the same document on 1 thread as on the machine's")
other = ask(dict(base, seed=8))
check(other.get("key_logprob") != lp, "another seed hides other keys")

# The first trial of every cell, written again from the document: the keys and the ids its bisection gives.
ks = passkey_keys(7, 2 * 3 * 2)
for i, length in enumerate(base["lengths"]):
    for j, depth in enumerate(base["depths"]):
        ids, at, answer = trial_ids(ks[(i * 3 + j) * 2], length, depth)
        check(len(ids) + len(answer) == length,
              "a byte-level trial fills its length exactly (%d, %s)" % (length, depth))

try:
    import torch
    from ropeviz_run import forward, load_safetensors
except ImportError as e:  # the rest needs PyTorch
    print("no PyTorch (%s): the score's float64 check is skipped" % e)
    torch = None
if torch is not None:
    W = load_safetensors(os.path.join(MODEL, "model.safetensors"))
    with open(os.path.join(MODEL, "config.json")) as f:
        cfg = legacy_spelling(json.load(f))
    worst = 0.0
    for i, length in enumerate([300]):
        for j, depth in enumerate(base["depths"]):
            right, total = 0, 0.0
            for t in range(2):
                ids, at, answer = trial_ids(ks[(i * 3 + j) * 2 + t], length, depth)
                _, logits, _ = forward(W, cfg, ids + answer)
                logp = torch.log_softmax(logits, -1)
                hits = [int(logits[at + a - 1].argmax()) == answer[a] for a in range(len(answer))]
                right += all(hits)
                total += sum(float(logp[at + a - 1, answer[a]]) for a in range(len(answer))) / len(answer)
            check(right / 2 == acc[i][j],
                  "accuracy at %d, depth %s: %s as the float64 pass" % (length, depth, right / 2))
            worst = max(worst, abs(total / 2 - lp[i][j]))
    check(worst < 1e-3, "key_logprob within 1e-3 of the float64 pass (worst %.2g)" % worst)
    print("key_logprob against float64 torch: worst %.3g" % worst)

# Refusals, each naming what is wrong.
for bad, says in [({"lengths": [10]}, "shorter than the prompt without filler"),
                  ({"depths": [1.5]}, "outside [0, 1]"),
                  ({"trials": 0}, "\"trials\" must be in [1, 64]"),
                  ({"lengths": list(range(300, 317 + 300))}, "\"lengths\""),
                  ({"seed": -1}, "\"seed\""),
                  ({"rope": "sideways"}, "\"rope\" must be")]:
    answer = ask(dict(base, **bad))
    message = answer.get("error", {}).get("message", "")
    check(says in message, "refused %s: %s" % (json.dumps(bad)[:60], message))
gpt2 = os.path.join(ROOT, "tests", "fixtures", "tokenizers", "gpt2_bytelevel", "tokenizer.json")
wrong = ask(dict(base, tokenizer=gpt2))  # GPT-2's ids are past the byte model's 256 rows
check(wrong.get("error", {}).get("type") == "IndexError" and "with size 256" in wrong["error"].get("message", ""),
      "a tokenizer whose ids the model has no row for: the pass's IndexError (%s)" % wrong)
missing = ask(dict(base, tokenizer="/nonexistent/tokenizer.json"))
check("cannot read" in missing.get("error", {}).get("message", ""), "a tokenizer that cannot be read is named")

print("passkey: %d checks, %d failed" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
