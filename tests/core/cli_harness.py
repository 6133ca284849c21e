"""Shared by the CLI's Python cross-checks: a check counter, one round trip through `ropeviz-cli eval`, and the
import path of the float64 reference, src/core/infer/ropeviz_run.py (the script `ropeviz-cli run-export` writes):
after `import cli_harness`, `import ropeviz_run` finds it (it imports without PyTorch too)."""
import json
import os
import subprocess
import sys

RUN_SCRIPT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "core", "infer")
sys.path.insert(0, RUN_SCRIPT_DIR)

failures = []
checks = [0]


def check(cond, what):
    checks[0] += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def ask(cli, reqs, timeout=300):
    """One JSON request per line in, the parsed responses out, in order."""
    p = subprocess.run([cli, "eval"], input="".join(json.dumps(r) + "\n" for r in reqs), capture_output=True,
                       text=True, timeout=timeout)
    return [json.loads(l) for l in p.stdout.splitlines()]


def legacy_spelling(cfg):
    """ropeviz_run.legacy_spelling: a transformers 5 config in the spelling before it (imported when first asked for,
    so that the tests that never need it do not import PyTorch with the script)."""
    from ropeviz_run import legacy_spelling as spelling
    return spelling(cfg)


def as_exported(script, source=os.environ.get("ROPEVIZ_LAB_SCRIPT")):
    """With a source script: that script replaces the exported one, all but the export's DEFAULTS line."""
    if source and os.path.exists(script):
        with open(script) as f:
            defaults = next(line for line in f if line.startswith("DEFAULTS = "))
        with open(source) as f:
            text = "".join(defaults if line.startswith("DEFAULTS = ") else line for line in f)
        with open(script, "w") as f:
            f.write(text)
