#!/usr/bin/env python3
"""`ropeviz-cli lab-export` against `ropeviz-cli lab`: the exported PyTorch script, run on the CPU in float32 from the
data file's weights, must train all six position methods with the C++'s losses (within 1e-4 over 50 steps) and reach
its evaluation (learned's IndexError and null accuracy included); without the data file it must draw the same weights
(its port of the init) and still train; rope evaluated with linear (PI), dynamic (NTK) and YaRN must use core's
frequencies (computed by the script's own port of the scaling) and give the C++'s accuracies, and the old names pi
and ntk must read as linear and dynamic; its batch generator must equal the data file's batches for every task, and
a data file with another batch must be refused. Its nn.Module must give decoder_grad's float64 loss for every method
and both RoPE pairings. The script's one marked DEFAULTS line must read (in Python) as the data file's options, and
lab-export of the flags its --print-command prints must write the same script. Also the CLI's errors. Exit 77 (skip)
without torch. With ROPEVIZ_LAB_SCRIPT=PATH every exported script is PATH with the export's DEFAULTS line (as
lab-export writes it): src/core/lab/ropeviz_lab.py tested before the CLI that embeds it is built again."""
import ast
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import traceback
import types

import cli_harness
from cli_harness import as_exported, check, checks, failures

try:
    import torch
except Exception as e:  # noqa: BLE001
    print("SKIP: PyTorch is not importable (%s)" % e)
    sys.exit(77)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/native/ropeviz-cli"
# "base": the six methods' run, the init, the module, the batches and the errors; "options": scaling, seeds and random
# positions; "all" (the default) both. ctest runs the two parts as two tests, so two cores share them.
PART = sys.argv[2] if len(sys.argv) > 2 else "all"
if PART not in ("all", "base", "options"):
    sys.exit("torch_lab_export.py: the part is all, base or options, not %r" % PART)
METHODS = ["learned", "sinusoidal", "rope", "alibi", "t5", "none"]
# a learned table of 12 rows: positions 0..5 trained (copy at train_len 3), rows 6..11 never read in training
FLAGS = ["--methods", ",".join(METHODS), "--steps", "50", "--check-every", "0", "--train-len", "3", "--table-len", "12",
         "--seeds", "1"]
TOL = 1e-4  # |torch loss - C++ loss| at every one of the 50 steps
ENV = dict(os.environ, OMP_NUM_THREADS="1")  # a tiny model: one thread is fastest, and the machine is shared
torch.set_num_threads(1)  # the same for the runs in this process


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=ENV)


def script_run(script, *args, subprocess_run=False):
    """Runs the exported script on the CPU; its result document, or None (with a failed check) when it fails. In this
    process (torch imported once, not once a run: 1 CPU s each) unless subprocess_run, as `python3 ropeviz_lab.py`."""
    out = os.path.join(os.path.dirname(script), "result.json")
    argv = ["--device", "cpu", "--out", out, "--print-every", "0", *args]
    p = run([sys.executable, script, *argv]) if subprocess_run else in_process(script, *argv)
    check(p.returncode == 0, "script %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
    if p.returncode != 0:
        return None, p
    with open(out) as f:
        return json.load(f), p


modules = {}


def load_module(script):
    if script not in modules:
        spec = importlib.util.spec_from_file_location("ropeviz_lab", script)
        modules[script] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modules[script])
    return modules[script]


def in_process(script, *argv):
    """The script's main(argv) in this process, as a finished subprocess: returncode, stdout, stderr."""
    out, err, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            load_module(script).main(list(argv))
        except SystemExit as e:  # as the interpreter exits: a number is the code, a message goes to stderr with 1
            code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
            if not isinstance(e.code, int) and e.code is not None:
                print(e.code, file=sys.stderr)
        except Exception:  # noqa: BLE001
            code = 1
            traceback.print_exc()
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


MARK = "  # ropeviz-cli lab-export writes this line"


def marked_defaults(script):
    """The script's marked DEFAULTS line read as Python reads it (None unless there is exactly one)."""
    with open(script) as f:
        lines = [line.rstrip("\n") for line in f if line.startswith("DEFAULTS")]
    if len(lines) != 1 or not lines[0].startswith("DEFAULTS = ") or not lines[0].endswith(MARK):
        return None
    return ast.literal_eval(lines[0][len("DEFAULTS = "):-len(MARK)])


