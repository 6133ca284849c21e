// ropeviz-cli's tokenize / detokenize against Hugging Face's JS tokenizer (@huggingface/tokenizers, pinned in
// package-lock.json): for each tokenizer.json under tests/fixtures/tokenizers, and variants of them written here with
// a post-processor and added tokens of every kind, a few hundred strings (written out, and drawn from a seeded PRNG
// over a mix of scripts) must give identical ids and tokens, with and without add_special_tokens; the decode of those
// ids, and of random id sequences, must equal the JS decode. Also checks that TextDecoder turns the invalid UTF-8 of
// tests/fixtures/tokenizers/invalid_utf8.json into the strings that file states (what core's reader gives them).
// Usage: node crosscheck.mjs PATH/TO/ropeviz-cli   (exit 77: the npm package is not installed; run setup.sh)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "..", "fixtures", "tokenizers");
const cli = process.argv[2];
if (!cli) throw new Error("usage: node crosscheck.mjs PATH/TO/ropeviz-cli");

let Tokenizer;
try {
  ({ Tokenizer } = await import("@huggingface/tokenizers"));
} catch {
  console.log("SKIP: @huggingface/tokenizers is not installed (run setup.sh, or npm ci in tests/tokenizer)");
  process.exit(77);
}

// mulberry32: the same strings on every run
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const written = [
  "", " ", "Hello world", "The quick brown fox jumps over the lazy dog.", "Hello, world! How are you?",
  "It's a test: we're sure they'll've done it; I'd say you'm fine, don't you?", "IT'S WE'RE THEY'LL 'S 'T 'Re 'vE",
  "She said \u2019twas fine \u2014 really\u2026", "def f(x):\n    return x**2  # square\n",
  "for (int i = 0; i < n; ++i) { a[i] = b[i] * 2; }", '<div class="x">&nbsp;</div>', '{"key": [1, 2.5, -3e10]}',
  "https://example.com/path?q=1&r=two#frag", "user@example.org", "1234567890", "3.14159 2.71828", "12,345,678.90",
  "٣٤٥ ١٢ ३४", "²³¹ ½ ⅓", "a    b", "   leading", "trailing   ", "\t\ttabs\tand\t\tmore\t",
  "line1\r\nline2\r\n\r\nline3", "\n\n\n", "  \n  \n", "\r\r\n\n\r",
  "café naïve résumé", "cafe\u0301 nai\u0308ve re\u0301sume\u0301", "e\u0301\u0302\u0323 o\u0323\u0302",
  "\u1E0B\u0323 \u1E0D\u0307 d\u0307\u0323", "\u212B \u00C5 A\u030A", "\u2126 \u03A9", "Ka\u0308se Äpfel",
  "Καλημέρα κόσμε", "Съешь же ещё этих мягких французских булок", "你好，世界。今天天气很好！",
  "こんにちは、カタカナ・ﾊﾝｶｸ", "한국어 텍스트", "\u1112\u1161\u11AB\u1100\u1173\u11AF", "العربية", "עברית",
  "हिन्दी", "ภาษาไทย", "👍🏽 👨\u200D👩\u200D👧\u200D👦 🏳\uFE0F\u200D🌈", "a\u200Bb\u200Cc\u200Dd\uFEFFe \uFEFF",
  "a\u00A0b\u202Fc\u3000d\u2009e", "x\u0085y \u0085 \u2028\u2029", "ＡＢＣ１２３", "ﬁﬂ ﬀ Ⅲ ⅻ ½ ㎡", "\u00A0\u00A0 \u00A0",
  "<|endoftext|>", "Hello<|endoftext|>world", "<|endoftext|><|endoftext|> x <|endoftext|>", "<s>Hi</s> <unk> x",
  "a </s> b<s>", "<|endoftext", "\u0000\u0001\u001F\u007F", "ÿþĀā", "~!@#$%^&*()_+-=[]{}|;':\",./<>?",
  "-- --- ---- ==== ****", "   \t  \n\t \r\n  ", "x" + " ".repeat(20) + "y", "tool call <tool> here</tool>",
  "my magic word and  <tool>  spaced  </tool>  out", "hello world", "a".repeat(10000), "é".repeat(10000),
  "ab".repeat(5000), "7".repeat(10000), " ".repeat(10000), "🙂".repeat(3000), "hello ".repeat(1700),
  "e\u0301".repeat(5000), "一二三".repeat(3400),
];

