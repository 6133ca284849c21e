#!/usr/bin/env python3
"""ropeviz-cli protocol test: every op of the eval protocol, every bad-input class, ordering, flushing, exit codes."""
import json
import re
import math
import os
import subprocess
import sys
import tempfile

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
failures = []
checks = [0]


def strict_loads(s):
    def bad_constant(c):
        raise ValueError("non-JSON constant " + c)
    return json.loads(s, parse_constant=bad_constant)


def run(lines):
    """Feed lines, return (responses, exit code)."""
    p = subprocess.run([CLI, "eval"], input="".join(l + "\n" for l in lines), capture_output=True, text=True,
                       timeout=120)
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
    ("unknown pairing", '{"op":"rotate","d_head":8,"position":1,"x":[1,2,3,4,5,6,7,8],"pairing":"diagonal"}',
     "BadRequest"),
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
listed = re.findall(r'^      \{"op":"([a-z_]+)"', p.stdout, re.M)
check(p.returncode == 0 and len(listed) >= 19 and "preset" in p.stdout, "--help lists the ops, a request each")
asked = "".join(json.dumps({"op": op}) + "\n" for op in listed + ["frobnicate"])
answers = [strict_loads(line) for line in
           subprocess.run([CLI, "eval"], input=asked, capture_output=True, text=True).stdout.splitlines()]
check(all("unknown op" not in json.dumps(a) for a in answers[:-1]) and "unknown op" in json.dumps(answers[-1]),
      "every op --help lists is one eval serves (it lists them from the table eval dispatches by)")
p = subprocess.run([CLI, "frobnicate"], capture_output=True, text=True)
check(p.returncode != 0, "unknown subcommand fails")

# ---- real models: model and analyze ----------------------------------------------------------------------------------
import os  # noqa: E402
FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "configs")
llama31 = json.load(open(os.path.join(FIX, "llama-3.1-8b.json")))
resp, rc = run([json.dumps({"op": "model", "preset": "llama-3.1-8b"}), json.dumps({"op": "model", "config": llama31}),
                json.dumps({"op": "model", "preset": "gpt2"}),
                json.dumps({"op": "analyze", "d_head": 128, "base": 10000.0, "context": 4096}),
                json.dumps({"op": "model", "preset": "lesson"}),
                json.dumps({"op": "analyze", "d_head": 8, "base": 10000.0, "limit": 50})])
check(rc == 0 and len(resp) == 6, "model/analyze good lines exit 0")
if len(resp) == 6:
    r = resp[0]
    check(list(r.keys()) == ["rope", "absolute"] and r["absolute"] is None, "model: rope and absolute keys")
    rope = r["rope"]
    check(list(rope.keys()) == ["head_dim", "rotary_dims", "base", "pairing", "rope_type", "inv_freq",
                                "attention_factor", "max_position_embeddings", "original_max_position_embeddings"],
          "model: rope fields in order: %s" % list(rope.keys()))
    check({k: v for k, v in rope.items() if k != "inv_freq"} ==
          {"head_dim": 128, "rotary_dims": 128, "base": 500000.0, "pairing": "half_split", "rope_type": "llama3",
           "attention_factor": 1.0, "max_position_embeddings": 131072, "original_max_position_embeddings": 8192},
          "llama-3.1-8b preset values: %s" % {k: v for k, v in rope.items() if k != "inv_freq"})
    check(len(rope["inv_freq"]) == 64 and rope["inv_freq"][0] == 1.0, "llama-3.1-8b inv_freq length 64")
    check(resp[1] == resp[0], "preset llama-3.1-8b == its config.json")
    check(resp[2] == {"rope": None, "absolute": {"max_position": 1024, "d": 768, "parameters": 786432}},
          "gpt2 absolute")
    check(resp[3]["critical_dim"] == 92 and resp[3]["first_negative_m"] == 1707, "analyze example: %s" % resp[3])
    check(resp[4]["rope"]["inv_freq"] == [1.0, 0.1, 0.01, 0.001] and resp[4]["rope"]["pairing"] == "interleaved",
          "lesson preset")
    check(resp[5]["first_negative_m"] is None and resp[5]["critical_dim"] is None, "analyze: null when none/no context")

