#!/usr/bin/env python3
"""ropeviz-cli's tokenize / detokenize against Hugging Face's Rust tokenizers (Python package); exit 77 without it."""
# For each tokenizer.json under tests/fixtures/tokenizers, crosscheck.mjs's strings (its written list and its seeded
# mulberry32 draws, reproduced here) must give the ids of Tokenizer.encode(text, add_special_tokens=False), and the
# CLI's decode of those ids must equal Tokenizer.decode(ids, skip_special_tokens=False). One `ropeviz-cli eval` takes
# every request, one JSON line each.
# Usage: python3 rust_crosscheck.py PATH/TO/ropeviz-cli
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "tokenizers")

# crosscheck.mjs's written strings, in its order
WRITTEN = [
    "", " ", "Hello world", "The quick brown fox jumps over the lazy dog.", "Hello, world! How are you?",
    "It's a test: we're sure they'll've done it; I'd say you'm fine, don't you?", "IT'S WE'RE THEY'LL 'S 'T 'Re 'vE",
    "She said \u2019twas fine \u2014 really\u2026", "def f(x):\n    return x**2  # square\n",
    "for (int i = 0; i < n; ++i) { a[i] = b[i] * 2; }", '<div class="x">&nbsp;</div>', '{"key": [1, 2.5, -3e10]}',
    "https://example.com/path?q=1&r=two#frag", "user@example.org", "1234567890", "3.14159 2.71828", "12,345,678.90",
    "\u0663\u0664\u0665 \u0661\u0662 \u0969\u096a", "\u00b2\u00b3\u00b9 \u00bd \u2153", "a    b", "   leading",
    "trailing   ", "\t\ttabs\tand\t\tmore\t", "line1\r\nline2\r\n\r\nline3", "\n\n\n", "  \n  \n", "\r\r\n\n\r",
    "caf\u00e9 na\u00efve r\u00e9sum\u00e9", "cafe\u0301 nai\u0308ve re\u0301sume\u0301",
    "e\u0301\u0302\u0323 o\u0323\u0302",
    "\u1E0B\u0323 \u1E0D\u0307 d\u0307\u0323", "\u212B \u00C5 A\u030A", "\u2126 \u03A9", "Ka\u0308se \u00c4pfel",
    "\u039a\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 \u03ba\u03cc\u03c3\u03bc\u03b5",
    "\u0421\u044a\u0435\u0448\u044c \u0436\u0435 \u0435\u0449\u0451 \u044d\u0442\u0438\u0445 "
    "\u043c\u044f\u0433\u043a\u0438\u0445 \u0444\u0440\u0430\u043d\u0446\u0443\u0437\u0441\u043a\u0438\u0445 "
    "\u0431\u0443\u043b\u043e\u043a",
    "\u4f60\u597d\uff0c\u4e16\u754c\u3002\u4eca\u5929\u5929\u6c14\u5f88\u597d\uff01",
    "\u3053\u3093\u306b\u3061\u306f\u3001\u30ab\u30bf\u30ab\u30ca\u30fb\uff8a\uff9d\uff76\uff78",
    "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8", "\u1112\u1161\u11AB\u1100\u1173\u11AF",
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "\u05e2\u05d1\u05e8\u05d9\u05ea",
    "\u0939\u093f\u0928\u094d\u0926\u0940", "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",
    "\U0001F44D\U0001F3FD \U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466 \U0001F3F3\uFE0F\u200D\U0001F308",
    "a\u200Bb\u200Cc\u200Dd\uFEFFe \uFEFF", "a\u00A0b\u202Fc\u3000d\u2009e", "x\u0085y \u0085 \u2028\u2029",
    "\uff21\uff22\uff23\uff11\uff12\uff13", "\ufb01\ufb02 \ufb00 \u2162 \u217b \u00bd \u33a1", "\u00A0\u00A0 \u00A0",
    "<|endoftext|>", "Hello<|endoftext|>world", "<|endoftext|><|endoftext|> x <|endoftext|>", "<s>Hi</s> <unk> x",
    "a </s> b<s>", "<|endoftext", "\u0000\u0001\u001F\u007F", "\u00ff\u00fe\u0100\u0101",
    "~!@#$%^&*()_+-=[]{}|;':\",./<>?", "-- --- ---- ==== ****", "   \t  \n\t \r\n  ", "x" + " " * 20 + "y",
    "tool call <tool> here</tool>", "my magic word and  <tool>  spaced  </tool>  out", "hello world", "a" * 10000,
    "\u00e9" * 10000, "ab" * 5000, "7" * 10000, " " * 10000, "\U0001F642" * 3000, "hello " * 1700,
    "e\u0301" * 5000, "\u4e00\u4e8c\u4e09" * 3400,
]