const scripts = [  // [first, last] code points, all assigned alike in Unicode 15.0 (ours) and node's newer ICU
  [0x41, 0x5a], [0x61, 0x7a], [0x61, 0x7a], [0x30, 0x39], [0x21, 0x2f], [0x3a, 0x40], [0xc0, 0xff], [0x100, 0x17f],
  [0x300, 0x36f], [0x391, 0x3a9], [0x3b1, 0x3c9], [0x410, 0x44f], [0x5d0, 0x5ea], [0x621, 0x64a], [0x660, 0x669],
  [0x905, 0x939], [0x966, 0x96f], [0xe01, 0xe2e], [0x1100, 0x1112], [0x1161, 0x1175], [0x11a8, 0x11c2],
  [0x2000, 0x200f], [0x2010, 0x2027], [0x2070, 0x2071], [0x2074, 0x208e], [0x2150, 0x2182], [0x3041, 0x3096],
  [0x30a1, 0x30fa], [0x4e00, 0x9fa5], [0xac00, 0xd7a3], [0xfb00, 0xfb06], [0xff01, 0xff5e], [0xff61, 0xff9f],
  [0x1f600, 0x1f64f], [0x1f300, 0x1f320], [0x1d400, 0x1d433],
];
const glue = [" ", " ", " ", "  ", "\n", "\r\n", "\t", "\u00A0", "\u200D", "\uFEFF", "'s", "'LL", ".", ", ",
              "<|endoftext|>", "</s>", "<s>", "<tool>", "magic", "\u0301", "\uFE0F", "\u3000"];

function generated(count, seed) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const out = [];
  for (let n = 0; n < count; ++n) {
    let s = "";
    const chunks = 1 + Math.floor(rand() * 12);
    for (let c = 0; c < chunks; ++c) {
      if (rand() < 0.35) s += pick(glue);
      const [lo, hi] = pick(scripts);
      const run = 1 + Math.floor(rand() * 8);
      for (let i = 0; i < run; ++i) s += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
    }
    out.push(s);
  }
  return out;
}

// Variants: a post-processor as real Llama 2 / Qwen2 files have, and added tokens that are normalized, stripped.
function variants(dir) {
  const load = (name) => JSON.parse(readFileSync(join(fixtures, name, "tokenizer.json"), "utf8"));
  const out = [];
  const llama = load("llama2_spm_bytefallback");
  llama.post_processor = {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
    pair: [], special_tokens: { "<s>": { id: "<s>", ids: [1], tokens: ["<s>"] } },
  };
  const n = Object.keys(llama.model.vocab).length;
  llama.added_tokens.push(
    { id: n, content: "<tool>", single_word: false, lstrip: true, rstrip: true, normalized: false, special: false },
    { id: n + 1, content: "</tool>", single_word: false, lstrip: false, rstrip: true, normalized: false,
      special: true },
    { id: n + 2, content: "magic word", single_word: false, lstrip: false, rstrip: false, normalized: true,
      special: false });
  out.push(["llama2_template_added", llama]);
  const qwen = load("qwen2_nfc_split_bytelevel");
  qwen.post_processor = {
    type: "Sequence", processors: [
      { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
      { type: "TemplateProcessing", single: [{ Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "<|endoftext|>", type_id: 0 } }], pair: [],
        special_tokens: { "<|endoftext|>": { id: "<|endoftext|>", ids: [0], tokens: ["<|endoftext|>"] } } }],
  };
  qwen.added_tokens.push({ id: Object.keys(qwen.model.vocab).length, content: "\u00E9t\u00E9", single_word: false,
                           lstrip: false, rstrip: false, normalized: true, special: false });
  out.push(["qwen2_sequence_post_added", qwen]);
  for (const [name, json] of out) writeFileSync(join(dir, name + ".json"), JSON.stringify(json));
  return out.map(([name]) => [name, join(dir, name + ".json")]);
}

