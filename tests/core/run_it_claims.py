#!/usr/bin/env python3
"""The lesson's claims about trained models, measured by the forward op on the demo models (web/models, trained on
real text) over held-out windows: RoPE runs past its training length of 512 but its loss climbs; Llama 3's rule rescues
it without training; linear interpolation without fine-tuning spoils even the trained range, and a short fine-tune
under it (llama-bytes-pi4) fixes that; the learned table fails at its row 1,024; the same text shifted keeps a RoPE
model's loss to rounding and changes a learned-table model's. The margins are wide: what could fail is the claim."""
import json
import os
import sys

import cli_harness
from cli_harness import check, checks, failures

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web", "models")
T = 1536


def request(model, tokens, **extra):
    with open(os.path.join(MODELS, model, "config.json")) as f:
        cfg = json.load(f)
    return dict({"op": "forward", "file": os.path.join(MODELS, model, "model.safetensors"), "config": cfg,
                 "tokens": tokens}, **extra)


def mean(xs):
    return sum(xs) / len(xs)


with open(os.path.join(MODELS, "heldout.txt"), "rb") as f:
    text = f.read()
windows = [list(text[i:i + T]) for i in (400000,)]  # one window (the ASan build runs it too); 50,000 passes as well
runs = {"none": ("llama-bytes", "none"),
        "llama3": ("llama-bytes", {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 512}),
        "linear": ("llama-bytes", {"rope_type": "linear", "factor": 4.0}),
        "pi4": ("llama-bytes-pi4", None)}
reqs = [request(m, w, **({"rope_scaling": s} if s else {})) for m, s in runs.values() for w in windows]
out = cli_harness.ask(CLI, reqs)
check(len(out) == len(reqs) and all("nll" in o for o in out), "every window answered: %s" % str(out)[:300])
loss = {}
for i, name in enumerate(runs):
    nll = [o["nll"] for o in out[i * len(windows):(i + 1) * len(windows)]] if len(out) == len(reqs) else [[0] * T]
    loss[name] = (mean([mean(n[63:511]) for n in nll]), mean([mean(n[1023:]) for n in nll]))  # nll[t] predicts t + 1
    print("%-7s positions 64-511: %.3f, 1024-%d: %.3f nats/byte" % (name, loss[name][0], T - 1, loss[name][1]))
inside, past = loss["none"]
check(past > 2.0 * inside, "trained at 512, RoPE runs at 1,024+ but its loss climbs: %.2f -> %.2f" % (inside, past))
check(loss["llama3"][1] < 0.5 * past and loss["llama3"][1] < 1.2 * loss["llama3"][0],
      "Llama 3's rule (x4) without training keeps 1,024+ near the trained range: %.2f" % loss["llama3"][1])
check(loss["linear"][0] > 2.0 * inside,
      "linear x4 without fine-tuning spoils the trained range: %.2f against %.2f" % (loss["linear"][0], inside))
check(loss["pi4"][1] < 1.5 * loss["pi4"][0],
      "after 40 s of fine-tuning under linear x4 the model holds to 1,535: %.2f, %.2f" % loss["pi4"])

# the learned table's last row, and the shift test
text256 = list(text[100000:100256])
a, b, c, d, e, g = cli_harness.ask(CLI, [
    request("gpt2-bytes", [65, 66], positions=[1022, 1023]),
    request("gpt2-bytes", [65, 66], positions=[1023, 1024]),
    request("llama-bytes", text256), request("llama-bytes", text256, positions=list(range(768, 1024))),
    request("gpt2-bytes", text256), request("gpt2-bytes", text256, positions=list(range(512, 768)))])
check("nll" in a, "gpt2-bytes serves position 1,023: %s" % a)
check(b.get("error", {}).get("message") == "index 1024 is out of bounds for dimension 0 with size 1024" and
      b["error"]["type"] == "IndexError", "gpt2-bytes at position 1,024: PyTorch's IndexError: %s" % b)
shift = max(abs(x - y) for x, y in zip(c.get("nll", []), d.get("nll", [1])))
check(shift < 1e-4, "RoPE: the same text 768 positions later, the same loss up to rounding: %.2g" % shift)
learned = (mean(e.get("nll", [0])), mean(g.get("nll", [0])))
check(learned[1] > 1.5 * learned[0], "learned table: the same text 512 positions later, loss %.2f -> %.2f" % learned)
print("shift: RoPE max |d nll| %.2g; learned table %.2f -> %.2f" % ((shift,) + learned))
print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
