#!/usr/bin/env python3
"""ropeviz-cli protocol test: every op of the eval protocol, every bad-input class, ordering, flushing, exit codes."""
import json
import math
import subprocess
import sys

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
failures = []
checks = [0]


def strict_loads(s):
    def bad_constant(c):
        raise ValueError("non-JSON constant " + c)
    return json.loads(s, parse_constant=bad_constant)


def run(lines):
    """Feed lines, return (responses, exit code)."""
    p = subprocess.run([CLI, "eval"], input="".join(l + "\n" for l in lines), capture_output=True, text=True, timeout=120)
    out = p.stdout.splitlines()
    return [strict_loads(o) for o in out], p.returncode


def check(cond, what):
    checks[0] += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b, rel=1e-14, abs_=1e-15):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def allclose(xs, ys, **kw):
    return len(xs) == len(ys) and all(close(x, y, **kw) for x, y in zip(xs, ys))


def rope_ref(x, pos, base, pairing):
    d = len(x)
    out = list(x)
    for i in range(d // 2):
        th = 1.0 / base ** (2 * i / d)
        c, s = math.cos(pos * th), math.sin(pos * th)
        a, b = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + d // 2)
        out[a] = x[a] * c - x[b] * s
        out[b] = x[a] * s + x[b] * c
    return out


# ---- the contract's ops, good requests --------------------------------------------------------------------------
x8 = [0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 3.0, -2.0]
q8 = [1, 2, 3, 4, 5, 6, 7, 8]
k8 = [8, 7, 6, 5, 4, 3, 2, 1]
table = [round(0.01 * i, 2) for i in range(80)]
good = [
    {"op": "inv_freq", "d_head": 8, "base": 10000.0},
    {"op": "inv_freq", "d_head": 8, "base": 10000.0, "scaling": {"type": "linear", "factor": 8.0}},
    {"op": "rotate", "d_head": 8, "base": 10000.0, "position": 100, "x": x8, "pairing": "interleaved"},
    {"op": "rotate", "d_head": 8, "base": 10000.0, "position": 100, "x": x8, "pairing": "half_split"},
    {"op": "rotate", "d_head": 8, "base": 10000.0, "position": 100, "x": x8},
    {"op": "score", "d_head": 8, "base": 10000.0, "q": q8, "k": k8, "m": 5, "n": 3, "pairing": "interleaved"},
    {"op": "score", "d_head": 8, "base": 10000.0, "q": q8, "k": k8, "m": 102, "n": 100, "pairing": "interleaved"},
    {"op": "lookup", "max_position": 10, "d": 8, "table": table, "positions": [5, 0, 9]},
    {"op": "sinusoidal", "d": 16, "positions": [0, 1, 2]},
    {"op": "decay_bound", "d": 128, "base": 10000.0, "distances": [0, 1, 2]},
    {"op": "rotate", "d_head": 8, "base": 10000.0, "position": 0, "x": x8, "pairing": "half_split"},
]
resp, rc = run([json.dumps(r) for r in good])
check(rc == 0, "exit 0 when every line is good (got %d)" % rc)
check(len(resp) == len(good), "one response per good line")
if len(resp) == len(good):
    check(resp[0] == {"inv_freq": [1.0, 0.1, 0.01, 0.001]}, "inv_freq d_head 8: " + json.dumps(resp[0]))
    check(allclose(resp[1]["inv_freq"], [0.125, 0.0125, 0.00125, 0.000125]) and resp[1]["attention_factor"] == 1.0,
          "linear scaling")
    for j, pairing in ((2, "interleaved"), (3, "half_split"), (4, "interleaved")):
        check(allclose(resp[j]["x_rot"], rope_ref(x8, 100, 10000.0, pairing)), "rotate " + pairing)
        check(allclose(resp[j]["angle"], [100.0, 10.0, 1.0, 0.1]), "rotate angles [100, 10, 1, 0.1]")
    check(close(resp[5]["score"], resp[6]["score"], rel=1e-12), "score depends only on m - n")
    ref = sum(a * b for a, b in zip(rope_ref(q8, 5, 1e4, "interleaved"), rope_ref(k8, 3, 1e4, "interleaved")))
    check(close(resp[5]["score"], ref, rel=1e-13), "score value")
    check(resp[7] == {"rows": [table[40:48], table[0:8], table[72:80]]}, "lookup rows, exact values")
    pe = resp[8]["pe"]
    check(len(pe) == 3 * 16, "sinusoidal length positions*d")
    exp_pe = []
    for pos in (0, 1, 2):
        for j in range(16):
            i = j // 2
            ang = pos / 10000 ** (2 * i / 16)
            exp_pe.append(math.sin(ang) if j % 2 == 0 else math.cos(ang))
    check(allclose(pe, exp_pe), "sinusoidal values")
    th = [1.0 / 10000 ** (2 * i / 128) for i in range(64)]
    exp_b = []
    for r in (0, 1, 2):
        S, tot = 0j, 0.0
        for t in th:
            S += complex(math.cos(r * t), math.sin(r * t))
            tot += abs(S)
        exp_b.append(tot / 64)
    check(allclose(resp[9]["bound"], exp_b, rel=1e-13), "decay_bound values")
    check(resp[10]["x_rot"] == x8, "position 0 is the identity")

# ---- round-trip number formatting: the printed text reads back as the same double ---------------------------------
p = subprocess.run([CLI, "eval"], input=json.dumps({"op": "inv_freq", "d_head": 128, "base": 10000.0}) + "\n",
                   capture_output=True, text=True)
vals = strict_loads(p.stdout)["inv_freq"]
check(all(v == 1.0 / 10000.0 ** (2 * i / 128) or close(v, 1.0 / 10000.0 ** (2 * i / 128), rel=2.3e-16)
          for i, v in enumerate(vals)), "inv_freq d_head 128 within 1 ulp of float64 formula")
check(all(repr(float(t)) == t or float(t) == v for t, v in zip(p.stdout.strip()[13:-2].split(","), vals)),
      "numbers round-trip")

# ---- bad requests: every class answered with an error object, processing continues ---------------------------------
bad = [
    ("malformed JSON", "{bad", "BadRequest"),
    ("truncated JSON", '{"op":"inv_freq","d_head":8', "BadRequest"),
    ("empty line", "", "BadRequest"),
    ("array, not object", "[1,2,3]", "BadRequest"),
    ("number, not object", "42", "BadRequest"),
    ("missing op", '{"d_head":8}', "BadRequest"),
    ("op not a string", '{"op":3}', "BadRequest"),
    ("unknown op", '{"op":"teleport"}', "BadRequest"),
    ("d_head string", '{"op":"inv_freq","d_head":"8","base":10000}', "BadRequest"),
    ("d_head fractional", '{"op":"inv_freq","d_head":8.5,"base":10000}', "BadRequest"),
    ("d_head bool", '{"op":"inv_freq","d_head":true,"base":10000}', "BadRequest"),
    ("odd d_head", '{"op":"inv_freq","d_head":7,"base":10000}', "BadRequest"),
    ("zero d_head", '{"op":"inv_freq","d_head":0,"base":10000}', "BadRequest"),
    ("negative d_head", '{"op":"inv_freq","d_head":-8,"base":10000}', "BadRequest"),
    ("absurd d_head", '{"op":"inv_freq","d_head":100000000,"base":10000}', "BadRequest"),
    ("huge d_head", '{"op":"inv_freq","d_head":1e300,"base":10000}', "BadRequest"),
    ("base = 1", '{"op":"inv_freq","d_head":8,"base":1}', "BadRequest"),
    ("base < 1", '{"op":"inv_freq","d_head":8,"base":0.5}', "BadRequest"),
    ("base negative", '{"op":"inv_freq","d_head":8,"base":-10000}', "BadRequest"),
    ("base non-finite", '{"op":"inv_freq","d_head":8,"base":1e999}', "BadRequest"),
    ("base NaN literal", '{"op":"inv_freq","d_head":8,"base":NaN}', "BadRequest"),
    ("base string", '{"op":"inv_freq","d_head":8,"base":"big"}', "BadRequest"),
    ("negative position", '{"op":"rotate","d_head":8,"position":-1,"x":[1,2,3,4,5,6,7,8]}', "BadRequest"),
    ("position string", '{"op":"rotate","d_head":8,"position":"5","x":[1,2,3,4,5,6,7,8]}', "BadRequest"),
    ("position missing", '{"op":"rotate","d_head":8,"x":[1,2,3,4,5,6,7,8]}', "BadRequest"),
    ("x too short", '{"op":"rotate","d_head":8,"position":1,"x":[1,2,3]}', "BadRequest"),
    ("x too long", '{"op":"rotate","d_head":8,"position":1,"x":[1,2,3,4,5,6,7,8,9]}', "BadRequest"),
    ("x not array", '{"op":"rotate","d_head":8,"position":1,"x":"12345678"}', "BadRequest"),
    ("x has null", '{"op":"rotate","d_head":8,"position":1,"x":[1,2,3,4,5,6,7,null]}', "BadRequest"),
    ("x has overflow", '{"op":"rotate","d_head":8,"position":1,"x":[1,2,3,4,5,6,7,1e999]}', "BadRequest"),
    ("unknown pairing", '{"op":"rotate","d_head":8,"position":1,"x":[1,2,3,4,5,6,7,8],"pairing":"diagonal"}', "BadRequest"),
    ("overflowing result", '{"op":"rotate","d_head":2,"position":0.5,"x":[1.7e308,1.7e308]}', "BadRequest"),
    ("negative m", '{"op":"score","d_head":2,"q":[1,2],"k":[3,4],"m":-5,"n":3}', "BadRequest"),
    ("k wrong length", '{"op":"score","d_head":2,"q":[1,2],"k":[3],"m":5,"n":3}', "BadRequest"),
    ("lookup past end", '{"op":"lookup","max_position":10,"d":1,"table":[0,1,2,3,4,5,6,7,8,9],"positions":[5,100]}',
     "IndexError"),
    ("lookup negative", '{"op":"lookup","max_position":10,"d":1,"table":[0,1,2,3,4,5,6,7,8,9],"positions":[-1]}',
     "IndexError"),
    ("lookup fractional", '{"op":"lookup","max_position":10,"d":1,"table":[0,1,2,3,4,5,6,7,8,9],"positions":[1.5]}',
     "BadRequest"),
    ("table wrong length", '{"op":"lookup","max_position":10,"d":2,"table":[0,1,2],"positions":[1]}', "BadRequest"),
    ("table absurd size", '{"op":"lookup","max_position":1000000000,"d":4096,"positions":[1]}', "BadRequest"),
    ("max_position zero", '{"op":"lookup","max_position":0,"d":2,"table":[],"positions":[0]}', "BadRequest"),
    ("sinusoidal odd d", '{"op":"sinusoidal","d":7,"positions":[0]}', "BadRequest"),
    ("sinusoidal negative position", '{"op":"sinusoidal","d":8,"positions":[-3]}', "BadRequest"),
    ("sinusoidal absurd", '{"op":"sinusoidal","d":65536,"positions":[' + ",".join(["1"] * 1000) + "]}", "BadRequest"),
    ("decay odd d", '{"op":"decay_bound","d":7,"base":10000,"distances":[0]}', "BadRequest"),
    ("decay base <= 1", '{"op":"decay_bound","d":8,"base":1,"distances":[0]}', "BadRequest"),
    ("decay distances not numbers", '{"op":"decay_bound","d":8,"distances":["far"]}', "BadRequest"),
    ("scaling unknown type", '{"op":"inv_freq","d_head":8,"base":10000,"scaling":{"type":"magic","factor":2}}',
     "BadRequest"),
    ("scaling factor missing", '{"op":"inv_freq","d_head":8,"base":10000,"scaling":{"type":"linear"}}', "BadRequest"),
    ("scaling factor negative", '{"op":"inv_freq","d_head":8,"base":10000,"scaling":{"type":"linear","factor":-2}}',
     "BadRequest"),
    ("scaling not object", '{"op":"inv_freq","d_head":8,"base":10000,"scaling":"yarn"}', "BadRequest"),
    ("yarn without lengths", '{"op":"inv_freq","d_head":8,"base":10000,"scaling":{"type":"yarn","factor":4}}',
     "BadRequest"),
    ("dynamic without max_position_embeddings",
     '{"op":"inv_freq","d_head":8,"base":10000,"scaling":{"type":"dynamic","factor":2,"seq_len":100}}', "BadRequest"),
]
ok_line = json.dumps({"op": "inv_freq", "d_head": 4, "base": 10000.0})
lines = []
for _, line, _ in bad:
    lines += [line, ok_line]
resp, rc = run(lines)
check(rc == 1, "exit 1 when any line failed (got %d)" % rc)
check(len(resp) == len(lines), "one response per line, including bad ones (%d vs %d)" % (len(resp), len(lines)))
for n, (name, line, etype) in enumerate(bad):
    if 2 * n + 1 >= len(resp):
        break
    r, after = resp[2 * n], resp[2 * n + 1]
    err = r.get("error") if isinstance(r, dict) else None
    check(isinstance(err, dict) and err.get("type") == etype and isinstance(err.get("message"), str)
          and len(err["message"]) > 5 and list(r.keys()) == ["error"], "%s -> %s error, got %s" % (name, etype, r))
    check(after == {"inv_freq": [1.0, 0.01]}, "next line still served after: " + name)
lookup_err = resp[2 * [b[0] for b in bad].index("lookup past end")]
check(lookup_err == {"error": {"type": "IndexError",
                               "message": "index 100 is out of bounds for dimension 0 with size 10"}},
      "IndexError message matches PyTorch exactly")
neg_err = resp[2 * [b[0] for b in bad].index("lookup negative")]
check(neg_err["error"]["message"] == "index -1 is out of bounds for dimension 0 with size 10", "negative index message")

# ---- flushing: a response arrives before stdin is closed ----------------------------------------------------------
proc = subprocess.Popen([CLI, "eval"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for i in range(3):
    proc.stdin.write(json.dumps({"op": "inv_freq", "d_head": 2 * (i + 1), "base": 10000.0}) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    check(len(strict_loads(line)["inv_freq"]) == i + 1, "interactive response %d arrives before EOF" % i)
proc.stdin.write('{"op":"inv_freq","d_head":8}')  # last line without newline is still answered
proc.stdin.close()
check(strict_loads(proc.stdout.readline()) == {"inv_freq": [1.0, 0.1, 0.01, 0.001]}, "last line without newline")
check(proc.wait(timeout=30) == 0, "interactive session exits 0")

# ---- CRLF line endings and the other subcommands --------------------------------------------------------------------
p = subprocess.run([CLI, "eval"], input='{"op":"inv_freq","d_head":2}\r\n', capture_output=True, text=True)
check(p.returncode == 0 and strict_loads(p.stdout) == {"inv_freq": [1.0]}, "CRLF accepted")
p = subprocess.run([CLI, "verify"], capture_output=True, text=True)
check(p.returncode == 0 and "IndexError: index 100 is out of bounds for dimension 0 with size 10" in p.stdout,
      "verify exits 0 and shows the IndexError")
p = subprocess.run([CLI, "--help"], capture_output=True, text=True)
check(p.returncode == 0 and all(op in p.stdout for op in
                                ["inv_freq", "rotate", "score", "lookup", "sinusoidal", "decay_bound", "scaling"]),
      "--help documents every op")
p = subprocess.run([CLI, "frobnicate"], capture_output=True, text=True)
check(p.returncode != 0, "unknown subcommand fails")

print("%d checks," % checks[0], "%d failures" % len(failures) if failures else "cli_test: all checks passed")
sys.exit(1 if failures else 0)
