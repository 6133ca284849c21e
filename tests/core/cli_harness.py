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


def legacy_spelling(cfg):
    """A config written by transformers 5 (rope_parameters) in the spelling before it: rope_theta, rope_scaling and
    partial_rotary_factor at the top level; by layer type (Gemma 3), full_attention's and rope_local_base_freq."""
    out = {k: v for k, v in cfg.items() if k != "rope_parameters"}
    rp = cfg.get("rope_parameters")
    if rp is None:
        return out
    if "full_attention" in rp or "sliding_attention" in rp:
        sliding = rp.get("sliding_attention") or {}
        if "rope_theta" in sliding:
            out["rope_local_base_freq"] = sliding["rope_theta"]
        rp = rp.get("full_attention") or {}
    rp = dict(rp)
    for key in ("rope_theta", "partial_rotary_factor"):
        if key in rp:
            out[key] = rp.pop(key)
    if rp and rp != {"rope_type": "default"}:
        out["rope_scaling"] = rp
    return out
