#!/usr/bin/env python3
"""Cross-check the weights and learned_table ops against numpy on checkpoints written here by an independent
safetensors writer (struct + numpy): every float dtype, shards with an index, prefixed names, OPT's two offset rows,
and every refusal of docs/real-weights.md's rules. Exit 77 (skip) without numpy."""
import json
import os
import struct
import sys
import tempfile

import cli_harness
from cli_harness import check, checks, failures

try:
    import numpy as np
except Exception as e:  # noqa: BLE001
    print("SKIP: numpy is not importable (%s)" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
TMP = tempfile.mkdtemp(prefix="rv-weights-")
NP = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8"}


def bf16_bytes(a):
    """float32 -> bfloat16 bits, round to nearest even, as torch does."""
    u = np.asarray(a, dtype="<f4").view("<u4").astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype("<u2").tobytes()


def bf16_values(a):
    bits = np.frombuffer(bf16_bytes(a), dtype="<u2").astype(np.uint32) << 16
    return bits.astype("<u4").view("<f4").astype(np.float64)


def raw(dtype, a):
    return bf16_bytes(a) if dtype == "BF16" else np.asarray(a, dtype=NP[dtype]).tobytes()


def write(name, tensors, metadata=None, header=None, pad=0, data=None):
    """tensors: [(name, dtype, array)]; header/data override what is written, for the refusal cases."""
    entries, blob = {}, b""
    for tname, dtype, a in tensors:
        b = raw(dtype, a)
        entries[tname] = {"dtype": dtype, "shape": list(np.shape(a)), "data_offsets": [len(blob), len(blob) + len(b)]}
        blob += b
    if metadata:
        entries["__metadata__"] = metadata
    text = (header if header is not None else json.dumps(entries)).encode() + b" " * pad
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + (blob if data is None else data))
    return path


def ask(reqs):
    return cli_harness.ask(CLI, reqs)


def close(got, want, tol, what):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    ok = got.shape == want.shape and np.all(np.abs(got - want) <= tol * (1 + np.abs(want)))
    check(bool(ok), "%s: max error %s" % (what, np.max(np.abs(got - want)) if got.shape == want.shape else "shape"))


def expected_analysis(P):
    P = np.asarray(P, dtype=np.float64)
    rows = P.shape[0]
    norm = np.linalg.norm(P, axis=1)
    unit = P / np.where(norm > 0, norm, 1)[:, None]
    K = min(rows - 1, 256)
    by_offset = [np.mean(np.sum(unit[: rows - k] * unit[k:], axis=1)) for k in range(K + 1)]
    C = P - P.mean(axis=0)
    U, s, _ = np.linalg.svd(C, full_matrices=False)
    energy = np.cumsum(s ** 2) / np.sum(s ** 2)
    comps = []
    for j in range(3):
        c = U[:, j] * s[j]
        comps.append(c if c[np.argmax(np.abs(c))] > 0 else -c)
    return {"row_norm": norm, "neighbour_cos": np.sum(unit[:-1] * unit[1:], axis=1), "cos_by_offset": by_offset,
            "singular_values": s, "energy": energy, "rank90": int(np.argmax(energy >= 0.90)) + 1,
            "rank99": int(np.argmax(energy >= 0.99)) + 1, "components": comps}


rng = np.random.default_rng(7)
t = np.arange(300)[:, None]
# A smooth, low-rank table like a trained one: a few sinusoids over position in random directions, and a little noise.
helix = (np.sin(t * 0.02) @ rng.normal(size=(1, 48)) + np.cos(t * 0.02) @ rng.normal(size=(1, 48)) +
         np.sin(t * 0.05) @ rng.normal(size=(1, 48)) * 0.3 + 0.01 * rng.normal(size=(300, 48)))