# every fixture loads, and its preset (when named like it) gives the same answer
fixtures = sorted(f for f in os.listdir(FIX) if f.endswith(".json"))
resp, rc = run([json.dumps({"op": "model", "config": json.load(open(os.path.join(FIX, f)))}) for f in fixtures])
check(rc == 0 and all("error" not in r for r in resp), "every fixture config loads")
names = [f[:-5] for f in fixtures if f[:-5] not in ("bert-base-arctic-embed-m", "redpajama-3b-gpt-neox")]
resp2, _ = run([json.dumps({"op": "model", "preset": n}) for n in names])
for n, r in zip(names, resp2):
    check(r == resp[fixtures.index(n + ".json")], "preset %s == fixture" % n)

# every preset derives exactly (float ==, i.e. bit for bit) what the per-field C++ presets derived before the table
golden = [json.loads(l) for l in open(os.path.join(FIX, "..", "preset_models.jsonl"))]
check(len({g["request"]["preset"] for g in golden}) == 27, "preset_models.jsonl covers all 27 presets")
resp, rc = run([json.dumps(dict(g["request"], op="model")) for g in golden])
check(rc == 0 and len(resp) == len(golden), "preset golden requests answered")
for g, r in zip(golden, resp):
    check(r == g["response"], "preset %s derives its golden model bit for bit" % g["request"])

llama = '"model_type":"llama","hidden_size":64,"num_attention_heads":4,"max_position_embeddings":128'
L8 = ",".join(["1.0"] * 8)


def cfg(extra):
    return '{"op":"model","config":{' + llama + extra + '}}'