# crosscheck.mjs's code point ranges and glue for its drawn strings
SCRIPTS = [
    (0x41, 0x5a), (0x61, 0x7a), (0x61, 0x7a), (0x30, 0x39), (0x21, 0x2f), (0x3a, 0x40), (0xc0, 0xff), (0x100, 0x17f),
    (0x300, 0x36f), (0x391, 0x3a9), (0x3b1, 0x3c9), (0x410, 0x44f), (0x5d0, 0x5ea), (0x621, 0x64a), (0x660, 0x669),
    (0x905, 0x939), (0x966, 0x96f), (0xe01, 0xe2e), (0x1100, 0x1112), (0x1161, 0x1175), (0x11a8, 0x11c2),
    (0x2000, 0x200f), (0x2010, 0x2027), (0x2070, 0x2071), (0x2074, 0x208e), (0x2150, 0x2182), (0x3041, 0x3096),
    (0x30a1, 0x30fa), (0x4e00, 0x9fa5), (0xac00, 0xd7a3), (0xfb00, 0xfb06), (0xff01, 0xff5e), (0xff61, 0xff9f),
    (0x1f600, 0x1f64f), (0x1f300, 0x1f320), (0x1d400, 0x1d433),
]
GLUE = [" ", " ", " ", "  ", "\n", "\r\n", "\t", "\u00A0", "\u200D", "\uFEFF", "'s", "'LL", ".", ", ",
        "<|endoftext|>", "</s>", "<s>", "<tool>", "magic", "\u0301", "\uFE0F", "\u3000"]

M32 = 0xFFFFFFFF


def imul(a, b):
    return (a * b) & M32


def prng(seed):
    """crosscheck.mjs's mulberry32, in uint32 arithmetic (the same bits as JavaScript's int32 and >>>)."""
    state = seed & M32

    def rand():
        nonlocal state
        state = (state + 0x6D2B79F5) & M32
        t = imul(state ^ (state >> 15), 1 | state)
        t = ((t + imul(t ^ (t >> 7), 61 | t)) & M32) ^ t
        return (t ^ (t >> 14)) / 4294967296

    return rand


def generated(count, seed):
    rand = prng(seed)

    def pick(items):
        return items[int(rand() * len(items))]

    out = []
    for _ in range(count):
        s = ""
        for _ in range(1 + int(rand() * 12)):
            if rand() < 0.35:
                s += pick(GLUE)
            lo, hi = pick(SCRIPTS)
            for _ in range(1 + int(rand() * 8)):
                s += chr(lo + int(rand() * (hi - lo + 1)))
        out.append(s)
    return out


def utf8(s):
    # crosscheck.mjs's strings are all valid UTF-8; one that is not (a lone surrogate) cannot go to either side as
    # text (Python's str encodes no invalid UTF-8), so it would be skipped. The CLI's reading of invalid bytes is
    # crosscheck.mjs's check_invalid_utf8 and the fuzz target's (tests/fuzz/fuzz_tokenizer.cpp).
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def show(s):
    return json.dumps(s[:80] + "..." if len(s) > 80 else s, ensure_ascii=False)