# 1. learned_table against numpy, in each dtype (the expected values from the stored, rounded numbers).
for dtype in ("F64", "F32", "F16", "BF16"):
    path = write("gpt2-%s.safetensors" % dtype, [("wpe.weight", dtype, helix.astype(np.float32)),
                                                  ("wte.weight", dtype, rng.normal(size=(5, 48)))])
    stored = bf16_values(helix.astype(np.float32)).reshape(helix.shape) if dtype == "BF16" else \
        np.asarray(helix.astype(np.float32), dtype=NP[dtype]).astype(np.float64)
    (got,) = ask([{"op": "learned_table", "file": path}])
    check("error" not in got, "%s learned_table answers: %s" % (dtype, str(got)[:200]))
    if "error" in got:
        continue
    want = expected_analysis(stored)
    check(got["tensor"] == "wpe.weight" and got["dtype"] == dtype and got["rows"] == 300 and got["dim"] == 48
          and got["offset"] == 0, "%s: tensor, dtype, rows, dim, offset" % dtype)
    for key in ("row_norm", "neighbour_cos", "cos_by_offset", "energy"):
        close(got[key], want[key], 1e-9, "%s %s" % (dtype, key))
    close(got["singular_values"], want["singular_values"], 1e-8, "%s singular_values" % dtype)
    check(got["rank90"] == want["rank90"] and got["rank99"] == want["rank99"],
          "%s rank90/99 %s/%s, numpy %s/%s" % (dtype, got["rank90"], got["rank99"], want["rank90"], want["rank99"]))
    for j in range(3):
        close(got["components"][j], want["components"][j], 1e-7, "%s component %d" % (dtype, j))
    check(want["rank90"] <= 3, "the generated table is low-rank (rank90 %d)" % want["rank90"])

# 2. weights: the list in name order, sizes; shards through an index; names with a prefix; OPT's offset rows.
a = write("shard-1.safetensors", [("transformer.wte.weight", "F32", rng.normal(size=(4, 8)))],
          metadata={"format": "pt"})
b = write("shard-2.safetensors", [("transformer.wpe.weight", "F16", helix[:64, :8]),
                                  ("transformer.h.0.ln_1.weight", "F32", np.ones(8))])
index = os.path.join(TMP, "model.safetensors.index.json")
with open(index, "w") as f:
    json.dump({"metadata": {"total_size": 1}, "weight_map": {"transformer.wte.weight": "shard-1.safetensors",
                                                              "transformer.wpe.weight": "shard-2.safetensors",
                                                              "transformer.h.0.ln_1.weight": "shard-2.safetensors"}}, f)
w, lt = ask([{"op": "weights", "index": index}, {"op": "learned_table", "index": index}])
names = [x["name"] for x in w.get("tensors", [])]
check(names == sorted(names) and len(names) == 3, "weights lists every shard's tensors in name order: %s" % names)
check(w.get("file_bytes") == os.path.getsize(a) + os.path.getsize(b), "file_bytes sums the shards")
check(w.get("metadata") == {"format": "pt"}, "metadata read from the shard's __metadata__: %s" % w.get("metadata"))
check({x["name"]: x["file"] for x in w.get("tensors", [])}["transformer.wpe.weight"] == "shard-2.safetensors",
      "each tensor names its shard")
check(lt.get("tensor") == "transformer.wpe.weight" and lt.get("rows") == 64, "the table found under transformer.")
opt_table = rng.normal(size=(10, 6))
opt = write("opt.safetensors", [("model.decoder.embed_positions.weight", "F32", opt_table)])
o1, o2, o3 = ask([{"op": "learned_table", "file": opt, "config": {"model_type": "opt"}},
                  {"op": "learned_table", "file": opt, "preset": "gpt2"},
                  {"op": "learned_table", "file": opt, "offset": 3, "tensor": "decoder.embed_positions.weight"}])
check(o1.get("offset") == 2 and o1.get("rows") == 8, "OPT's config: 2 offset rows, 8 positions: %s" % str(o1)[:120])
close(o1.get("row_norm"), np.linalg.norm(opt_table.astype(np.float32).astype(np.float64)[2:], axis=1), 1e-12,
      "OPT rows after offset")
check(o2.get("offset") == 0 and o2.get("rows") == 10, "a gpt2 preset: no offset")
check(o3.get("offset") == 3 and o3.get("rows") == 7 and o3.get("tensor") == "model.decoder.embed_positions.weight",
      "an explicit offset and a tensor named without its prefix")