bad_models = [  # (name, line, a word the message must contain)
    ("no config or preset", '{"op":"model"}', "config"),
    ("config and preset", '{"op":"model","preset":"gpt2","config":{}}', "preset"),
    ("config not object", '{"op":"model","config":[1]}', "config"),
    ("unknown preset", '{"op":"model","preset":"llama-9"}', "preset"),
    ("preset not string", '{"op":"model","preset":5}', "preset"),
    ("seq_len negative", '{"op":"model","preset":"gpt2","seq_len":-1}', "seq_len"),
    ("seq_len string", '{"op":"model","preset":"gpt2","seq_len":"long"}', "seq_len"),
    ("missing hidden_size", '{"op":"model","config":{"num_attention_heads":4}}', "hidden_size"),
    ("missing heads", '{"op":"model","config":{"hidden_size":64}}', "num_attention_heads"),
    ("head_dim not dividing", '{"op":"model","config":{"hidden_size":65,"num_attention_heads":4}}',
     "num_attention_heads"),
    ("head_dim zero", cfg(',"head_dim":0'), "head_dim"),
    ("head_dim odd", cfg(',"head_dim":9'), "head_dim"),
    ("head_dim absurd", cfg(',"head_dim":1000000'), "head_dim"),
    ("hidden_size string", cfg(',"hidden_size":"64"'), "hidden_size"),
    ("hidden_size fractional", cfg(',"hidden_size":64.5'), "hidden_size"),
    ("hidden_size past a double", cfg(',"hidden_size":' + "9" * 400), "hidden_size"),
    ("theta past a double", cfg(',"rope_theta":1e400'), "rope_theta"),
    ("theta past a double, negative", cfg(',"rope_theta":-1e400'), "rope_theta"),
    ("heads bool", cfg(',"num_attention_heads":true'), "num_attention_heads"),
    ("heads zero", cfg(',"num_attention_heads":0'), "num_attention_heads"),
    ("rotary_dim odd", cfg(',"rotary_dim":7'), "rotary_dim"),
    ("rotary_dim too big", cfg(',"rotary_dim":32'), "rotary_dim"),
    ("partial factor > 1", cfg(',"partial_rotary_factor":2'), "partial_rotary_factor"),
    ("partial factor gives 0", cfg(',"partial_rotary_factor":0.01'), "partial_rotary_factor"),
    ("rotary_pct negative", cfg(',"rotary_pct":-0.5'), "rotary_pct"),
    ("theta negative", cfg(',"rope_theta":-10000'), "rope_theta"),
    ("theta zero", cfg(',"rope_theta":0'), "rope_theta"),
    ("theta NaN literal", cfg(',"rope_theta":NaN'), "rope_theta"),
    ("theta Infinity literal", cfg(',"rope_theta":Infinity'), "rope_theta"),
    ("theta string", cfg(',"rope_theta":"1e4"'), "rope_theta"),
    ("rotary_emb_base 1", '{"op":"model","config":{"hidden_size":64,"num_attention_heads":4,"rotary_emb_base":1}}',
     "rotary_emb_base"),
    ("rope_scaling string", cfg(',"rope_scaling":"yarn"'), "rope_scaling"),
    ("unknown rope_type", cfg(',"rope_scaling":{"rope_type":"ntk-by-parts","factor":2}'), "rope_scaling.rope_type"),
    ("unknown legacy type", cfg(',"rope_scaling":{"type":"magic","factor":2}'), "rope_scaling.type"),
    ("rope_type not string", cfg(',"rope_scaling":{"rope_type":3,"factor":2}'), "rope_scaling.rope_type"),
    ("linear without factor", cfg(',"rope_scaling":{"rope_type":"linear"}'), "rope_scaling.factor"),
    ("factor zero", cfg(',"rope_scaling":{"rope_type":"linear","factor":0}'), "rope_scaling.factor"),
    ("factor negative", cfg(',"rope_scaling":{"rope_type":"dynamic","factor":-2}'), "rope_scaling.factor"),
    ("factor string", cfg(',"rope_scaling":{"rope_type":"yarn","factor":"4"}'), "rope_scaling.factor"),
    ("yarn beta_fast negative", cfg(',"rope_scaling":{"rope_type":"yarn","factor":4,"beta_fast":-1}'),
     "rope_scaling.beta_fast"),
    ("yarn attention_factor negative", cfg(',"rope_scaling":{"rope_type":"yarn","factor":4,"attention_factor":-1}'),
     "rope_scaling.attention_factor"),
    ("llama3 without original", cfg(',"rope_scaling":{"rope_type":"llama3","factor":8}'),
     "original_max_position_embeddings"),
    ("llama3 low >= high", cfg(',"rope_scaling":{"rope_type":"llama3","factor":8,"low_freq_factor":4,'
                               '"high_freq_factor":1,"original_max_position_embeddings":64}'), "high_freq_factor"),
    ("longrope short wrong length", cfg(',"rope_scaling":{"rope_type":"longrope","short_factor":[1,2],'
                                        '"long_factor":[' + L8 + ']}'), "short_factor"),
    ("longrope long wrong length", cfg(',"rope_scaling":{"type":"su","short_factor":[' + L8 + '],'
                                       '"long_factor":[1,2,3,4,5,6,7,8,9]}'), "long_factor"),
    ("longrope missing long", cfg(',"rope_scaling":{"rope_type":"longrope","short_factor":[' + L8 + ']}'),
     "long_factor"),
    ("longrope zero entry", cfg(',"rope_scaling":{"rope_type":"longrope","short_factor":[' + L8 + '],'
                                '"long_factor":[1,1,1,1,1,1,1,0]}'), "long_factor"),
    ("longrope factor list of strings", cfg(',"rope_scaling":{"rope_type":"longrope","short_factor":["a"],'
                                            '"long_factor":[' + L8 + ']}'), "short_factor"),
    ("dynamic without max_position", '{"op":"model","config":{"hidden_size":64,"num_attention_heads":4,'
                                     '"rope_scaling":{"type":"dynamic","factor":2}}}', "max_position_embeddings"),
    ("max_position negative", cfg(',"max_position_embeddings":-1'), "max_position_embeddings"),
    ("max_position absurd", cfg(',"max_position_embeddings":1e18'), "max_position_embeddings"),
    ("gpt2 without n_positions", '{"op":"model","config":{"model_type":"gpt2","n_embd":768,"n_head":12}}',
     "max_position_embeddings"),
    ("gpt2 n_embd string", '{"op":"model","config":{"model_type":"gpt2","n_embd":"768","n_positions":1024}}',
     "n_embd"),
    ("model_type number", cfg(',"model_type":7'), "model_type"),
    ("analyze odd d_head", '{"op":"analyze","d_head":7,"base":10000,"context":4096}', "d_head"),
    ("analyze base 1", '{"op":"analyze","d_head":8,"base":1,"context":4096}', "base"),
    ("analyze context zero", '{"op":"analyze","d_head":8,"base":10000,"context":0}', "context"),
    ("analyze limit zero", '{"op":"analyze","d_head":8,"base":10000,"limit":0}', "limit"),
    ("analyze limit too costly", '{"op":"analyze","d_head":65536,"base":10000,"limit":10000000}', "limit"),
]
# the bad config.json files the app's tests drop too (tests/fixtures/bad_configs.jsonl), as CLI requests
for case in (json.loads(l) for l in open(os.path.join(FIX, "..", "bad_configs.jsonl"))):
    bad_models.append(("bad_configs.jsonl: " + case["field"], '{"op":"model","config":' + case["text"] + "}",
                       case["field"]))