def check_print_command(script, tag):
    """--print-command's `ropeviz-cli lab ...` is the exported run: lab-export of its flags writes the same script."""
    p = in_process(script, "--print-command")
    words = p.stdout.split()
    check(p.returncode == 0 and words[:2] == ["ropeviz-cli", "lab"], "%s: --print-command: %r" % (tag, p.stdout))
    again = os.path.join(os.path.dirname(script) + "-again")
    _, again_script, _ = export(again, *words[2:])
    with open(script) as f, open(again_script) as g:
        check(f.read() == g.read(), "%s: lab-export of --print-command's flags writes another script" % tag)


def export(directory, *flags):
    p = run([CLI, "lab-export", directory, *flags])
    check(p.returncode == 0, "lab-export %s: exit %d: %s" % (" ".join(flags), p.returncode, p.stderr))
    as_exported(os.path.join(directory, "ropeviz_lab.py"))
    with open(os.path.join(directory, "ropeviz_lab_data.json")) as f:
        return json.loads(p.stdout or "{}"), os.path.join(directory, "ropeviz_lab.py"), json.load(f)


with tempfile.TemporaryDirectory() as tmp:
    # ---- the C++ run and the export of the same flags ----------------------------------------------------------------
    cpp = json.loads(run([CLI, "lab", *FLAGS]).stdout)
    line, script, data = export(os.path.join(tmp, "run"), *FLAGS)
    check(line == {"script": script, "data": os.path.join(tmp, "run", "ropeviz_lab_data.json"), "batches": 50,
                   "methods": METHODS}, "lab-export's line: %r" % line)
    check(len(data["batches"]) == 50, "50 batches in the data file")

    mod = load_module(script)
    if PART in ("all", "base"):
        # ---- float32 from the data file's weights: the C++'s losses and evaluation -----------------------------------
        ours, p = script_run(script, "--data", line["data"], "--dtype", "float32", subprocess_run=True)
        check(p.returncode == 0 and "50 batches equal the generated ones" in p.stdout,
              "the script checked the data file's batches: %r" % p.stdout[:300])
        for m in METHODS if ours else []:
            a, b = cpp["methods"][m], ours["methods"][m]
            check(len(a["train_loss"]) == len(b["train_loss"]) == 50, "%s: 50 losses each" % m)
            worst = max(abs(x - y) for x, y in zip(a["train_loss"], b["train_loss"]))
            print("%-10s worst |torch loss - C++ loss| over 50 steps: %.3g" % (m, worst))
            check(worst < TOL, "%s: loss differs by %.3g" % (m, worst))
            check(a["train_loss"][-1] < 0.6 * a["train_loss"][0], "%s: the C++ loss falls" % m)
            check(b["error"] == a["error"], "%s: error %r, C++ %r" % (m, b["error"], a["error"]))
            check(b["steps_run"] == a["steps_run"] and b["reached_bar"] == a["reached_bar"], "%s: steps_run, bar" % m)
            for key in ("accuracy", "token_accuracy"):
                check([x is None for x in b[key]] == [x is None for x in a[key]],
                      "%s: null %s where the C++'s" % (m, key))
                gap = max(abs((x or 0) - (y or 0)) for x, y in zip(a[key], b[key]))
                check(len(a[key]) == len(b[key]) == 12 and gap <= 0.05, "%s: %s differs by %.3g" % (m, key, gap))
        check(cpp["methods"]["learned"]["error"] ==
              "IndexError: index 12 is out of bounds for dimension 0 with size 12",
              "learned's error: %r" % cpp["methods"]["learned"]["error"])
        rows_cpp = cpp["methods"]["learned"]["table_row_change"]
        rows_torch = ours["methods"]["learned"].get("table_row_change", []) if ours else []
        check(len(rows_cpp) == len(rows_torch) == 12, "learned: 12 table rows' changes each")
        gap = max([abs(x - y) / x for x, y in zip(rows_cpp, rows_torch)] or [1])
        print("learned table rows: worst relative difference of the change from init, torch vs C++: %.3g" % gap)
        check(gap < 1e-2, "learned: table_row_change differs by %.3g" % gap)
        check(max(rows_torch[6:] or [1]) < 0.1 * min(rows_torch[:6] or [0]),
              "torch: the never-trained rows barely moved")
        for key, value in cpp.items():
            if key not in ("seconds", "tokens_per_s", "methods"):
                check(ours is not None and ours.get(key) == value, "document key %s: %r, C++ %r" % (key, ours and
                                                                                                  ours.get(key), value))

        # ---- without --data: the ported init draws the same weights; torch's init trains too -------------------------
        defaults = marked_defaults(script)
        check(defaults == mod.DEFAULTS, "the marked line is DEFAULTS: %r" % defaults)
        check(defaults is not None and defaults == {k: data["options"].get(k) for k in defaults} and
              len(data["options"]) == len(defaults) + 2, "the data file's options are DEFAULTS and vocab, sep")
        check(defaults is not None and
              (defaults["steps"], defaults["check_every"], defaults["table_len"]) == (50, 0, 12),
              "the flags baked in: %r" % defaults)
        check_print_command(script, "run")
        o = mod.parse_args([])
        for m in METHODS:
            model = mod.make_model(o, m)
            mod.lab_init(model, o.seed)
            weights = data["methods"][m]["weights"]
            names = [name for name, _ in model.named_weights()]
            check(names == list(weights), "%s: the data file's weights in the contract's order" % m)
            same = all(torch.equal(w, torch.tensor(weights.get(name, []), dtype=torch.float32).view(w.shape))
                       for name, w in model.named_weights() if len(weights.get(name, [])) == w.numel())
            check(same, "%s: the script's init equals the data file's weights" % m)
        plain, _ = script_run(script, "--methods", "learned,rope", "--losses-only")
        for m in ("learned", "rope") if plain else []:
            check(plain["methods"][m]["train_loss"] == ours["methods"][m]["train_loss"],
                  "%s: without --data the same losses as with it" % m)
        fresh, _ = script_run(script, "--methods", "rope", "--losses-only", "--init", "torch")
        if fresh:
            loss = fresh["methods"]["rope"]["train_loss"]
            print("rope, torch's init: loss %.3f -> %.3f" % (loss[0], loss[-1]))
            check(len(loss) == 50 and loss[-1] < 0.6 * loss[0],
                  "torch's init trains: %.3f -> %.3f" % (loss[0], loss[-1]))
        wide, _ = script_run(script, "--methods", "rope", "--losses-only", "--dtype", "float64", "--data", line["data"])
        if wide:
            pairs = zip(wide["methods"]["rope"]["train_loss"], cpp["methods"]["rope"]["train_loss"])
            gap = max(abs(x - y) for x, y in pairs)
            print("rope in float64 vs the C++'s float32: worst loss difference %.3g" % gap)
            check(gap < 1e-3, "float64 rope differs from float32 by %.3g" % gap)

    if PART in ("all", "options"):
        # ---- rope evaluated with linear, dynamic and YaRN: the script's own scaling math against core's, the same
        # accuracies; the old names pi and ntk read as linear and dynamic, in the CLI and in the script ----------------
        for scaling in ("linear", "dynamic", "yarn"):
            flags = ["--methods", "rope", "--steps", "30", "--check-every", "0", "--train-len", "3", "--seeds", "1",
                     "--rope-scaling", scaling, "--rope-factor", "3"]
            want = json.loads(run([CLI, "lab", *flags]).stdout)
            sline, sscript, _ = export(os.path.join(tmp, "scaled-" + scaling), *flags)
            got, _ = script_run(sscript, "--data", sline["data"])
            check_print_command(sscript, scaling)
            if not got:
                continue
            check((got.get("rope_scaling"), got.get("rope_factor")) == (scaling, 3.0),
                  "%s: the scaling baked in" % scaling)
            a, b = want["rope_inv_freq_scaled"], got.get("rope_inv_freq_scaled", [])
            gap = max([abs(x - y) / x for x, y in zip(a, b)] or [1])
            af = abs(want["rope_attention_factor"] - got.get("rope_attention_factor", 0))
            print("%-7s scaled theta: worst relative difference torch script vs core %.3g; attention factor %.3g; "
                  "exact match C++ %s, torch %s" % (scaling, gap, af, want["methods"]["rope"]["accuracy_scaled"],
                                                    got["methods"]["rope"].get("accuracy_scaled")))
            check(len(a) == len(b) == 4 and gap < 1e-12 and af < 1e-12,
                  "%s: scaled theta %r, core %r" % (scaling, b, a))
            plain = [1.0 / 10000.0 ** (2 * k / 8) for k in range(4)]  # the lab's default d_head 8 and base 10000
            check(max(abs(x - y) / y for x, y in zip(a, plain)) > 0.01, "%s changes theta: %r" % (scaling, a))
            for key in ("accuracy_scaled", "token_accuracy_scaled"):
                x, y = want["methods"]["rope"][key], got["methods"]["rope"].get(key, [])
                worst = max([abs(p - q) for p, q in zip(x, y)] or [1])
                check(len(x) == len(y) == 12 and worst <= 0.05, "%s: %s differs by %.3g" % (scaling, key, worst))

        for old, new in (("pi", "linear"), ("ntk", "dynamic")):
            flags = ["--methods", "rope", "--steps", "30", "--check-every", "0", "--train-len", "3", "--seeds", "1",
                     "--rope-scaling", old, "--rope-factor", "3"]
            _, old_script, _ = export(os.path.join(tmp, "old-" + old), *flags)
            with open(old_script) as f, open(os.path.join(tmp, "scaled-" + new, "ropeviz_lab.py")) as g:
                check(f.read() == g.read(),
                      "lab-export --rope-scaling %s writes --rope-scaling %s's script" % (old, new))
            check(mod.parse_args(["--rope-scaling", old]).rope_scaling == new, "the script reads %s as %s" % (old, new))
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                mod.parse_args(["--rope-scaling", "llama3"])
                check(False, "the script refuses --rope-scaling llama3")
            except SystemExit as e:
                check(e.code == 2, "the script refuses --rope-scaling llama3: exit %r" % e.code)

        # ---- --seeds 2: one run per seed, each the C++'s run of that seed; the means as the C++ takes them -----------
        flags = ["--methods", "rope,learned", "--steps", "20", "--check-every", "0", "--train-len", "2", "--seed", "3",
                 "--seeds", "2"]
        want = json.loads(run([CLI, "lab", *flags]).stdout)
        sline, sscript, _ = export(os.path.join(tmp, "seeds"), *flags)
        check_print_command(sscript, "seeds")
        got, _ = script_run(sscript, "--data", sline["data"])
        for m in ("rope", "learned") if got else []:
            a, b = want["methods"][m], got["methods"][m]
            check([r["seed"] for r in b["runs"]] == [r["seed"] for r in a["runs"]] == [3, 4],
                  "%s: runs of seeds 3, 4" % m)
            for ra, rb in zip(a["runs"], b["runs"]):
                worst = max(abs(x - y) for x, y in zip(ra["train_loss"], rb["train_loss"]))
                check(len(ra["train_loss"]) == len(rb["train_loss"]) == 20 and worst < TOL,
                      "%s seed %d: losses differ by %.3g" % (m, ra["seed"], worst))
                check([x is None for x in ra["accuracy"]] == [x is None for x in rb["accuracy"]],
                      "%s seed %d: nulls where the C++'s" % (m, ra["seed"]))
            for key in ("accuracy", "token_accuracy"):
                runs = [r[key] for r in b["runs"]]
                means = [None if any(r[n] is None for r in runs) else (0.0 + runs[0][n] + runs[1][n]) / 2
                         for n in range(len(runs[0]))]
                check(b[key] == means, "%s: the script's %s is the mean of its runs" % (m, key))
            check(b["train_loss"] == b["runs"][0]["train_loss"] and b["steps_run"] == b["runs"][0]["steps"],
                  "%s: the method's loss and steps are the first seed's" % m)
        check(got is not None and got.get("seeds") == 2 and want["seeds"] == 2, "the documents say seeds 2")

        # ---- --positions random: the same positions, so the C++'s losses; both tests; NoPE's two tests agree ---------
        flags = ["--methods", "rope,alibi,t5,learned,none", "--steps", "20", "--check-every", "0", "--train-len", "2",
                 "--seeds", "1", "--positions", "random", "--position-range", "40"]
        want = json.loads(run([CLI, "lab", *flags]).stdout)
        rline, rscript, _ = export(os.path.join(tmp, "random"), *flags)
        check_print_command(rscript, "random")
        got, _ = script_run(rscript, "--data", rline["data"])
        check(got is not None and (got.get("positions"), got.get("position_range"), got.get("max_position")) ==
              ("random", 40, 40) == (want["positions"], want["position_range"], want["max_position"]),
              "random: the placement echoed: %r" % ((got and (got.get("positions"), got.get("position_range"),
                                                              got.get("max_position"))),))
        rm = load_module(rscript)
        ro = rm.parse_args([])
        want_positions = []
        for step in range(3):  # the script's positions: sorted, distinct, in [0, 40), one list per row
            rows = rm.train_batch(ro, step)
            want_positions.append(rm.train_positions(ro, step, rows))
            check(all(p == sorted(set(p)) and len(p) == len(x) and 0 <= p[0] and p[-1] < 40
                      for (x, _), p in zip(rows, want_positions[-1])), "random: step %d's positions" % step)
        for m in ("rope", "alibi", "t5", "learned", "none") if got else []:
            a, b = want["methods"][m], got["methods"][m]
            worst = max(abs(x - y) for x, y in zip(a["train_loss"], b["train_loss"]))
            print("%-10s random positions: worst |torch loss - C++ loss| over 20 steps: %.3g" % (m, worst))
            check(len(b["train_loss"]) == 20 and worst < TOL, "random %s: losses differ by %.3g" % (m, worst))
            for key in ("accuracy", "accuracy_sequential"):
                gap = max(abs((x or 0) - (y or 0)) for x, y in zip(a[key], b.get(key, [])))
                check(len(b.get(key, [])) == 8 and gap <= 0.05, "random %s: %s differs by %.3g" % (m, key, gap))
        check(got is None or got["methods"]["none"]["accuracy"] == got["methods"]["none"]["accuracy_sequential"],
              "random: NoPE reads no position, so its two tests agree")

    if PART in ("all", "base"):
        # ---- the script's nn.Module against decoder_grad in float64, both pairings, 3 heads (ALiBi), T5's log buckets 
        g = torch.Generator().manual_seed(7)
        for position, pairing, heads, T in [("learned", "interleaved", 3, 19), ("sinusoidal", "interleaved", 3, 19),
                                            ("rope", "interleaved", 4, 19), ("rope", "half_split", 4, 19),
                                            ("alibi", "interleaved", 3, 19), ("t5", "interleaved", 3, 40),
                                            ("none", "interleaved", 3, 19)]:
            model = mod.Decoder(position, 11, 24, heads, 2, 20, 40, 500.0, pairing).double()
            with torch.no_grad():
                for name, w in model.named_weights():
                    noise = torch.randn(w.shape, generator=g, dtype=torch.float64)
                    w.copy_(1.0 + 0.3 * noise if "norm" in name else 0.5 * noise)
            tokens = torch.randint(0, 11, (3, T), generator=g)
            targets = torch.randint(-1, 11, (3, T), generator=g)
            config = {"vocab": 11, "d_model": 24, "heads": heads, "layers": 2, "d_ff": 20, "position": position,
                      "max_position": 40, "base": 500.0, "pairing": pairing}
            got = cli_harness.ask(CLI, [{"op": "decoder_grad", "config": config, "tokens": tokens.tolist(),
                                         "targets": targets.tolist(),
                                         "weights": {n: w.flatten().tolist() for n, w in model.named_weights()}}])[0]
            want = mod.loss_of(model, tokens, targets).item()
            check(abs(got.get("loss", 0.0) - want) <= 1e-10 * abs(want),
                  "%s %s: the script's model %r, decoder_grad %r" % (position, pairing, want, got))

        # ---- the batch generator on every task (and at other sizes) equals the data file's ---------------------------
        for task in ("copy", "reverse", "repeat"):
            _, task_script, task_data = export(os.path.join(tmp, task), "--task", task, "--train-len", "7",
                                               "--batch", "9",
                                               "--seed", "12345", "--methods", "rope", "--batches", "20")
            tm = load_module(task_script)
            to = tm.parse_args([])
            check((to.task, to.train_len, to.batch, to.seed) == (task, 7, 9, 12345), "%s: options baked in" % task)
            batches = task_data["batches"]
            check(len(batches) == 20, "%s: --batches 20" % task)
            same = all([x for x, _ in tm.train_batch(to, b["step"])] == b["tokens"] and
                       [y for _, y in tm.train_batch(to, b["step"])] == b["targets"] for b in batches)
            check(same, "%s: the script's batches equal the data file's" % task)

        # ---- a data file with another batch is refused ---------------------------------------------------------------
        data["batches"][3]["tokens"][0][0] = (data["batches"][3]["tokens"][0][0] + 1) % 10
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            json.dump(data, f)
        p = run([sys.executable, script, "--device", "cpu", "--data", bad, "--steps", "2", "--out", "-"])
        check(p.returncode != 0 and "step 3 differs" in p.stderr, "a changed batch is refused: %r" % p.stderr[-300:])

        # ---- the CLI's errors ----------------------------------------------------------------------------------------
        blocker = os.path.join(tmp, "file")
        open(blocker, "w").close()
        for args, code, text in [([os.path.join(blocker, "dir")], 1, "cannot create directory"),
                                 ([], 2, "needs a directory"), (["--steps", "5"], 2, "needs a directory"),
                                 ([tmp, "--batches", "x"], 2, "--batches must be"),
                                 ([tmp, "--batches"], 2, "--batches needs a value"),
                                 ([tmp, "--bogus", "1"], 2, "unknown flag \"--bogus\"")]:
            p = run([CLI, "lab-export", *args])
            check(p.returncode == code and text in p.stderr,
                  "lab-export %s: exit %d, %r" % (args, p.returncode, p.stderr))

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)