function run_cli(requests) {
  const r = spawnSync(cli, ["eval"], { input: requests.map((q) => JSON.stringify(q)).join("\n") + "\n",
                                       maxBuffer: 1 << 30, encoding: "utf8" });
  if (r.error) throw r.error;
  const lines = r.stdout.split("\n").filter((l) => l.length > 0);
  if (lines.length !== requests.length) throw new Error(`ropeviz-cli answered ${lines.length} of ${requests.length}`);
  return lines.map((l) => JSON.parse(l));
}

const show = (s) => JSON.stringify(s.length > 80 ? s.slice(0, 80) + "..." : s);
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
let failures = 0;
function fail(message) {
  if (++failures <= 20) console.log("FAIL " + message);
}

function check(name, path) {
  const json = JSON.parse(readFileSync(path, "utf8"));
  const tok = new Tokenizer(json, { clean_up_tokenization_spaces: false });
  const strings = [...written, ...generated(300, 0x5eed + name.length)];
  const requests = [], expected = [];
  strings.forEach((text, i) => {
    for (const special of i % 3 === 0 ? [false, true] : [false]) {
      const e = tok.encode(text, { add_special_tokens: special });
      requests.push({ op: "tokenize", tokenizer: path, text, add_special_tokens: special });
      expected.push({ kind: "encode", text, special, ids: e.ids, tokens: e.tokens });
    }
  });
  const vocab = Math.max(...Object.values(json.model.vocab), ...json.added_tokens.map((a) => a.id)) + 1;
  const rand = prng(7);
  const id_lists = [];
  for (let i = 0; i < 60; ++i)
    id_lists.push(Array.from({ length: 1 + Math.floor(rand() * 30) }, () => Math.floor(rand() * vocab)));
  const encoded = expected.filter((e) => e.ids.length > 0).map((e) => e.ids);
  for (const ids of [...encoded, ...id_lists]) {
    requests.push({ op: "detokenize", tokenizer: path, ids });
    expected.push({ kind: "decode", ids, text: tok.decode(ids) });
  }
  const answers = run_cli(requests);
  let encodes = 0, decodes = 0, round_trips = 0;
  answers.forEach((a, i) => {
    const e = expected[i];
    if (a.error) return fail(`${name}: ${JSON.stringify(requests[i]).slice(0, 200)} -> ${a.error.message}`);
    if (e.kind === "encode") {
      ++encodes;
      if (!same(a.ids, e.ids) || !same(a.tokens, e.tokens))
        fail(`${name} encode ${show(e.text)} (special ${e.special}):\n` +
             `  js  ${JSON.stringify(e.tokens).slice(0, 300)}\n  cli ${JSON.stringify(a.tokens).slice(0, 300)}`);
    } else {
      ++decodes;
      if (a.text !== e.text)
        fail(`${name} decode ${JSON.stringify(e.ids).slice(0, 200)}: js ${show(e.text)} cli ${show(a.text)}`);
    }
  });
  for (const e of expected) if (e.kind === "decode" && strings.includes(e.text)) ++round_trips;
  console.log(`${name}: ${strings.length} strings, ${encodes} encodings, ${decodes} decodings ` +
              `(${round_trips} give their text back)`);
}