lines = []
for _, line, _ in bad_models:
    lines += [line, ok_line]
resp, rc = run(lines)
check(rc == 1, "model bad configs: exit 1 (got %d)" % rc)
check(len(resp) == len(lines), "model bad configs: one response per line")
for n, (name, line, word) in enumerate(bad_models):
    if 2 * n + 1 >= len(resp):
        break
    r, after = resp[2 * n], resp[2 * n + 1]
    err = r.get("error") if isinstance(r, dict) else None
    check(isinstance(err, dict) and err.get("type") == "BadRequest" and word in err.get("message", "")
          and list(r.keys()) == ["error"], "%s -> BadRequest naming %s, got %s" % (name, word, r))
    check(after == {"inv_freq": [1.0, 0.01]}, "next line still served after: " + name)
print("bad model/analyze lines:", len(bad_models))

# ---- decoder_grad: the tiny decoder (docs/lab.md) ----------------------------------
def decoder_request(position, zero_head=False, layers=1):
    c = {"vocab": 5, "d_model": 4, "heads": 2, "layers": layers, "d_ff": 6, "position": position, "max_position": 4}
    shapes = [("tok_emb", 20)] + ([("pos_emb", 16)] if position == "learned" else [])
    for l in range(layers):
        shapes += [("l%d.%s" % (l, n), k) for n, k in
                   [("norm1", 4), ("wq", 16), ("wk", 16), ("wv", 16), ("wo", 16), ("norm2", 4), ("w1", 24), ("w2", 24)]]
    shapes += ([("rel_bias", 64)] if position == "t5" else []) + [("norm_f", 4), ("head", 20)]
    w = {n: [0.1 * math.sin(1.7 * i + len(n)) + (1.0 if n.endswith(("norm1", "norm2", "norm_f")) else 0.0)
             for i in range(k)] for n, k in shapes}
    if zero_head:
        w["head"] = [0.0] * 20
    return {"op": "decoder_grad", "config": c, "weights": w, "tokens": [[1, 2, 3], [4, 0, 1]],
            "targets": [[2, 3, -1], [0, -1, 4]]}, [n for n, _ in shapes]


for position in ["learned", "sinusoidal", "rope", "alibi", "t5", "none"]:
    req, names = decoder_request(position, zero_head=True)
    resp, rc = run([json.dumps(req)])
    r = resp[0] if resp else {}
    check(rc == 0 and close(r.get("loss", 0.0), math.log(5)), "decoder_grad %s: uniform logits give ln(vocab): %s"
          % (position, r.get("loss", r)))
    check(list(r.get("grads", {})) == names and all(len(r["grads"][n]) == len(req["weights"][n]) for n in names),
          "decoder_grad %s: every weight's gradient, in order, flattened like the weight" % position)

req, _ = decoder_request("learned", layers=2)
bad_decoder = []
for name, edit, kind, word in [
        ("missing weight", lambda r: r["weights"].pop("l1.wk"), "BadRequest", "weights.l1.wk"),
        ("short weight", lambda r: r["weights"]["tok_emb"].pop(), "BadRequest", "weights.tok_emb"),
        ("extra weight", lambda r: r["weights"].update({"rel_bias": [0.0] * 64}), "BadRequest", "weights.rel_bias"),
        ("unknown method", lambda r: r["config"].update({"position": "xpos"}), "BadRequest", "config.position"),
        ("heads", lambda r: r["config"].update({"heads": 3}), "BadRequest", "heads"),
        ("zero vocab", lambda r: r["config"].update({"vocab": 0}), "BadRequest", "config.vocab"),
        ("odd d_head rope", lambda r: r["config"].update({"position": "rope", "heads": 4}), "BadRequest", "d_head"),
        ("token id", lambda r: r["tokens"][1].__setitem__(0, 5), "IndexError", "index 5 is out of bounds"),
        ("target", lambda r: r["targets"][1].__setitem__(0, 9), "IndexError", "Target 9"),
        ("ragged", lambda r: r["tokens"][1].pop(), "BadRequest", "tokens"),
        ("targets shape", lambda r: r["targets"].pop(), "BadRequest", "targets"),
        ("no targets", lambda r: r.update({"targets": [[-1, -1, -1], [-1, -1, -1]]}), "BadRequest", "targets"),
        ("past the table", lambda r: (r["tokens"][0].extend([1, 1]), r["targets"][0].extend([1, 1]),
                                      r["tokens"][1].extend([1, 1]), r["targets"][1].extend([1, 1])),
         "IndexError", "index 4 is out of bounds for dimension 0 with size 4"),
        ("non-finite weight", lambda r: r["weights"]["head"].__setitem__(0, "NaN"), "BadRequest", "weights.head")]:
    r = json.loads(json.dumps(req))
    edit(r)
    bad_decoder.append((name, json.dumps(r), kind, word))
