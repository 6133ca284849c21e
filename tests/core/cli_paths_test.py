#!/usr/bin/env python3
"""The checkpoint ops' paths, as a newcomer writes them: a checkpoint's folder as "file" (its model.safetensors, else
its index), "config" as a config.json's path, the config.json beside the checkpoint when neither "config" nor "preset"
is given (as the page and the desktop read it), each refusal naming what is wrong; and a config that describes
another model (a preset of another size) refused by real_scores, which would read the wrong rows."""
import json
import os
import shutil
import sys
import tempfile

import cli_harness
from cli_harness import check, checks, failures

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODEL = os.path.join(ROOT, "web", "models", "llama-bytes")
CONFIG = os.path.join(MODEL, "config.json")
with open(CONFIG) as f:
    cfg = json.load(f)
FILE = os.path.join(MODEL, "model.safetensors")

with tempfile.TemporaryDirectory() as tmp:
    bare = os.path.join(tmp, "bare")  # weights without a config.json
    os.mkdir(bare)
    shutil.copy(FILE, bare)
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    reqs = [
        ({"op": "forward", "file": FILE, "config": cfg, "text": "apt-get"}, None),
        ({"op": "forward", "file": MODEL, "text": "apt-get"}, "same"),
        ({"op": "forward", "file": MODEL + "/", "config": CONFIG, "text": "apt-get"}, "same"),
        ({"op": "forward", "file": FILE, "text": "apt-get"}, "same"),
        ({"op": "rope_usage", "file": MODEL}, "ok"),
        ({"op": "real_scores", "file": MODEL, "token": 65, "key_token": 66, "offsets": 2}, "ok"),
        ({"op": "forward", "file": empty, "text": "x"},
         "holds neither model.safetensors nor model.safetensors.index.json"),
        ({"op": "forward", "file": bare, "text": "x"}, "there is no " + bare + "/config.json beside the checkpoint"),
        ({"op": "forward", "file": MODEL, "config": os.path.join(tmp, "nope.json"), "text": "x"},
         "config: cannot read"),
        ({"op": "forward", "file": CONFIG, "text": "x"}, "\"file\" names a .json file: give it as \"index\""),
        ({"op": "real_scores", "file": MODEL, "preset": "llama-2-7b", "token": 65, "key_token": 66},
         "config: hidden_size 4096, 32 heads of 128, but the checkpoint's \"model.embed_tokens.weight\" is 256 wide"),
    ]
    out = cli_harness.ask(CLI, [r for r, _ in reqs])
    check(len(out) == len(reqs), "one answer a request")
    first = out[0] if out else {}
    check("nll" in first and len(first["nll"]) == 6, "forward with the config object: %s" % first)
    for (req, want), got in zip(reqs[1:], out[1:]):
        message = (got.get("error") or {}).get("message", "")
        if want == "same":
            check(got == first, "%s: the same answer as with the config object: %s" % (req, str(got)[:200]))
        elif want == "ok":
            check("error" not in got, "%s: %s" % (req["op"], message))
        else:
            check(want in message, "%s: %r" % (req, message))

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