def main():
    if len(sys.argv) != 2:
        print("usage: python3 rust_crosscheck.py PATH/TO/ropeviz-cli", file=sys.stderr)
        return 2
    cli = sys.argv[1]
    try:
        import tokenizers
    except Exception as e:  # noqa: BLE001
        print("SKIP: Hugging Face's tokenizers (Python package) is not importable (%s)" % e)
        return 77

    names = sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))
    failures = []
    requests, expected = [], []  # expected: (name, kind, text, rust ids, rust tokens, rust decode)
    counts = {}
    for name in names:
        path = os.path.abspath(os.path.join(FIXTURES, name, "tokenizer.json"))
        try:
            tok = tokenizers.Tokenizer.from_file(path)
        except Exception as e:  # noqa: BLE001
            failures.append("%s: tokenizers cannot read it: %s" % (name, e))
            continue
        strings = [s for s in WRITTEN + generated(300, 0x5EED + len(name)) if utf8(s)]
        counts[name] = len(strings)
        decodes = []
        for text in strings:
            e = tok.encode(text, add_special_tokens=False)
            requests.append({"op": "tokenize", "tokenizer": path, "text": text})
            expected.append((name, "encode", text, e.ids, e.tokens, None))
            if e.ids:
                decodes.append((text, e.ids, tok.decode(e.ids, skip_special_tokens=False)))
        for text, ids, decoded in decodes:
            requests.append({"op": "detokenize", "tokenizer": path, "ids": ids})
            expected.append((name, "decode", text, ids, None, decoded))

    stdin = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in requests).encode("utf-8")
    run = subprocess.run([cli, "eval"], input=stdin, stdout=subprocess.PIPE, check=False)
    lines = [line for line in run.stdout.decode("utf-8", "surrogateescape").split("\n") if line]
    if run.returncode != 0 or len(lines) != len(requests):
        print("FAIL: ropeviz-cli eval exited %d and answered %d of %d requests" %
              (run.returncode, len(lines), len(requests)))
        return 1

    encodes = decodes = round_trips = 0
    for line, request, (name, kind, text, ids, tokens, decoded) in zip(lines, requests, expected):
        answer = json.loads(line)
        if "error" in answer:
            failures.append("%s: %s -> %s" % (name, json.dumps(request, ensure_ascii=False)[:200],
                                               answer["error"].get("message")))
        elif kind == "encode":
            encodes += 1
            got_ids, got_tokens = answer.get("ids") or [], answer.get("tokens") or []
            if got_ids != ids:
                at = next((i for i, (a, b) in enumerate(zip(ids, got_ids)) if a != b), min(len(ids), len(got_ids)))
                failures.append("%s encode %s: from token %d (of %d rust, %d cli):\n  rust %s %s\n  cli  %s %s" % (
                    name, show(text), at, len(ids), len(got_ids), ids[at:at + 8],
                    json.dumps(tokens[at:at + 8], ensure_ascii=False), got_ids[at:at + 8],
                    json.dumps(got_tokens[at:at + 8], ensure_ascii=False)))
        else:
            decodes += 1
            round_trips += decoded == text
            if answer.get("text") != decoded:
                failures.append("%s decode %s: rust %s cli %s" % (name, json.dumps(ids)[:200], show(decoded),
                                                                   show(answer.get("text", ""))))

    for name in names:
        if name in counts:
            print("%s: %d strings" % (name, counts[name]))
    summary = "tokenizers %s: %d tokenizers x %d strings, %d encodings, %d decodings (%d give their text back)" % (
        tokenizers.__version__, len(counts), max(counts.values(), default=0), encodes, decodes, round_trips)
    if failures:
        for f in failures[:20]:
            print("FAIL " + f)
        print("%s: %d mismatches" % (summary, len(failures)))
        return 1
    print("%s: all equal" % summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