resp, rc = run([line for _, line, _, _ in bad_decoder])
check(rc == 1 and len(resp) == len(bad_decoder), "decoder_grad bad lines all answered")
for (name, _, kind, word), r in zip(bad_decoder, resp):
    err = r.get("error", {})
    check(err.get("type") == kind and word in err.get("message", ""),
          "decoder_grad %s -> %s naming %s, got %s" % (name, kind, word, r))
print("decoder_grad lines:", 6 + len(bad_decoder))

# positions (docs/lab.md): 0..T-1 given is the same answer; others move every method's
# loss but none's; bad ones are BadRequests naming "positions" (learned past its table: the IndexError)
at_lines = []
for position in ["learned", "sinusoidal", "rope", "alibi", "t5", "none"]:
    req, _ = decoder_request(position)
    at_lines += [json.dumps(req), json.dumps(dict(req, positions=[[0, 1, 2], [0, 1, 2]])),
                 json.dumps(dict(req, positions=[[1, 2, 3], [0, 3, 3]] if position == "learned" else
                                 [[2, 40, 41], [7, 7, 1000]]))]
resp, rc = run(at_lines)
check(rc == 0 and len(resp) == len(at_lines), "decoder_grad positions: every line answered (exit %d)" % rc)
for n, position in enumerate(["learned", "sinusoidal", "rope", "alibi", "t5", "none"]):
    plain, iota, moved = resp[3 * n: 3 * n + 3] if len(resp) == len(at_lines) else ({}, {}, {})
    check("loss" in plain and iota == plain, "decoder_grad %s: positions 0..T-1 are no positions" % position)
    check("loss" in moved and (moved["loss"] == plain.get("loss")) == (position == "none"),
          "decoder_grad %s: other positions move the loss (none's stays): %s vs %s"
          % (position, moved.get("loss", moved), plain.get("loss")))
rope_req, _ = decoder_request("rope")
learned_req, _ = decoder_request("learned")  # a table of 4 rows
bad_positions = []
for name, base, at, kind, word in [
        ("ragged", rope_req, [[0, 1, 2], [0, 1]], "BadRequest", "\"positions\" row [1] must have length 3"),
        ("row count", rope_req, [[0, 1, 2]], "BadRequest", "\"positions\" must have 2 rows"),
        ("negative", rope_req, [[0, 1, 2], [0, -1, 2]], "BadRequest", "\"positions\" must be >= 0"),
        ("fraction", rope_req, [[0, 1, 2.5], [0, 1, 2]], "BadRequest", "\"positions\" must be an array of arrays"),
        ("string", rope_req, [[0, 1, "2"], [0, 1, 2]], "BadRequest", "\"positions\" must be an array of arrays"),
        ("null entry", rope_req, [[0, 1, None], [0, 1, 2]], "BadRequest", "\"positions\" must be an array of arrays"),
        ("flat", rope_req, [0, 1, 2], "BadRequest", "\"positions\" must be an array of arrays"),
        ("number", rope_req, 3, "BadRequest", "\"positions\" must be an array of arrays"),
        ("null", rope_req, None, "BadRequest", "\"positions\""),
        ("too far", rope_req, [[0, 1, 2], [0, 1, 10 ** 7]], "BadRequest", "\"positions\" reach 10000000"),
        ("huge", rope_req, [[0, 1, 2], [0, 1, 2 ** 63]], "BadRequest", "\"positions\" must be an array of arrays"),
        ("past the table", learned_req, [[0, 1, 2], [0, 4, 5]], "IndexError",
         "index 4 is out of bounds for dimension 0 with size 4"),
        ("far past the table", learned_req, [[0, 1, 2], [0, 1, 10 ** 12]], "IndexError",
         "index 1000000000000 is out of bounds for dimension 0 with size 4")]:
    bad_positions.append((name, json.dumps(dict(base, positions=at)), kind, word))
