#!/usr/bin/env python3
"""Configs in transformers 5's spelling (rope_parameters) read exactly as their legacy spelling: for every config
transformers 5.17 wrote (tests/fixtures/configs_v5), the `model` op's answer to it equals its answer to the same
config with rope_theta, rope_scaling and partial_rotary_factor at the top level; the values the old reader lost are
checked by name; Gemma 3's by-layer-type form gives the same rope and rope_local as its v4 spelling
(rope_local_base_freq); bad rope_parameters are refused naming the field."""
import copy
import json
import os
import sys

import cli_harness
from cli_harness import check, checks, failures, legacy_spelling

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
HERE = os.path.dirname(os.path.abspath(__file__))
V5 = os.path.join(HERE, "..", "fixtures", "configs_v5")
V4 = os.path.join(HERE, "..", "fixtures", "configs")


def ask(reqs):
    return cli_harness.ask(CLI, reqs)


def load(folder, name):
    with open(os.path.join(folder, name)) as f:
        return json.load(f)


# ---- every config transformers 5.17 wrote, against its legacy spelling (and at several seq_len) --------------------
names = sorted(f for f in os.listdir(V5) if f.endswith(".json"))
check(len(names) >= 26, "the transformers 5 fixtures are there: %d" % len(names))
reqs, tags = [], []
for name in names:
    cfg = load(V5, name)
    legacy = legacy_spelling(cfg)
    check("rope_parameters" in cfg or cfg.get("model_type") in ("gpt2", "opt", "gptj"),
          "%s is in transformers 5's spelling" % name)
    for seq_len in (None, 100, 600, 5000):
        extra = {} if seq_len is None else {"seq_len": seq_len}
        reqs += [dict(op="model", config=cfg, **extra), dict(op="model", config=legacy, **extra)]
        tags.append("%s seq_len=%s" % (name, seq_len))
out = ask(reqs)
check(len(out) == len(reqs), "one answer per request")
answers = {}
for i, tag in enumerate(tags):
    v5, v4 = out[2 * i], out[2 * i + 1]
    check("error" not in v5, "%s: %s" % (tag, v5))
    check(v5 == v4, "%s: transformers 5's spelling %s, legacy %s" % (tag, str(v5)[:300], str(v4)[:300]))
    answers[tag] = v5


def rope(name, seq_len=None):
    return (answers.get("%s seq_len=%s" % (name, seq_len)) or {}).get("rope") or {}


# what the reader before rope_parameters got wrong, by name
for name, base in (("mistral.json", 1e6), ("qwen2.json", 1e6), ("qwen3.json", 1e6), ("mixtral.json", 1e6),
                   ("llama3.json", 500000.0)):
    check(rope(name).get("base") == base, "%s: base %r" % (name, rope(name).get("base")))
for name, rope_type in (("llama3.json", "llama3"), ("llama_yarn.json", "yarn"), ("llama_linear.json", "linear"),
                        ("llama_dynamic.json", "dynamic"), ("phi3_longrope.json", "longrope"),
                        ("llama-bytes-pi4.json", "linear"), ("llama-bytes.json", "default")):
    check(rope(name).get("rope_type") == rope_type, "%s: rope_type %r" % (name, rope(name).get("rope_type")))
check(rope("llama_linear.json").get("inv_freq", [0])[0] == 0.25, "linear x4: inv_freq[0] = 1/4")
check(rope("llama-bytes-pi4.json").get("inv_freq", [0])[0] == 0.25, "llama-bytes-pi4: linear x4")
check(rope("llama_yarn.json").get("attention_factor", 1.0) > 1.1, "yarn x4: its attention factor")
check(rope("phi3_longrope.json").get("attention_factor", 1.0) > 1.1, "longrope: its attention factor")
check(rope("phi3_longrope.json", 600).get("inv_freq") != rope("phi3_longrope.json", 100).get("inv_freq"),
      "longrope: the long factors past original_max_position_embeddings")
check(rope("llama_dynamic.json", 5000).get("inv_freq") != rope("llama_dynamic.json").get("inv_freq"),
      "dynamic: seq_len past the context changes the frequencies")
for name, rotary in (("gpt_neox.json", 4), ("phi.json", 8), ("stablelm.json", 4)):
    check(rope(name).get("rotary_dims") == rotary, "%s: rotary_dims %r" % (name, rope(name).get("rotary_dims")))