# 3. every refusal names its problem (and its tensor); the CLI answers each with an error object.
def _huge():
    path = os.path.join(TMP, "huge.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", 100000001) + b"{}")
    return path


def _past_end():
    path = os.path.join(TMP, "pastend.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", 50) + b"{}")
    return path


bad = {
    "short": (lambda: open(os.path.join(TMP, "short.safetensors"), "wb").write(b"\x01\x02") and
              os.path.join(TMP, "short.safetensors"), "shorter than the 8-byte"),
    "huge N": (lambda: _huge(), "over the limit of 100,000,000"),
    "N past end": (lambda: _past_end(), "past the end"),
    "not object": (lambda: write("list.safetensors", [], header="[1, 2]"), "not a JSON object"),
    "reversed": (lambda: write("rev.safetensors", [], header=json.dumps(
        {"wpe.weight": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}}), data=b"\0" * 4), "reversed"),
    "outside": (lambda: write("out.safetensors", [], header=json.dumps(
        {"wpe.weight": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}), data=b"\0" * 4), "outside the data"),
    "overlap": (lambda: write("overlap.safetensors", [], header=json.dumps(
        {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
         "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}), data=b"\0" * 12), "overlaps"),
    "length": (lambda: write("len.safetensors", [], header=json.dumps(
        {"wpe.weight": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}), data=b"\0" * 8), "need 12"),
    "dtype": (lambda: write("dtype.safetensors", [], header=json.dumps(
        {"wpe.weight": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 8]}}), data=b"\0" * 8), "\"Q4\""),
    "I64 table": (lambda: write("i64.safetensors", [("wpe.weight", "I64", np.ones((2, 2)))]), "has dtype I64"),
    "no table": (lambda: write("none.safetensors", [("lm_head.weight", "F32", np.ones((2, 2)))]),
                 "looked for wpe.weight"),
}


for what, (make, words) in bad.items():
    path = make()
    (got,) = ask([{"op": "learned_table", "file": path}])
    message = got.get("error", {}).get("message", "")
    check(got.get("error", {}).get("type") == "BadRequest" and words in message,
          "%s: a BadRequest saying %r, got %s" % (what, words, str(got)[:200]))
(rev,) = ask([{"op": "weights", "file": os.path.join(TMP, "rev.safetensors")}])
check("\"wpe.weight\"" in rev.get("error", {}).get("message", ""), "a bad tensor is named: %s" % rev)
(i64,) = ask([{"op": "weights", "file": os.path.join(TMP, "i64.safetensors")}])
check(i64.get("tensors", [{}])[0].get("dtype") == "I64", "weights lists a tensor it would not read: %s" % i64)
missing, both = ask([{"op": "weights", "file": os.path.join(TMP, "nope.safetensors")},
                     {"op": "weights", "file": a, "index": index}])
check("error" in missing and "nope.safetensors" in missing["error"]["message"], "a missing file is named")
check("either" in both.get("error", {}).get("message", ""), "file and index together are refused")

# 4. The lab's saved weights: a really trained table, found without naming it, every weight by its decoder name.
import subprocess  # noqa: E402
lab_dir = os.path.join(TMP, "lab")
p = subprocess.run([CLI, "lab", "--methods", "learned,rope", "--train-len", "3", "--steps", "60", "--seed", "2",
                    "--save-weights", lab_dir], capture_output=True, text=True, timeout=300)
check(p.returncode == 0 and json.loads(p.stdout)["methods"].keys() >= {"learned", "rope"}, "lab --save-weights runs")
config = json.load(open(os.path.join(lab_dir, "learned", "config.json")))
check(config["model_type"] == "ropeviz_lab" and config["position"] == "learned", "the lab's config.json")
saved, table, rope_w = ask([{"op": "weights", "file": os.path.join(lab_dir, "learned", "model.safetensors")},
                            {"op": "learned_table", "file": os.path.join(lab_dir, "learned", "model.safetensors")},
                            {"op": "weights", "file": os.path.join(lab_dir, "rope", "model.safetensors")}])
names = {t["name"]: t["shape"] for t in saved.get("tensors", [])}
check(names.get("pos_emb") == [config["max_position"], config["d_model"]] and
      names.get("tok_emb") == [11, config["d_model"]] and "l2.wq" in names and "head" in names,
      "every decoder weight saved by its name and shape: %s" % sorted(names)[:6])
check(saved.get("metadata") == {"format": "pt", "ropeviz": "lab"}, "the lab's metadata")
check(table.get("tensor") == "pos_emb" and table.get("rows") == config["max_position"], "learned_table finds pos_emb")
check("pos_emb" not in {t["name"] for t in rope_w.get("tensors", [])}, "rope's decoder has no position table")

# 5. rope_usage against numpy: g[l][h][i] = sqrt(sum over the pair's rows r and columns c of (W[r,c] gamma[c] n[r])^2).
def usage_case(model_type, layout, H=4, Hk=2, hd=8, hidden=24, layers=2, rotary=None, interleaved=False,
               gemma=False, qk_norm=False, extra=None):
    rotary = rotary or hd
    half = rotary // 2
    tensors, want_q, want_k = [], [], []
    for l in range(layers):
        gamma = rng.normal(size=hidden)
        scale = gamma + 1 if gemma else gamma
        nq = rng.normal(size=hd) if qk_norm else np.ones(hd)
        nk = rng.normal(size=hd) if qk_norm else np.ones(hd)
        wq, wk = rng.normal(size=(H * hd, hidden)), rng.normal(size=(Hk * hd, hidden))
        if layout == "split":
            pre = "transformer.h.%d.attn." % l if model_type == "gptj" else "model.layers.%d.self_attn." % l
            tensors += [(pre + "q_proj.weight", "F32", wq), (pre + "k_proj.weight", "F32", wk)]
        elif layout == "phi3":
            tensors.append(("model.layers.%d.self_attn.qkv_proj.weight" % l, "F32",
                            np.concatenate([wq, wk, rng.normal(size=(Hk * hd, hidden))])))
        else:  # gpt_neox: per head [q, k, v] blocks
            fused = np.concatenate([np.concatenate([wq[h * hd:(h + 1) * hd], wk[h * hd:(h + 1) * hd],
                                                    rng.normal(size=(hd, hidden))]) for h in range(H)])
            tensors.append(("gpt_neox.layers.%d.attention.query_key_value.weight" % l, "F32", fused))
        norm = {"gptj": "transformer.h.%d.ln_1.weight", "gpt_neox": "gpt_neox.layers.%d.input_layernorm.weight"}.get(
            model_type, "model.layers.%d.input_layernorm.weight") % l
        tensors.append((norm, "F32", gamma))
        if qk_norm:
            tensors += [("model.layers.%d.self_attn.q_norm.weight" % l, "F32", nq),
                        ("model.layers.%d.self_attn.k_norm.weight" % l, "F32", nk)]
        f32 = lambda a: np.asarray(a, dtype=np.float32).astype(np.float64)  # noqa: E731
        for w, heads, n, out in ((wq, H, nq, want_q), (wk, Hk, nk, want_k)):
            e = (f32(w) * f32(scale if not gemma else gamma)[None, :]) ** 2 if not gemma else \
                (f32(w) * (f32(gamma) + 1)[None, :]) ** 2
            e = e.sum(axis=1)
            layer = []
            for h in range(heads):
                dims = [(2 * i, 2 * i + 1) if interleaved else (i, i + half) for i in range(half)]
                layer.append([math.sqrt(f32(n)[a] ** 2 * e[h * hd + a] + f32(n)[b] ** 2 * e[h * hd + b])
                              for a, b in dims])
            out.append(layer)
    cfg = {"model_type": model_type, "hidden_size": hidden, "num_attention_heads": H, "head_dim": hd,
           "num_key_value_heads": Hk, "rope_theta": 10000.0, "max_position_embeddings": 64}
    cfg.update(extra or {})
    path = write("usage-%s.safetensors" % model_type, tensors)
    (got,) = ask([{"op": "rope_usage", "file": path, "config": cfg}])
    check("error" not in got, "%s rope_usage answers: %s" % (model_type, str(got)[:200]))
    if "error" in got:
        return path, cfg
    check(got["heads"] == H and got["kv_heads"] == Hk and got["layers"] == list(range(layers)) and
          got["rotary_dims"] == rotary, "%s: heads, kv heads, layers, rotary dims" % model_type)
    close(got["q"], want_q, 1e-9, "%s q" % model_type)
    close(got["k"], want_k, 1e-9, "%s k" % model_type)
    close(got["q_mean"], np.mean(np.asarray(want_q), axis=(0, 1)), 1e-9, "%s q_mean" % model_type)
    theta = 10000.0 ** (-np.arange(0, rotary, 2) / rotary)
    close(got["wavelength"], 2 * np.pi / theta, 1e-12, "%s wavelength" % model_type)
    return path, cfg


import math  # noqa: E402
llama_path, llama_cfg = usage_case("llama", "split")
usage_case("qwen3", "split", qk_norm=True)
usage_case("gemma", "split", gemma=True)
usage_case("gptj", "split", Hk=4, interleaved=True, extra={"rotary_dim": 8})
usage_case("phi3", "phi3")
usage_case("gpt_neox", "neox", Hk=4)
one, unknown, wrong_kv, missing = ask([
    {"op": "rope_usage", "file": llama_path, "config": llama_cfg, "layers": [1]},
    {"op": "rope_usage", "file": llama_path, "config": dict(llama_cfg, model_type="bloom")},
    {"op": "rope_usage", "file": llama_path, "config": dict(llama_cfg, num_key_value_heads=4)},
    {"op": "rope_usage", "file": llama_path, "config": llama_cfg, "layers": [5]}])
check(one.get("layers") == [1] and len(one.get("q", [])) == 1, "layers chooses the layers")
check("\"bloom\"" in unknown.get("error", {}).get("message", ""), "another model_type is refused by name: %s" % unknown)
check("num_key_value_heads" in wrong_kv.get("error", {}).get("message", ""), "a kv-head count the weights contradict")
check("model.layers.5.self_attn.q_proj.weight" in missing.get("error", {}).get("message", ""),
      "a missing layer names its tensor: %s" % missing)

# 6. real_scores against numpy: layer 0's q of one token, k of another, RoPE(q, r) . RoPE(k, 0).
def f64(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def rope_rotate(x, pos, theta, interleaved):
    r = 2 * len(theta)
    y = x.copy()
    ang = pos * theta
    c, s = np.cos(ang), np.sin(ang)
    if interleaved:
        a, b = x[0:r:2], x[1:r:2]
        y[0:r:2], y[1:r:2] = a * c - b * s, a * s + b * c
    else:
        a, b = x[: r // 2], x[r // 2: r]
        y[: r // 2], y[r // 2: r] = a * c - b * s, a * s + b * c
    return y


def scores_case(model_type, H=4, Hk=2, hd=8, hidden=16, rotary=None, layer_norm=False, gemma=False, bias=False,
                qk_norm=False, neox=False, extra=None):
    rotary = rotary or hd
    vocab = 12
    emb = rng.normal(size=(vocab, hidden))
    gamma, beta = rng.normal(size=hidden), rng.normal(size=hidden)
    wq, wk = rng.normal(size=(H * hd, hidden)), rng.normal(size=(Hk * hd, hidden))
    bq, bk = rng.normal(size=H * hd), rng.normal(size=Hk * hd)
    nq, nk = rng.normal(size=hd), rng.normal(size=hd)
    embed_name = {"gpt_neox": "gpt_neox.embed_in.weight"}.get(model_type, "model.embed_tokens.weight")
    tensors = [(embed_name, "F32", emb)]
    if neox:
        blocks = [np.concatenate([wq[h * hd:(h + 1) * hd], wk[h * hd:(h + 1) * hd], rng.normal(size=(hd, hidden))])
                  for h in range(H)]
        bblocks = [np.concatenate([bq[h * hd:(h + 1) * hd], bk[h * hd:(h + 1) * hd], np.zeros(hd)]) for h in range(H)]
        tensors += [("gpt_neox.layers.0.attention.query_key_value.weight", "F32", np.concatenate(blocks)),
                    ("gpt_neox.layers.0.attention.query_key_value.bias", "F32", np.concatenate(bblocks)),
                    ("gpt_neox.layers.0.input_layernorm.weight", "F32", gamma),
                    ("gpt_neox.layers.0.input_layernorm.bias", "F32", beta)]
    else:
        pre = "model.layers.0."
        tensors += [(pre + "self_attn.q_proj.weight", "F32", wq), (pre + "self_attn.k_proj.weight", "F32", wk),
                    (pre + "input_layernorm.weight", "F32", gamma)]
        if layer_norm:
            tensors.append((pre + "input_layernorm.bias", "F32", beta))
        if bias:
            tensors += [(pre + "self_attn.q_proj.bias", "F32", bq), (pre + "self_attn.k_proj.bias", "F32", bk)]
        if qk_norm:
            tensors += [(pre + "self_attn.q_norm.weight", "F32", nq), (pre + "self_attn.k_norm.weight", "F32", nk)]
    eps = 1e-5
    cfg = {"model_type": model_type, "hidden_size": hidden, "num_attention_heads": H, "head_dim": hd,
           "rope_theta": 10000.0, "max_position_embeddings": 64,
           ("layer_norm_eps" if layer_norm else "rms_norm_eps"): eps}
    cfg.update(extra or {})
    path = write("scores-%s.safetensors" % model_type, tensors)
    head, t, u, K = 3, 5, 9, 40

    def norm(x, g, b):
        if layer_norm:
            c = x - x.mean()
            return c / np.sqrt(np.mean(c ** 2) + eps) * g + b
        return x / np.sqrt(np.mean(x ** 2) + eps) * g

    g = f64(gamma) + 1 if gemma else f64(gamma)
    scale = math.sqrt(hidden) if gemma else 1.0
    kv = head // (H // Hk)
    q = f64(wq)[head * hd:(head + 1) * hd] @ norm(f64(emb)[t] * scale, g, f64(beta))
    k = f64(wk)[kv * hd:(kv + 1) * hd] @ norm(f64(emb)[u] * scale, g, f64(beta))
    if bias or neox:
        q, k = q + f64(bq)[head * hd:(head + 1) * hd], k + f64(bk)[kv * hd:(kv + 1) * hd]
    if qk_norm:
        q = q / np.sqrt(np.mean(q ** 2) + eps) * (f64(nq) + (1 if gemma else 0))
        k = k / np.sqrt(np.mean(k ** 2) + eps) * (f64(nk) + (1 if gemma else 0))
    theta = 10000.0 ** (-np.arange(0, rotary, 2) / rotary)
    want = [rope_rotate(q, d, theta, False) @ k for d in range(K + 1)]
    (got,) = ask([{"op": "real_scores", "file": path, "config": cfg, "head": head, "token": t, "key_token": u,
                   "offsets": K}])
    check(got.get("offsets") == list(range(K + 1)), "%s real_scores offsets: %s" % (model_type, str(got)[:200]))
    close(got.get("score", []), want, 1e-9, "%s real_scores" % model_type)
    return path, cfg


scores_path, scores_cfg = scores_case("llama")
scores_case("qwen2", bias=True)
scores_case("qwen3", qk_norm=True)
scores_case("gemma", gemma=True)
scores_case("stablelm", layer_norm=True, rotary=4, extra={"partial_rotary_factor": 0.5})
scores_case("gpt_neox", Hk=4, layer_norm=True, neox=True, rotary=4, extra={"rotary_pct": 0.5})
past, bad_head = ask([
    {"op": "real_scores", "file": scores_path, "config": scores_cfg, "head": 0, "token": 12, "key_token": 0},
    {"op": "real_scores", "file": scores_path, "config": scores_cfg, "head": 4, "token": 1, "key_token": 0}])
check(past.get("error", {}).get("type") == "IndexError", "a token past the vocabulary is an IndexError: %s" % past)
check("\"head\"" in bad_head.get("error", {}).get("message", ""), "a head past H is refused by name")

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
