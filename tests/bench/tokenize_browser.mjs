// Browser benchmark of the tokenizer (make bench-web), side by side with its anchor: for each fixture tokenizer of
// bench_tokenize.cpp and each of tokenize_texts.mjs's 1 MB texts, back to back: core natively (rv_bench's BM_Encode),
// @huggingface/tokenizers in node (tokenize_node.mjs) and the page's window.ropeviz.tokenize in headless Chromium
// (its encode_ms: core's encoder in the wasm; and the wall time of the call: the JSON in and out, and the
// tokenizer.json's parse, on top), each the best of 3; then one table of MB/s with the ratios to node (the same token
// counts on every side, so tokens/s give the same ratios). Into build/bench-web/tokenize.txt. Not a test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, startServer, ready } from '../web/lib.mjs';
import { loadLine } from '../web/measure.mjs';
import { textBytes, textNames, tokenizeTexts, writeTokenizeTexts } from './tokenize_texts.mjs';
import { benchTokenizers, bestNode, jsTokenizer, rateLine, tokenizerJson } from './tokenize_node.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rvBench = path.join(root, 'build/native/tests/bench/rv_bench');
const textDir = path.join(root, 'build/bench');
const report = path.join(root, 'build/bench-web/tokenize.txt');
fs.mkdirSync(path.dirname(report), { recursive: true });
fs.writeFileSync(report, '');
const record = (line) => { console.log(line); fs.appendFileSync(report, line + '\n'); };

const Tokenizer = await jsTokenizer();
if (!Tokenizer) throw new Error('@huggingface/tokenizers is not installed (setup.sh, or npm ci in tests/tokenizer)');
writeTokenizeTexts(textDir);
const texts = tokenizeTexts();

function native(label, name) {  // rv_bench's best of 3: {ms, tokens}
  const r = spawnSync(rvBench, [`--benchmark_filter=^BM_Encode/${label}_${name}/`, '--benchmark_format=json'],
    { encoding: 'utf8', env: { ...process.env, RV_BENCH_TEXTS: textDir } });
  if (r.status !== 0) throw new Error(`rv_bench: ${r.stderr || r.error}`);
  const [b] = JSON.parse(r.stdout).benchmarks;
  assert.ok(b && !b.error_occurred, `rv_bench ${label} ${name}: ${b?.error_message}`);
  return { ms: b.real_time, tokens: b.tokens };
}

const server = await startServer();
const browser = await launch();
const page = await openPage(browser, { allowed: (url) => url.startsWith(server.origin + '/') });
await page.goto(`${server.origin}/`);
await ready(page);
record(`(${loadLine()}; ${textBytes} bytes a text; best of 3 everywhere)`);
const rows = [];
for (const [label, dir] of benchTokenizers) {
  const json = tokenizerJson(dir);
  for (const name of textNames) {
    const text = texts[name].toString('utf8');
    const n = native(label, name);
    const js = bestNode(Tokenizer, json, text);
    const p = await page.evaluate(async ({ text, tokenizer }) => {
      let encode = Infinity, wall = Infinity, tokens = 0;
      for (let i = 0; i < 3; ++i) {
        const t0 = performance.now();
        const r = await window.ropeviz.tokenize({ text, tokenizer });
        wall = Math.min(wall, performance.now() - t0);
        encode = Math.min(encode, r.encode_ms);
        tokens = r.ids.length;
      }
      return { encode, wall, tokens };
    }, { text, tokenizer: json });
    const cell = `${label} ${name}`;
    assert.ok(n.tokens === js.tokens && p.tokens === js.tokens,
      `${cell}: ${n.tokens} tokens natively, ${js.tokens} in node, ${p.tokens} in the page`);
    record(rateLine(`native ${cell}`, n));
    record(rateLine(`node   ${cell}`, js));
    record(rateLine(`page   ${cell} (encode_ms)`, { ms: p.encode, tokens: p.tokens }));
    record(rateLine(`page   ${cell} (wall)`, { ms: p.wall, tokens: p.tokens }) + `, ${loadLine()}`);
    rows.push({ cell, native: n.ms, node: js.ms, encode: p.encode, wall: p.wall });
  }
}
page.assertClean();
await browser.close();
await server.close();

const mbs = (ms) => textBytes / 1e3 / ms;
const cols = ['MB/s:', 'native', 'node', 'page', 'page wall', 'native/node', 'page/node', 'wall/node'];
const pad = (cells) => cells.map((c, i) => (i ? String(c).padStart(11) : String(c).padEnd(16))).join(' ');
record('');
record(pad(cols));
for (const r of rows) {
  record(pad([r.cell, ...[r.native, r.node, r.encode, r.wall].map((ms) => mbs(ms).toFixed(2)),
    ...[r.native, r.encode, r.wall].map((ms) => `${(r.node / ms).toFixed(2)}x`)]));
}
const min = (f) => Math.min(...rows.map(f));
record(`targets: page >= 1x node (least ${min((r) => r.node / r.encode).toFixed(2)}x encode, ` +
  `${min((r) => r.node / r.wall).toFixed(2)}x wall), native >= 5x node (least ${min((r) => r.node / r.native)
    .toFixed(2)}x)`);
console.log(`written to ${path.relative(root, report)}`);