lines = []
for _, line, _, _ in bad_positions:
    lines += [line, json.dumps(rope_req)]
resp, rc = run(lines)
check(rc == 1 and len(resp) == len(lines), "decoder_grad bad positions: every line answered")
for n, (name, _, kind, word) in enumerate(bad_positions):
    r, after = (resp[2 * n], resp[2 * n + 1]) if len(resp) == len(lines) else ({}, {})
    err = r.get("error", {})
    check(err.get("type") == kind and word in err.get("message", ""),
          "decoder_grad positions %s -> %s naming %s, got %s" % (name, kind, word, r))
    check("loss" in after, "decoder_grad: the next line is served after bad positions (%s)" % name)
print("decoder_grad positions lines:", len(at_lines) + len(lines))

# ---- lab: the training document (docs/lab.md) ----------------------------------------
def lab(args):
    p = subprocess.run([CLI, "lab"] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


small_lab = ["--methods", "learned,rope,alibi", "--train-len", "2", "--steps", "5", "--d-model", "16", "--heads", "2",
             "--layers", "1", "--d-ff", "16", "--batch", "4", "--eval-count", "10", "--seed", "3"]
rc, out, err = lab(small_lab)
check(rc == 0 and err == "", "lab: exit 0, nothing on stderr (rc %d, %s)" % (rc, err))
doc = strict_loads(out) if rc == 0 else {}
for key in ["task", "train_len", "eval_lengths", "steps", "seed", "seconds", "tokens_per_s", "methods"]:
    check(key in doc, "lab document has " + key)
check(doc.get("task") == "copy" and doc.get("eval_lengths") == list(range(1, 9)) and doc.get("steps") == 5,
      "lab: task, eval lengths 1..4*train_len, steps")
methods = doc.get("methods", {})
check(list(methods) == ["learned", "rope", "alibi"], "lab: methods in the order asked")
for name, m in methods.items():
    check(len(m["train_loss"]) == 5 and len(m["accuracy"]) == 8 and len(m["token_accuracy"]) == 8,
          "lab %s: one loss per step, one accuracy per length" % name)
    check(m.get("steps_run") == 5 and m.get("reached_bar") == all(a >= 0.95 for a in m["accuracy"][:2]),
          "lab %s: steps_run, and reached_bar from the accuracy at the training lengths" % name)
learned = methods.get("learned", {})
check(learned.get("accuracy", [])[2:] == [None] * 6 and None not in learned.get("accuracy", [None])[:2]
      and learned.get("error") == "IndexError: index 4 is out of bounds for dimension 0 with size 4",
      "lab learned: null accuracy past its 4-row table, IndexError message: %s" % learned.get("error"))
check(methods.get("rope", {}).get("error", 1) is None, "lab rope: error null")
rc2, out2, _ = lab(small_lab)
again = strict_loads(out2) if rc2 == 0 else {}
for d in (doc, again):
    d.pop("seconds", None)
    d.pop("tokens_per_s", None)
check(doc == again, "lab: the same flags and seed give the same document apart from timing")
# --jobs N: the runs (one per method and seed) on N threads; the same document whatever N, the same saved weights
timeless = []
for jobs in ("1", "2", "3"):
    with tempfile.TemporaryDirectory() as saved:
        rc, out, err = lab(small_lab + ["--seeds", "2", "--jobs", jobs, "--save-weights", saved])
        d = strict_loads(out) if rc == 0 else {}
        d.pop("seconds", None)
        d.pop("tokens_per_s", None)
        files = {m: open(os.path.join(saved, m, "model.safetensors"), "rb").read() for m in methods} if rc == 0 else {}
        timeless.append((d, files))
        check(rc == 0 and len(files) == 3, "lab --jobs %s: exit 0, three models saved (rc %d, %s)" % (jobs, rc, err))
check(timeless[0][0] == timeless[1][0] == timeless[2][0] and timeless[0][0].get("seeds") == 2,
      "lab --jobs 1, 2 and 3: the same document apart from timing")
check(timeless[0][1] == timeless[1][1] == timeless[2][1],
      "lab --jobs 1, 2 and 3: the same saved weights, byte for byte")
for bad in ["0", "65", "-1", "2.5", "two", ""]:
    rc, out, err = lab(small_lab + ["--jobs", bad])
    check(rc == 2 and out == "" and "--jobs must be an integer in [1, 64]" in err,
          "lab --jobs %r: exit 2 naming the flag, got %d %s" % (bad, rc, err.strip()))
rc, out, err = lab(small_lab + ["--jobs"])
check(rc == 2 and "--jobs needs a value" in err, "lab --jobs without a value: %s" % err.strip())
for args, flag in [(["--steps", "0"], "--steps"), (["--task", "sort"], "--task"), (["--methods", "rope,xpos"],
                   "--methods"), (["--frobnicate", "1"], "--frobnicate"), (["--train-len", "abc"], "--train-len"),
                  (["--check-every", "-5"], "--check-every")]:
    rc, out, err = lab(args)
    check(rc == 2 and out == "" and flag in err, "lab %s: exit 2 and a message naming the flag, got %d %s"
          % (" ".join(args), rc, err.strip()))

# ---- lab-export: the PyTorch script and its data file (torch_lab_export.py runs them; here the command alone, so the
# sanitizer build, which leaves the PyTorch training to the plain build, still runs it) --------------------------------
with tempfile.TemporaryDirectory() as tmp:
    p = subprocess.run([CLI, "lab-export", os.path.join(tmp, "out")] + small_lab, capture_output=True, text=True,
                       timeout=120)
    check(p.returncode == 0 and p.stderr == "", "lab-export: exit 0, nothing on stderr (rc %d, %s)" % (p.returncode,
                                                                                                     p.stderr))
    names = sorted(os.listdir(os.path.join(tmp, "out"))) if p.returncode == 0 else []
    check(names == ["ropeviz_lab.py", "ropeviz_lab_data.json"], "lab-export writes the script and its data: %s" % names)
    if names:
        with open(os.path.join(tmp, "out", "ropeviz_lab_data.json")) as f:
            data = strict_loads(f.read())
        o = data.get("options", {})
        check(o.get("methods") == "learned,rope,alibi" and o.get("train_len") == 2 and o.get("steps") == 5,
              "lab-export's data file holds the flags' options: %s" % {k: o.get(k) for k in ("methods", "steps")})
        with open(os.path.join(tmp, "out", "ropeviz_lab.py")) as f:
            compile(f.read(), "ropeviz_lab.py", "exec")  # a SyntaxError fails the test
    for args, code, text in [([], 2, "needs a directory"), ([tmp, "--steps", "0"], 2, "--steps"),
                             ([tmp, "--bogus", "1"], 2, "unknown flag \"--bogus\"")]:
        p = subprocess.run([CLI, "lab-export"] + args, capture_output=True, text=True, timeout=120)
        check(p.returncode == code and text in p.stderr, "lab-export %s: exit %d, %r" % (args, p.returncode, p.stderr))

# ---- hostile lines: too long, too deep -------------------------------------------------------------------------------
huge = '{"op":"inv_freq","d_head":8,"pad":"' + "x" * (9 << 20) + '"}'
deep = "[" * 100000 + "]" * 100000
deep_obj = '{"op":"model","config":' + '{"a":' * 70 + "1" + "}" * 70 + "}"
resp, rc = run([huge, ok_line, deep, ok_line, deep_obj, ok_line])
check(rc == 1 and len(resp) == 6, "hostile lines answered (rc %d, %d responses)" % (rc, len(resp)))
if len(resp) == 6:
    check(resp[0]["error"]["type"] == "BadRequest" and "limit" in resp[0]["error"]["message"],
          "huge line: %s" % resp[0])
    check(resp[2]["error"]["type"] == "BadRequest" and "deeper" in resp[2]["error"]["message"],
          "deep line: %s" % resp[2])
    check(resp[4]["error"]["type"] == "BadRequest" and "deeper" in resp[4]["error"]["message"], "deep object")
    check(resp[1] == resp[3] == resp[5] == {"inv_freq": [1.0, 0.01]}, "served after hostile lines")

print("%d checks," % checks[0], "%d failures" % len(failures) if failures else "cli_test: all checks passed")
sys.exit(1 if failures else 0)
