"""Shared by the CLI's Python cross-checks: a check counter and one round trip through `ropeviz-cli eval`."""
import json
import subprocess

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