function check_invalid_utf8() {
  const cases = JSON.parse(readFileSync(join(fixtures, "invalid_utf8.json"), "utf8")).cases;
  for (const c of cases) {
    const bytes = Uint8Array.from(c.bytes_hex.match(/../g) ?? [], (h) => parseInt(h, 16));
    const text = new TextDecoder().decode(bytes);
    if (text !== c.text) fail(`invalid_utf8 ${c.bytes_hex}: TextDecoder gives ${JSON.stringify(text)}`);
  }
  console.log(`invalid_utf8: ${cases.length} byte sequences read as TextDecoder reads them`);
}

// The ops' refusals, and forward's "text" through a "tokenizer": a byte-level BPE without merges (ids = bytes) on the
// repository's byte-level checkpoint must give the NLL of the same ids given as "tokens".
function check_refusals_and_forward(dir) {
  const bytes_json = { model: { type: "BPE", vocab: {}, merges: [] }, added_tokens: [], normalizer: null,
                       pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, use_regex: false },
                       post_processor: null, decoder: { type: "ByteLevel" } };
  let next = 256;
  for (let b = 0; b < 256; ++b) {
    const shown = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    bytes_json.model.vocab[String.fromCodePoint(shown ? b : next++)] = b;
  }
  const files = { bytes: bytes_json, wordpiece: { model: { type: "WordPiece", vocab: {} } } };
  for (const [name, json] of Object.entries(files)) writeFileSync(join(dir, name + ".json"), JSON.stringify(json));
  writeFileSync(join(dir, "not.json"), "this is not JSON");
  const gpt2 = join(fixtures, "gpt2_bytelevel", "tokenizer.json");
  const model = join(here, "..", "..", "web", "models", "llama-bytes");
  const text = "apt-get install caf\u00e9";
  const refusals = [
    [{ op: "tokenize", tokenizer: join(dir, "missing.json"), text }, "cannot read"],
    [{ op: "tokenize", tokenizer: join(dir, "not.json"), text }, "malformed JSON"],
    [{ op: "tokenize", tokenizer: join(dir, "wordpiece.json"), text }, 'the model type "WordPiece" is not supported'],
    [{ op: "detokenize", tokenizer: gpt2, ids: [5, 99999] }, "ids[1] = 99999 is no token's id"],
    [{ op: "tokenize", tokenizer: gpt2 }, '"text"'],
  ];
  const requests = [...refusals.map(([q]) => q), { op: "tokenize", tokenizer: join(dir, "bytes.json"), text },
                    { op: "forward", file: model, text, tokenizer: join(dir, "bytes.json"), rope_scaling: "none" },
                    { op: "forward", file: model, tokens: [...new TextEncoder().encode(text)], rope_scaling: "none" }];
  const answers = run_cli(requests);
  refusals.forEach(([q, part], i) => {
    const e = answers[i].error;
    if (!e || e.type !== "BadRequest" || !e.message.includes(part))
      fail(`refusal ${JSON.stringify(q)}: expected a BadRequest with ${JSON.stringify(part)}, ` +
           `got ${JSON.stringify(answers[i])}`);
  });
  const [ids, by_text, by_ids] = answers.slice(refusals.length);
  if (!same(ids.ids ?? [], [...new TextEncoder().encode(text)])) fail(`bytes tokenizer: ${JSON.stringify(ids)}`);
  if (!by_text.nll || JSON.stringify(by_text.nll) !== JSON.stringify(by_ids.nll))
    fail(`forward through a tokenizer: ${JSON.stringify(by_text).slice(0, 200)} vs ` +
         `${JSON.stringify(by_ids).slice(0, 200)}`);
  console.log(`refusals: ${refusals.length} refused as expected; forward through a tokenizer: ` +
              `${by_text.nll?.length} NLLs equal to the ids'`);
}

const dir = mkdtempSync(join(tmpdir(), "rv-tokenizers-"));
try {
  const names = readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  for (const name of names.sort()) check(name, join(fixtures, name, "tokenizer.json"));
  for (const [name, path] of variants(dir)) check(name, path);
  check_invalid_utf8();
  check_refusals_and_forward(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failures) {
  console.log(`${failures} mismatches`);
  process.exit(1);
}
console.log("all equal");
