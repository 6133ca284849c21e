// The single-file build opened from file://: no server, no request beyond the file itself, and
// the same drag past max_position works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { webDir, artifactDir, launch, openPage, ready, state, drag, shot, a11yText, pickFiles } from './lib.mjs';

const file = path.join(webDir, 'ropeviz.html');
const url = pathToFileURL(file).href;
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('ropeviz.html is self-contained: no script, wasm or other file beside it is referenced', () => {
  const html = fs.readFileSync(file, 'latin1');
  assert.ok(html.includes('<meta charset="windows-1252">'), 'declares the charset its inlined wasm is written in');
  assert.ok(!/src=["'](?!data:)/.test(html), 'no src= attribute pointing at another file');
  assert.ok(html.includes('id="a11y"') && html.includes('aria-live="polite"'));
});

// The wasm and the app's code are inlined LZMA-packed as a data <script> and unpacked by web/unpack.js (with
// web/unlzma.c's decoder) into Module.wasmBinary and an inline script that rvStartApp inserts after the page's last
// (Emscripten's default file name stays in its code but is never fetched: the file:// runs below fail on any
// request beyond the page). Here the page's text is read as the HTML parser hands it over (windows-1252, CR and
// CRLF as LF, NUL as U+FFFD) and unpacked: byte for byte the built wasm, character for character ropeviz.js.
test('the inlined wasm and code unpack to the built ropeviz.wasm and ropeviz.js, byte for byte', () => {
  const text = new TextDecoder('windows-1252').decode(fs.readFileSync(file))
    .replace(/\r\n?/g, '\n').replace(/\0/g, '\ufffd');
  const packed = /<script type="application\/octet-stream" id="wasm-lzma"[^>]*>([^]*?)<\/script>/.exec(text)[1];
  const unpack = /<script>\n(\/\/ Unpacks the single file's inlined wasm[^]*?)<\/script>/.exec(text)[1];
  const inserted = [];
  const context = { atob, TextDecoder, document: {
    getElementById: (id) => (id === 'wasm-lzma' ? { textContent: packed } : null),
    createElement: (tag) => ({ tag }),
  } };
  vm.runInNewContext(unpack, context);
  assert.deepEqual(inserted, [], 'the code waits for the shell\'s context');
  const start = /<script>(rvStartApp\(document\.currentScript\);)<\/script>\n<\/body>/.exec(text);
  assert.ok(start && text.indexOf('<script>\n// Unpacks') < text.indexOf("getContext('webgl2'") &&
    text.indexOf("getContext('webgl2'") < start.index, 'unpacked before the context, started after it');
  vm.runInNewContext(start[1], Object.assign(context, { document: { ...context.document,
    currentScript: { after: (element) => inserted.push(element) } } }));
  const wasm = fs.readFileSync(path.join(webDir, 'ropeviz.wasm'));
  assert.equal(context.Module.wasmBinary.length, wasm.length);
  assert.ok(Buffer.from(context.Module.wasmBinary).equals(wasm), 'same bytes');
  assert.ok(packed.length < wasm.length * 0.6, `packed to ${packed.length} characters`);
  const js = fs.readFileSync(path.join(webDir, 'ropeviz.js'), 'utf8');
  assert.deepEqual(inserted.map((e) => [e.tag, e.textContent]), [['script', `\n${js}\n`]]);
  assert.ok(!text.includes(js.slice(0, 200)), 'the code is not inlined a second time');
});

// The budget a learner's first load must fit. The goal is 300 KB gzip for the whole app in one file; the lab and
// the learner's path took it to 413 KB; the wasm packed with LZMA one byte per character and the closure compiler
// brought it to 306 KB, and the phone layout, keyboard navigation, text view and lesson picture to 312 KB (312,300
// by GNU gzip -9). Then, each by GNU gzip -9: a second binaryen -Oz over the linked wasm 311,389; the font without
// the tables stb_truetype never reads 310,304; the app's code packed with the wasm and run by its sha256 308,222;
// only the Module options the page sets, and no ImGui metrics window 307,288; sign extension, saturating
// float-to-int and bulk memory 306,092; the font's glyphs taken from the app's sources 302,951; two LZMA streams,
// the decoder as raw bytes and no comments in the page 301,222; an escape byte that stands for itself 300,235;
// TextDecoder only 300,116; the best LZMA match length 299,884; no indentation 299,779 (node's zlib, which the
// check uses: 299,839). The exercises as an HTML form, the PyTorch script's scaled evaluation and the phone's
// keyboards took it back to 302,288; the KV-cache decode multiplying with the decoder's own loops (Eigen's product
// kernels no longer linked) brought it to 295,431 (node's zlib: 295,458). The check holds that line, with room for
// a small change, against growth. Making every sentence true for trained models (the lesson's, the Comparison's,
// the context budget's lengths, the score curve's |q||k| and fitted axis, the lab's steps and whole percents, the
// sinusoidal panel at d_model) took it to 300,567 (gzip -9): the budget gave 4,000 bytes for it, to be won back.
// Real checkpoints (the safetensors reader, shards, the page's range protocol and the Hub with its progress and Stop,
// the learned table's analysis with its own Householder reduction and FFT, the Trained-vs-random panel, the Lab's
// saved weights) took it to 333,204 (node's zlib): the budget gave 33,000 bytes for them (Eigen's product kernels
// and reduction, which the analysis first used, were 9,400 bytes more); to be won back. The dot-product panel's q and
// k (#25: same, ones, a checkpoint's layer 0 with its layouts and row reads, tokenizer.json's vocabulary, the page's
// later row reads) gave 9,500 bytes; Frequencies in use (core's rope_usage and attention layouts, first linked into
// the page, the layer walk, its panel, rope_usage built -O2 with SIMD for speed) 13,000: to be won back. The lab's
// seeds (#26: the runs per seed, their means and bands in the plot and summary, the sentence on whether the bands
// separate, a run's JSON read back for runs trained elsewhere) 4,500 (359,786 with them); randomized positions (the
// decoder's per-row positions in its forward, backward and KV cache, the lab's sampling and second test, the
// sequential vs random view, the PyTorch script's port of them) 4,500 (365,040 by node's zlib with them); the lab's
// runs in Web Workers (the page's engine gathering them: parse_lab_run, lab_gather and the collection first linked
// into the page; each worker's entries; the pool and the worker in page.js; the worker built from the page's own code
// and wasm, no second copy) 6,000 (5,742 before randomized positions): to be won back; the PyTorch script past one
// machine (the page exports it whole: --nproc, torchrun's ranks, --ddp, the failure handling) 3,500 (374,085 with it);
// frames that would repeat the last one's pixels not drawn (the hash of a frame's draw lists and heatmaps) 700
// (375,466 with it); configs as transformers 5 writes them (rope_parameters, Gemma 3's two bases in the Context budget
// and Frequencies in use, the gemma-3-4b preset) and the exported PyTorch script's failure paths on current PyTorch
// (its GPU checks before any process starts, the failed rank's traceback queue) 4,500 (379,597 with them); the
// house's typed link keys (a typed setter per key type, the ModelLock over keys) and the one model-family table the
// page now links 1,000 (380,941 with them); Run it: the forward pass for 16 families linked into the page for the first
// time, the study, its panel and the held-out sample it reads (16 KB of text, 6 KB of it gzipped) 23,000 (403,665);
// RoPE at m for the formula and for the trained model (the status strip's measured line, exercise 2 regraded) 1,500
// (404,661); window.ropeviz.forward and passkey in a Web Worker with the CLI's own request code (nlohmann-json) and
// the tokenizer (its Unicode tables and regex engine) 84,000 (487,749); Run it's passes in those workers, the strip's
// verdict for a model without RoPE, lesson step 1's measured words and the first screen's title 2,000 (491,385);
// text in for the app (a checkpoint's tokenizer.json held and fitted, Run it's text and token ids into the workers,
// the token strip, the drop, paste and Hub routing, window.ropeviz.tokenize, the regex's limits) 7,000 (497,964,
// against 491,252 for the build before it, side by side); Run it's activation pair norms beside the weights' gains
// in Frequencies in use (the study's per-pair norms, their plot and sentence) 1,500 (499,425); the passkey bench in Run
// it (its cells as the workers' jobs, the grids, LongRoPE's choice) and its PyTorch button, which carries
// ropeviz_run.py whole (22,090 bytes gzipped alone) 26,000 (524,925); the workers' requests read and written by core's
// one JSON stack, nlohmann-json gone from the page, with a checkpoint note's disclosure and fitted tooltips -10,000
// (514,514).
const gzipBudget = 334000 + 9500 + 13000 + 4500 + 4500 + 6000 + 3500 + 700 + 4500 + 1000 + 23000 + 1500 + 84000 +
  2000 + 7000 + 1500 + 26000 - 10000;

test(`ropeviz.html stays under ${gzipBudget} bytes gzip (level 9); sizes are written to the artefacts`, () => {
  const sizes = ['ropeviz.html', 'ropeviz.js', 'ropeviz.wasm'].map((name) => {
    const bytes = fs.readFileSync(path.join(webDir, name));
    return { name, raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
  });
  fs.mkdirSync(artifactDir, { recursive: true });
  fs.writeFileSync(path.join(artifactDir, 'sizes.txt'),
    sizes.map((s) => `${s.name}: ${s.raw} bytes, ${s.gzip} gzip -9`).join('\n') + '\n');
  const single = sizes[0];
  assert.ok(single.gzip < gzipBudget, `ropeviz.html is ${single.gzip} bytes gzip, over the ${gzipBudget} budget`);
  assert.ok(single.gzip > 100000, 'the measurement reads the real build');
});

test('from file:// the drag past max_position shows the IndexError while RoPE keeps working', async () => {
  const page = await openPage(browser, { allowed: (u) => u === url || u.startsWith(url + '#') });
  await page.goto(`${url}#position=2&max_position=10`);
  const s0 = await ready(page);
  assert.equal(await page.evaluate(() => performance.getEntriesByName('ropeviz:prelinked').length), 1,
    'the app draws with the UI program the page linked while it unpacked');
  assert.equal(s0.position, 2);
  assert.equal(s0.absolute.ok, true);
  await drag(page, 'position', 0.05, 0.7, 8);
  const s = await state(page);
  assert.ok(s.position >= 10, `dragged to ${s.position}`);
  assert.equal(s.absolute.error, `IndexError: index ${s.position} is out of bounds for dimension 0 with size 10`);
  assert.equal(s.rope.ok, true);
  assert.equal(s.rope.angle.length, 4);
  assert.ok(s.rope.angle.every(Number.isFinite));
  assert.match(await page.evaluate(() => location.hash), new RegExp(`position=${s.position}&`));
  await a11yText(page, /out of bounds/);
  await shot(page, 'single-file-after-drag');
  page.assertClean();
  await page.closeAll();
});

test('from file:// forward runs a picked checkpoint in a worker made from the file\'s own code', async () => {
  const page = await openPage(browser,
    { allowed: (u) => u === url || u.startsWith(url + '#') || u.startsWith('blob:') });
  await page.goto(url);
  await ready(page);
  const models = path.resolve(webDir, '../../web/models/llama-bytes');
  await pickFiles(page, 'load_weights', [path.join(models, 'model.safetensors'), path.join(models, 'config.json')]);
  await page.waitForFunction(() => (window.ropeviz.state().weights || {}).source === 'model.safetensors', null,
    { timeout: 30000 });
  const out = await page.evaluate(() => window.ropeviz.forward({ text: 'The grass is green.', outputs: ['nll'] }));
  assert.equal(out.nll.length, 18);
  assert.ok(out.nll.every((x) => Number.isFinite(x) && x >= 0), JSON.stringify(out));
  page.assertClean();
  await page.closeAll();
});

test('from file:// a checkpoint opens (a File handed over as a drop would) and its table is the app\'s, ' +
  'no request made', async () => {
  const page = await openPage(browser, { allowed: (u) => u === url || u.startsWith(url + '#') });
  await page.goto(`${url}#tab_bottom=learned_table`);
  await ready(page);
  const s = await page.evaluate(async () => {
    const rows = 256, dim = 64, n = rows * dim * 4;
    let header = JSON.stringify({ 'wpe.weight': { dtype: 'F32', shape: [rows, dim], data_offsets: [0, n] } });
    header += ' '.repeat((8 - (header.length % 8)) % 8);
    const bytes = new Uint8Array(8 + header.length + n);
    new DataView(bytes.buffer).setUint32(0, header.length, true);
    bytes.set(new TextEncoder().encode(header), 8);
    const table = new Float32Array(bytes.buffer, 8 + header.length, rows * dim);
    for (let t = 0; t < rows; ++t)
      for (let j = 0; j < dim; ++j) table[t * dim + j] = Math.cos(t / rows * (1 + (j % 3)) + j);
    return window.ropeviz.loadWeights([new File([bytes], 'model.safetensors')]);
  });
  assert.deepEqual([s.weights.learned_table.tensor, s.max_position, s.d_model], ['wpe.weight', 256, 64]);
  assert.ok(s.weights.learned_table.neighbour_cos_mean > 0.9);
  const past = await page.evaluate(() => window.ropeviz.set({ position: 256 }));
  assert.equal(past.absolute.error, 'IndexError: index 256 is out of bounds for dimension 0 with size 256');
  page.assertClean();
  await page.closeAll();
});