for name in ("gpt2.json", "gpt2-bytes.json", "opt.json"):
    check(answers["%s seq_len=None" % name].get("absolute") is not None, name + ": a learned table")
check(all("rope_local" not in a for t, a in answers.items() if not t.startswith("gemma-3")),
      "rope_local only for a model with sliding layers of their own")

# ---- Gemma 3: by layer type, against the v4 spelling (multimodal, rope_local_base_freq) and the preset --------------
g5, g4 = load(V5, "gemma-3-4b.json"), load(V4, "gemma-3-4b.json")
only_full = copy.deepcopy(g5)
del only_full["rope_parameters"]["sliding_attention"]
scaled_top = copy.deepcopy(g5)  # rope_scaling at the top level updates full_attention (transformers 5)
scaled_top["rope_scaling"] = {"rope_type": "linear", "factor": 2.0}
g, legacy, preset, full, top = ask([{"op": "model", "config": g5}, {"op": "model", "config": g4},
                                    {"op": "model", "preset": "gemma-3-4b"}, {"op": "model", "config": only_full},
                                    {"op": "model", "config": scaled_top}])
check(g == legacy == preset, "gemma 3: by layer type == v4 spelling == preset: %s / %s / %s" % (
    str(g)[:200], str(legacy)[:200], str(preset)[:200]))
r, loc = g.get("rope") or {}, g.get("rope_local") or {}
check((r.get("base"), r.get("rope_type"), r.get("rotary_dims")) == (1e6, "linear", 256), "gemma 3 full: %s" % r)
check(r.get("inv_freq", [0])[0] == 0.125, "gemma 3 full: linear x8")
check((loc.get("base"), loc.get("rope_type"), loc.get("rotary_dims")) == (10000.0, "default", 256),
      "gemma 3 sliding: %s" % {k: v for k, v in loc.items() if k != "inv_freq"})
check(loc.get("inv_freq", [0])[0] == 1.0 and loc.get("inv_freq", [0, 0])[1] == 10000.0 ** (-2 / 256),
      "gemma 3 sliding: base 10000 unscaled")
check(full.get("rope") == r and full.get("rope_local") == loc, "gemma 3: no sliding_attention -> base 10000")
check((top.get("rope") or {}).get("inv_freq", [0])[0] == 0.5 and top.get("rope_local") == loc,
      "gemma 3: a top-level rope_scaling updates full_attention only: %s" % str(top)[:200])

# ---- bad rope_parameters: refused, naming the field ---------------------------------------------------------------
llama = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 128}
bad = [({"rope_parameters": [1]}, "rope_parameters must be an object or null, got an array"),
       ({"rope_parameters": {"rope_theta": "big"}}, "rope_parameters.rope_theta must be a number, got a string"),
       ({"rope_parameters": {"rope_theta": 1.0}}, "rope_parameters.rope_theta must be a finite number > 1"),
       ({"rope_parameters": {"rope_type": "bogus"}}, "rope_parameters.rope_type \"bogus\" is not one of"),
       ({"rope_parameters": {"rope_type": "linear"}}, "missing rope_parameters.factor"),
       ({"rope_parameters": {"rope_type": "linear", "factor": -2}}, "rope_parameters.factor must be a finite number"),
       ({"rope_parameters": {"rope_type": "llama3", "factor": 8}},
        "missing rope_parameters.original_max_position_embeddings"),
       ({"rope_parameters": {"partial_rotary_factor": 2}}, "partial_rotary_factor must be a number in (0, 1]"),
       ({"rope_parameters": {"full_attention": 5}}, "rope_parameters.full_attention must be an object or null"),
       ({"rope_parameters": {"sliding_attention": {"rope_theta": -1}}},
        "rope_parameters.sliding_attention.rope_theta must be a finite number > 1"),
       ({"rope_parameters": {"full_attention": {"rope_type": "yarn"}}},
        "missing rope_parameters.full_attention.factor"),
       ({"rope_local_base_freq": "x"}, "rope_local_base_freq must be a number")]
out = ask([{"op": "model", "config": dict(llama, **fields)} for fields, _ in bad])
for (fields, text), o in zip(bad, out):
    message = (o.get("error") or {}).get("message", "")
    check(text in message, "%s: %r" % (fields, o))

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
