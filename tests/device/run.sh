#!/usr/bin/env bash
# The checks only a GPU machine with transformers, tokenizers and CUDA can run (docs/building.md, "Checks on a GPU
# machine"), one script for one short session there. It needs what tests/device/prepare.sh made here: a static
# ropeviz-cli (build/device/ropeviz-cli) and the CLI's answers to transformers_check.py's cases (build/device-check).
# Writes its report to $OUT/report.txt (or build/device-report.txt) and exits 0 when every check passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build}
report=$out/report.txt
[ "$out" = build ] && report=build/device-report.txt
cli=build/device/ropeviz-cli
work=$(mktemp -d)
status=0
step() {  # step NAME COMMAND...: runs it, its output into the report, its time and exit status after it
  local name=$1 started rc
  shift
  echo "== $name" | tee -a "$report"
  started=$(date +%s%N)
  "$@" 2>&1 | tee -a "$report"
  rc=${PIPESTATUS[0]}
  printf '== %s: exit %d in %d ms\n\n' "$name" "$rc" $((($(date +%s%N) - started) / 1000000)) | tee -a "$report"
  [ "$rc" = 0 ] || status=1
}
: > "$report"
step "versions" python3 -c "import torch, transformers, tokenizers; print('torch', torch.__version__, 'cuda',
torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '', '| transformers',
transformers.__version__, '| tokenizers', tokenizers.__version__)"
step "the forward op against transformers, float64 on the CPU" \
  python3 tests/device/transformers_check.py compare build/device-check
step "the forward op against transformers, float32 on CUDA" \
  python3 tests/device/transformers_check.py compare build/device-check --device cuda --dtype float32
step "the tokenizer against Hugging Face's Rust tokenizers" python3 tests/tokenizer/rust_crosscheck.py "$cli"

# ropeviz_run.py on CUDA against the CLI's documents: llama-bytes, 2,048 held-out bytes under YaRN x4, and a passkey
# grid; the CLI on this machine's cores beside it.
python3 - "$work" <<'EOF'
import json, os, sys
work = sys.argv[1]
text = open("web/models/heldout.txt", "rb").read()[40000:42048]
yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512}
forward = {"op": "forward", "tokens": list(text), "rope_scaling": yarn, "outputs": ["nll"]}
passkey = {"op": "passkey", "lengths": [512, 1024, 2048], "depths": [0, 0.5, 1], "trials": 4, "seed": 0,
           "rope_scaling": yarn}
for name, req in (("forward", forward), ("passkey", passkey)):
    json.dump(req, open(os.path.join(work, name + ".json"), "w"))
    cli = dict(req, file=os.path.abspath("web/models/llama-bytes/model.safetensors"))
    open(os.path.join(work, name + "-cli.jsonl"), "w").write(json.dumps(cli) + "\n")
EOF
for op in forward passkey; do
  step "ropeviz_run.py $op on CUDA" python3 src/core/infer/ropeviz_run.py --model web/models/llama-bytes \
    --request "$work/$op.json" --device cuda --out "$work/$op-torch.json"
  step "ropeviz-cli $op beside it" sh -c "$cli eval < $work/$op-cli.jsonl > $work/$op-cli.json"
  step "$op: the two documents agree" python3 - "$work/$op-torch.json" "$work/$op-cli.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
if "nll" in a:
    gap = max(abs(x - y) for x, y in zip(a["nll"], b["nll"]))
    print("nll: %d positions, max |difference| %.2e" % (len(a["nll"]), gap))
    sys.exit(0 if len(a["nll"]) == len(b["nll"]) and gap <= 1e-3 else 1)
print("torch accuracy", a["accuracy"], "\ncli   accuracy", b["accuracy"])
gap = max(abs(x - y) for ra, rb in zip(a["key_logprob"], b["key_logprob"]) for x, y in zip(ra, rb))
print("key_logprob max |difference| %.2e" % gap)
sys.exit(0 if a["accuracy"] == b["accuracy"] and gap <= 1e-3 else 1)
EOF
done

# The lab's PyTorch export on CUDA: the default experiment, timed (the CLI's own run of it is on this machine's CPU).
step "lab-export" "$cli" lab-export "$work/lab"
step "ropeviz_lab.py on CUDA" python3 "$work/lab/ropeviz_lab.py" --device cuda --out "$work/lab/result.json"
rm -rf "$work"
echo "device checks: $([ $status = 0 ] && echo all passed || echo some failed); report in $report"
exit $status
