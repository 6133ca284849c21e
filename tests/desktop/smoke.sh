#!/usr/bin/env bash
# Desktop smoke test: the real GLFW + OpenGL app under Xvfb renders frames, writes a screenshot,
# and the picture shows the learned table failing only when the position is past max_position.
# usage: smoke.sh BUILD_DIR/ropeviz OUT_DIR
set -euo pipefail
app=$1
out=${2:-build/native/screenshots}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
run() {  # name state size error
  xvfb-run -a -s '-screen 0 1920x1080x24' "$app" --frames 6 --size "$3" --state "$2" --screenshot "$out/$1.png"
  /usr/bin/python3 "$here/check_png.py" "$out/$1.png" --size "$3" --error "$4"
}
run desktop-inside "position=5&max_position=10" 1280x800 absent
run desktop-past "position=100&max_position=10" 1280x800 shown
run desktop-narrow "position=100&d_head=64" 800x800 shown
# The states where a careful reading once found untrue drawings, now fixed: each at two sizes.
for size in 1280x800 800x600; do
  run "fixed-bound-$size" "tab_bottom=score_curve" $size absent
  run "fixed-checks-1024-$size" "max_position=1024&tab_bottom=checks" $size absent
  run "fixed-frameworks-$size" "position=100&tab_bottom=learned_table" $size shown
  run "fixed-widths-$size" "tab_bottom=checks" $size absent
  run "fixed-field-1e6-$size" "position=1000000&tab_top=angle_field" $size shown
  run "fixed-numbers-1e6-$size" "position=1000000&tab_top=rotations&tab_bottom=score_curve" $size shown
done
# Bad input: a hostile state string is reported, not fatal.
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --frames 2 --state 'd_head=abc&base=nan&position=-5' \
  > "$out/bad-state.log" 2>&1
for note in "d_head='abc' is not a whole number" "base='nan' must be a number greater than 1" \
  "position='-5' is outside"; do
  grep -qF "$note" "$out/bad-state.log" || { echo "FAIL: no note \"$note\""; cat "$out/bad-state.log"; exit 1; }
done
# A config.json opens as the model (--config); a bad one is a note naming the field, and the app runs on.
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --frames 10 --config "$here/../fixtures/configs/phi-3.5-mini.json" \
  --state 'tab_top=context_budget' --screenshot "$out/desktop-config.png" > "$out/config.log" 2>&1
grep -qF "note: loaded phi-3.5-mini.json" "$out/config.log" ||
  { echo "FAIL: config not loaded"; cat "$out/config.log"; exit 1; }
printf '{"hidden_size":4096,"num_attention_heads":32,"rope_theta":-1}' > "$out/bad-config.json"
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --frames 2 --config "$out/bad-config.json" \
  > "$out/bad-config.log" 2>&1
grep -qF "bad-config.json: rope_theta must be a finite number > 1, got -1; kept the current model" \
  "$out/bad-config.log" ||
  { echo "FAIL: no note for the bad config"; cat "$out/bad-config.log"; exit 1; }
# A checkpoint opens as the weights (--weights): the lab's trained learned table, read back through the same reader,
# is the app's table and its IndexError comes at its size; a broken file is a note, and the app runs on.
"$(dirname "$app")/ropeviz-cli" lab --methods learned --train-len 3 --steps 200 --seeds 1 \
  --save-weights "$out/lab-weights" > /dev/null 2>&1
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --frames 10 --weights "$out/lab-weights/learned/model.safetensors" \
  --state 'position=100&tab_bottom=learned_table' --screenshot "$out/desktop-weights.png" > "$out/weights.log" 2>&1
grep -qF "the learned table is pos_emb" "$out/weights.log" ||
  { echo "FAIL: weights not loaded"; cat "$out/weights.log"; exit 1; }
/usr/bin/python3 "$here/check_png.py" "$out/desktop-weights.png" --size 1280x800 --error shown
printf 'abc' > "$out/short.safetensors"
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --frames 2 --weights "$out/short.safetensors" > "$out/short.log" 2>&1
grep -qF "short.safetensors: not a safetensors file: 3 bytes, shorter than the 8-byte" "$out/short.log" ||
  { echo "FAIL: no note for the short checkpoint"; cat "$out/short.log"; exit 1; }
# A llama-shaped checkpoint beside its config.json: --weights walks its layers for Frequencies in use, a layer a frame,
# and finds the planted pair (pair 3's rows scaled by 10 in every head).
mkdir -p "$out/llama"
/usr/bin/python3 - "$out/llama" <<'PY'
import json, random, struct, sys
d, L, hidden, heads, kv, hd = sys.argv[1], 4, 32, 4, 2, 8
random.seed(1)
tensors, data = {}, b""
def add(name, rows, cols, planted):
    global data
    vals = [random.uniform(-0.05, 0.05) * (10 if planted and (r % hd) in (3, 3 + hd // 2) else 1)
            for r in range(rows) for _ in range(cols)]
    tensors[name] = {"dtype": "F32", "shape": [rows, cols] if rows > 1 else [cols],
                     "data_offsets": [len(data), len(data) + 4 * len(vals)]}
    data += struct.pack("<%df" % len(vals), *vals)
for l in range(L):
    add("model.layers.%d.self_attn.q_proj.weight" % l, heads * hd, hidden, True)
    add("model.layers.%d.self_attn.k_proj.weight" % l, kv * hd, hidden, True)
    tensors["model.layers.%d.input_layernorm.weight" % l] = {"dtype": "F32", "shape": [hidden],
                                                             "data_offsets": [len(data), len(data) + 4 * hidden]}
    data += struct.pack("<%df" % hidden, *([1.0] * hidden))
h = json.dumps(tensors).encode()
h += b" " * ((8 - len(h) % 8) % 8)
open(d + "/model.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + data)
json.dump({"model_type": "llama", "hidden_size": hidden, "num_attention_heads": heads, "num_key_value_heads": kv,
           "head_dim": hd, "max_position_embeddings": 2048}, open(d + "/config.json", "w"))
PY
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --frames 12 --weights "$out/llama/model.safetensors" \
  --state 'tab_bottom=rope_usage' --screenshot "$out/desktop-rope-usage.png" > "$out/usage.log" 2>&1
grep -qF "frequencies in use measured over all 4 layers; the strongest pair is 3" "$out/usage.log" ||
  { echo "FAIL: --weights did not walk the layers"; cat "$out/usage.log"; exit 1; }
if "$app" --frames 0 2>/dev/null; then echo "FAIL: --frames 0 accepted"; exit 1; fi
echo "desktop smoke: ok"
