// Real checkpoints in the page (docs/real-weights.md): a 500 MB GPT-2-shaped file picked and read by ranges, an
// index with its shards, refusals that name the tensor, weights=none, and the Hugging Face Hub through an emulation of
// it (the page's requests to huggingface.co and *.hf.co are routed to it: a resolve URL that redirects to a file host
// serving byte ranges with the Hub's CORS headers, a gated repo, a missing one, a host that ignores Range).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  servedApp, state, frames, artifactDir, webDir, launch, openPage, ready, clickDownloads, pickFiles,
} from './lib.mjs';

const open = servedApp();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ropeviz-weights-'));
// The CLI's tokenize op on the tokenized fixture's tokenizer.json: the ids the page must give.
const cliPath = new URL('../../build/native/ropeviz-cli', import.meta.url).pathname;
const cliTokenize = (text) => JSON.parse(execFileSync(cliPath, ['eval'], { input: JSON.stringify({ op: 'tokenize',
  text, tokenizer: new URL('../fixtures/tokenized_llama/tokenizer.json', import.meta.url).pathname }) + '\n' })).ids;
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const gpt2Config = fs.readFileSync(new URL('../fixtures/configs/gpt2.json', import.meta.url), 'utf8');

// A safetensors file: tensors [{name, dtype, shape, data (Buffer) or bytes (a length left as zeros)}]. Zeros past the
// written data are a sparse hole (ftruncate), so a 500 MB file costs its header and the table on disk.
function writeSafetensors(file, tensors) {
  const size = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8 };
  const header = {};
  let at = 0;
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1) * size[t.dtype];
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + n] };
    t.at = at;
    at += n;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const fd = fs.openSync(file, 'w');
  const n = Buffer.alloc(8);
  n.writeBigUInt64LE(BigInt(json.length));
  fs.writeSync(fd, n, 0, 8, 0);
  fs.writeSync(fd, Buffer.from(json), 0, json.length, 8);
  for (const t of tensors) if (t.data) fs.writeSync(fd, t.data, 0, t.data.length, 8 + json.length + t.at);
  fs.ftruncateSync(fd, 8 + json.length + at);
  fs.closeSync(fd);
  return { headerBytes: json.length, fileBytes: 8 + json.length + at };
}

// A trained-looking table: each row a point on a smooth low-rank curve (a few slow sinusoids along fixed directions).
function helixTable(rows, dim) {
  const data = Buffer.alloc(rows * dim * 4);
  for (let t = 0; t < rows; ++t)
    for (let j = 0; j < dim; ++j) {
      const w = (1 + (j % 3)) * Math.PI / rows;
      const v = 0.1 * Math.cos(t * w + j) + 0.05 * Math.sin(t * w * 2 + 3 * j);
      data.writeFloatLE(v, 4 * (t * dim + j));
    }
  return data;
}

const wpeBytes = 1024 * 768 * 4;
const gpt2 = path.join(dir, 'gpt2');
fs.mkdirSync(gpt2);
const gpt2Sizes = writeSafetensors(path.join(gpt2, 'model.safetensors'), [
  { name: 'h.filler', dtype: 'F32', shape: [86000, 1000] },  // the layers' bulk, never read
  { name: 'wpe.weight', dtype: 'F32', shape: [1024, 768], data: helixTable(1024, 768) },
  { name: 'wte.weight', dtype: 'F32', shape: [50257, 768] },
]);
fs.writeFileSync(path.join(gpt2, 'config.json'), gpt2Config);

const pick = (page, files) => pickFiles(page, 'load_weights', files);

test('a 500 MB GPT-2-shaped checkpoint: only its header and wpe are read, and the app takes its frame', async () => {
  const page = await open('#tab_bottom=learned_table');
  assert.ok(gpt2Sizes.fileBytes > 500e6, `the file is ${gpt2Sizes.fileBytes} bytes`);
  await pick(page, [path.join(gpt2, 'model.safetensors'), path.join(gpt2, 'config.json')]);
  const started = Date.now();  // the files are the page's: from here to the drawn table
  await page.waitForFunction(() => window.ropeviz.state().weights !== null, null, { timeout: 60000 });
  await frames(page, 2);
  const ms = Date.now() - started;
  const s = await state(page);
  const w = s.weights;
  assert.equal(w.source, 'model.safetensors');
  assert.equal(w.tensors, 3);
  assert.equal(w.file_bytes, gpt2Sizes.fileBytes);
  assert.ok(w.bytes_read <= 8 + gpt2Sizes.headerBytes + wpeBytes, `read ${w.bytes_read} bytes`);
  assert.ok(w.bytes_read >= wpeBytes, `read ${w.bytes_read} bytes`);
  assert.deepEqual([w.learned_table.tensor, w.learned_table.rows, w.learned_table.dim], ['wpe.weight', 1024, 768]);
  assert.equal(w.model_type, 'gpt2');
  assert.equal(s.max_position, 1024);
  assert.equal(s.d_model, 768);
  assert.equal(s.model_label, 'model.safetensors (config.json)');
  assert.ok(w.learned_table.neighbour_cos_mean > 0.9, `neighbour cosine ${w.learned_table.neighbour_cos_mean}`);
  fs.writeFileSync(path.join(artifactDir, 'weights-open.txt'),
    `a ${gpt2Sizes.fileBytes}-byte GPT-2-shaped checkpoint: ${w.bytes_read} bytes read, ` +
    `${ms} ms from the picked files to the ` +
    `drawn table, the analysis of its 1024 x 768 table ${Math.round(w.learned_table.analysis_ms)} ms\n`);
  assert.ok(w.learned_table.analysis_ms > 0);
  // The slider past the real table: the real IndexError at its real size.
  const past = await page.evaluate(() => window.ropeviz.set({ position: 1024 }));
  assert.equal(past.absolute.error, 'IndexError: index 1024 is out of bounds for dimension 0 with size 1024');
  const inside = await page.evaluate(() => window.ropeviz.set({ position: 1023 }));
  assert.equal(inside.absolute.ok, true);
  // The frame is the table's until weights=none.
  const refused = await page.evaluate(() => window.ropeviz.set({ max_position: 10 }));
  assert.equal(refused.max_position, 1024);
  assert.ok(refused.notes.some((n) => /learned table; choose weights=none/.test(n)), refused.notes.join('\n'));
  await frames(page, 2);
  const shot = await page.evaluate(() => window.ropeviz.png('learned_table'));
  fs.writeFileSync(path.join(artifactDir, 'weights-learned-table.png'), Buffer.from(shot.png.split(',')[1], 'base64'));
  const trained = await page.evaluate(() => window.ropeviz.png('trained_table'));
  fs.writeFileSync(path.join(artifactDir, 'weights-trained-vs-random.png'),
    Buffer.from(trained.png.split(',')[1], 'base64'));
  // A 5 GB checkpoint opens the same way: only its header and table are read, the heap stays under its cap.
  const big = path.join(dir, 'big');
  fs.mkdirSync(big);
  const bigSizes = writeSafetensors(path.join(big, 'model.safetensors'), [
    { name: 'h.filler', dtype: 'BF16', shape: [2500000, 1000] },
    { name: 'transformer.wpe.weight', dtype: 'BF16', shape: [2048, 64], data: Buffer.alloc(2048 * 64 * 2, 0x3c) }]);
  assert.ok(bigSizes.fileBytes > 5e9);
  await pick(page, [path.join(big, 'model.safetensors')]);
  await page.waitForFunction(() => window.ropeviz.state().weights.learned_table.rows === 2048);
  const bigState = await state(page);
  assert.ok(bigState.weights.bytes_read <= 8 + bigSizes.headerBytes + 2048 * 64 * 2,
    `read ${bigState.weights.bytes_read}`);
  assert.ok(bigState.memory_bytes <= 512 * 1024 * 1024, `heap ${bigState.memory_bytes}`);
  const none = await page.evaluate(() => window.ropeviz.set({ weights: 'none' }));
  assert.equal(none.weights, null);
  const free = await page.evaluate(() => window.ropeviz.set({ model: 'none', max_position: 10 }));
  assert.equal(free.max_position, 10);
  page.assertClean();
  await page.closeAll();
});

test('an index and its shards; a missing shard, a bad dtype and a short file are refused by name, ' +
  'the state kept', async () => {
  const sharded = path.join(dir, 'sharded');
  fs.mkdirSync(sharded);
  const table = helixTable(64, 32);
  writeSafetensors(path.join(sharded, 'model-00001-of-00002.safetensors'), [
    { name: 'transformer.wte.weight', dtype: 'F32', shape: [10, 32] }]);
  writeSafetensors(path.join(sharded, 'model-00002-of-00002.safetensors'), [
    { name: 'transformer.wpe.weight', dtype: 'F32', shape: [64, 32], data: table }]);
  fs.writeFileSync(path.join(sharded, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: {
    'transformer.wte.weight': 'model-00001-of-00002.safetensors',
    'transformer.wpe.weight': 'model-00002-of-00002.safetensors' } }));
  const page = await open('#tab_bottom=learned_table');
  await pick(page, ['model.safetensors.index.json', 'model-00001-of-00002.safetensors',
    'model-00002-of-00002.safetensors'].map((f) => path.join(sharded, f)));
  await page.waitForFunction(() => window.ropeviz.state().weights !== null);
  let s = await state(page);
  assert.deepEqual([s.weights.learned_table.tensor, s.weights.learned_table.rows, s.max_position, s.d_model],
    ['transformer.wpe.weight', 64, 64, 32]);
  // The index without its second shard.
  const before = s.weights.source;
  await pick(page,
    ['model.safetensors.index.json', 'model-00001-of-00002.safetensors'].map((f) => path.join(sharded, f)));
  await page.waitForFunction(() => window.ropeviz.state().notes.some((n) => /was not given/.test(n)));
  s = await state(page);
  assert.ok(s.notes.some((n) => /model-00002-of-00002\.safetensors was not given/.test(n)), s.notes.join('\n'));
  assert.equal(s.weights.source, before);
  // An integer table is refused naming the tensor and its dtype.
  const bad = path.join(dir, 'bad');
  fs.mkdirSync(bad);
  writeSafetensors(path.join(bad, 'model.safetensors'), [{ name: 'wpe.weight', dtype: 'I64', shape: [4, 2] }]);
  await pick(page, [path.join(bad, 'model.safetensors')]);
  await page.waitForFunction(() => window.ropeviz.state().notes.some((n) => /I64/.test(n)));
  s = await state(page);
  assert.ok(s.notes.some((n) => /wpe\.weight/.test(n) && /I64/.test(n)), s.notes.join('\n'));
  assert.equal(s.max_position, 64);
  // A file shorter than 8 bytes.
  const short = path.join(dir, 'short');
  fs.mkdirSync(short);
  fs.writeFileSync(path.join(short, 'model.safetensors'), Buffer.from([1, 2, 3]));
  await pick(page, [path.join(short, 'model.safetensors')]);
  await page.waitForFunction(() => window.ropeviz.state().notes.some((n) => /shorter than the 8-byte/.test(n)));
  assert.equal((await state(page)).weights.learned_table.rows, 64);
  page.assertClean();
  await page.closeAll();
});

// The Hub, emulated on loopback: a resolve server (https://huggingface.co/<repo>/resolve/main/<file>) that answers
// 302 to a second port, the file host, which serves one byte range (206, Content-Range exposed) with the Hub's CORS
// headers. Repos: test/gpt2 (the 500 MB file), test/gated (401), test/norange (its file host ignores Range and answers
// 200 with the whole body), anything else 404. The page reaches it through window.ropevizTestHubOrigin (a loopback
// origin only, set by a script: no link can), and the context bypasses the page's policy, which allows only the real
// Hub's hosts (tests/web/security.test.mjs and serve_test.py check that policy).
async function hubEmulation() {
  const log = [];
  const closedPort = await new Promise((resolve) => {  // a port nothing listens on
    const probe = http.createServer().listen(0, '127.0.0.1', () => {
      const p = probe.address().port;
      probe.close(() => resolve(p));
    });
  });
  const cors = { 'access-control-allow-origin': '*',
    'access-control-expose-headers': 'Content-Range, Content-Length, ETag, X-Repo-Commit' };
  const small = path.join(dir, 'norange');
  fs.mkdirSync(small, { recursive: true });
  writeSafetensors(path.join(small, 'model.safetensors'), [
    { name: 'wte.weight', dtype: 'F32', shape: [4000, 32] },
    { name: 'wpe.weight', dtype: 'F32', shape: [64, 32], data: helixTable(64, 32) }]);
  const tokenized = new URL('../fixtures/tokenized_llama', import.meta.url).pathname;  // with its tokenizer.json
  const files = { 'test/gpt2': gpt2, 'test/norange': small, 'test/slow': gpt2, 'test/nocors': small,
    'test/llamatok': tokenized };
  const listen = (handler) => new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      log.push({ method: req.method, port: server.address().port, url: req.url, range: req.headers.range ?? null,
        credentials: Boolean(req.headers.cookie || req.headers.authorization) });
      if (req.method !== 'GET') { res.writeHead(405, cors); return res.end(); }
      handler(req, res);
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
  const host = await listen((req, res) => {
    const url = new URL(req.url, 'http://x');
    const [, owner, name, ...rest] = url.pathname.split('/');
    const file = path.join(files[`${owner}/${name}`] ?? '/nonexistent', ...rest);
    if (!fs.existsSync(file)) { res.writeHead(404, cors); return res.end(); }
    const size = fs.statSync(file).size;
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (name === 'nocors') {
      res.writeHead(200, { 'content-length': String(size) });
      return fs.createReadStream(file).pipe(res);
    }
    if (name === 'norange' || !range) {
      res.writeHead(200, { ...cors, 'content-length': String(size) });
      return fs.createReadStream(file).on('error', () => {}).pipe(res);
    }
    const a = Number(range[1]);
    const b = Math.min(Number(range[2]), size - 1);
    if (a >= size) { res.writeHead(416, { ...cors, 'content-range': `bytes */${size}` }); return res.end(); }
    res.writeHead(206, { ...cors, 'content-range': `bytes ${a}-${b}/${size}`, 'content-length': String(b - a + 1) });
    if (name !== 'slow' || b - a < 1e6) return fs.createReadStream(file, { start: a, end: b }).pipe(res);
    let at = a;  // the slow host: 32 KB every 50 ms, so Stop can be pressed mid-range
    const timer = setInterval(() => {
      if (res.destroyed || at > b) { clearInterval(timer); return res.end(); }
      const chunk = Buffer.alloc(Math.min(32768, b - at + 1));
      const fd = fs.openSync(file, 'r');
      fs.readSync(fd, chunk, 0, chunk.length, at);
      fs.closeSync(fd);
      at += chunk.length;
      res.write(chunk);
    }, 50);
    res.on('close', () => clearInterval(timer));
  });
  const resolver = await listen((req, res) => {
    const m = /^\/(test\/[a-z0-9]+)\/resolve\/main\/(.+)$/.exec(req.url.split('?')[0]);
    if (m && m[1] === 'test/gated') { res.writeHead(401, cors); return res.end('gated'); }
    if (m && m[1] === 'test/down') {  // the file host is not there: a network failure
      res.writeHead(302, { ...cors, location: `http://127.0.0.1:${closedPort}/${m[1]}/${m[2]}` });
      return res.end();
    }
    if (!m || !files[m[1]] || !fs.existsSync(path.join(files[m[1]], m[2]))) {
      res.writeHead(404, cors);
      return res.end('Entry not found');
    }
    res.writeHead(302,
      { ...cors, location: `http://127.0.0.1:${host.address().port}/${m[1]}/${m[2]}?X-Amz-Signature=x` });
    res.end();
  });
  return { log, origin: `http://127.0.0.1:${resolver.address().port}`, hostPort: host.address().port, closedPort,
    close: () => Promise.all([host, resolver].map((s) => new Promise((r) => {
      s.closeAllConnections?.();
      s.close(r);
    }))) };
}

test('the Hub by range requests: a redirect to ranges, a host that ignores Range, ' +
  'gated and missing repos', async () => {
  const hub = await hubEmulation();
  const loopback = (url) => url.startsWith(open.origin() + '/') || url.startsWith(hub.origin + '/') ||
    url.startsWith(`http://127.0.0.1:${hub.hostPort}/`) || url.startsWith(`http://127.0.0.1:${hub.closedPort}/`);
  const page = await open('#tab_bottom=learned_table', { allowed: loopback, bypassCSP: true,
    init: `window.ropevizTestHubOrigin = ${JSON.stringify(hub.origin)};`,
    expectedErrors: new RegExp('^Failed to load resource: (the server responded with a status of (401|404)|net::ERR_)' +
      '|blocked by CORS policy') });
  await frames(page, 2);
  assert.equal(hub.log.length, 0, 'no request leaves the page until the user asks');
  const s = await page.evaluate(() => window.ropeviz.fetchWeights('test/gpt2'));
  assert.deepEqual([s.weights.source, s.weights.learned_table.rows, s.max_position, s.d_model],
    ['test/gpt2 (Hub)', 1024, 1024, 768]);
  assert.equal(s.weights.file_bytes, gpt2Sizes.fileBytes);
  assert.ok(s.weights.bytes_read <= 8 + gpt2Sizes.headerBytes + wpeBytes, `read ${s.weights.bytes_read}`);
  assert.ok(hub.log.every((r) => r.method === 'GET' && !r.credentials), JSON.stringify(hub.log));
  assert.ok(hub.log.every((r) => /^bytes=\d+-\d+$/.test(r.range)), 'every request is one range');
  assert.ok(hub.log.some((r) => r.port === hub.hostPort), 'the redirect was followed');
  // A host that ignores Range: read as far as needed, then the request is dropped.
  const norange = await page.evaluate(() => window.ropeviz.fetchWeights('test/norange'));
  assert.equal(norange.weights.source, 'test/norange (Hub)');
  assert.equal(norange.weights.learned_table.rows, 64);
  assert.equal(norange.weights.tokenizer, null, 'a repo without tokenizer.json: none, and no error');
  // Gated and missing repos: clear messages, the state kept.
  const gated = await page.evaluate(
    () => window.ropeviz.fetchWeights('test/gated').then(() => 'loaded', (e) => e.message));
  assert.match(gated, /gated \(HTTP 401\).*drop the file/);
  const missing = await page.evaluate(
    () => window.ropeviz.fetchWeights('test/nothing').then(() => 'loaded', (e) => e.message));
  assert.match(missing, /HTTP 404/);
  const badId = await page.evaluate(() => window.ropeviz.fetchWeights('../etc').then(() => 'loaded', (e) => e.message));
  assert.match(badId, /is not a Hub repo id/);
  // A network failure and a host without the Hub's CORS headers: the page says it could not reach the file.
  for (const repo of ['test/down', 'test/nocors']) {
    const failed = await page.evaluate(
      (id) => window.ropeviz.fetchWeights(id).then(() => 'loaded', (e) => e.message), repo);
    assert.match(failed, /could not reach the Hub for .*a network or CORS failure; download the file and drop it/,
      repo);
  }
  // Stop in the middle of a range: the read ends, the state stays.
  const slow = page.evaluate(() => window.ropeviz.fetchWeights('test/slow').then(() => 'loaded', (e) => e.message));
  await page.waitForFunction(() => {
    const l = window.ropeviz.state().weights_load;
    return l.active && l.done > 200000;
  });
  const busy = await state(page);
  assert.ok(busy.weights_load.total > busy.weights_load.done, JSON.stringify(busy.weights_load));
  await frames(page, 2);
  const stop = await page.evaluate(() => window.ropeviz.rect('weights_stop'));
  assert.ok(stop, 'Stop is drawn while a read runs');
  await page.mouse.click(stop.x + stop.w / 2, stop.y + stop.h / 2);
  assert.match(await slow, /stopped/);
  const after = await state(page);
  assert.equal(after.weights_load.active, false);
  assert.equal(after.weights.source, 'test/norange (Hub)');
  assert.ok(after.notes.some((n) => /gated/.test(n)) && after.notes.some((n) => /404/.test(n)), after.notes.join('\n'));
  // A repo with a tokenizer.json: fetched beside config.json and the checkpoint, its ids checked against its vocab.
  const tok = await page.evaluate(() => window.ropeviz.fetchWeights('test/llamatok'));
  assert.deepEqual(tok.weights.tokenizer, { name: 'tokenizer.json', tokens: 1200, ids: 1200, fits: true });
  assert.ok(hub.log.some((r) => r.url.startsWith('/test/llamatok/resolve/main/tokenizer.json')), 'tokenizer fetched');
  const ids = await page.evaluate(() => window.ropeviz.tokenize({ text: 'The ship left at 10:45.' }));
  assert.deepEqual(ids.ids, cliTokenize('The ship left at 10:45.'));
  page.assertClean();
  await page.closeAll();
  await hub.close();
});

test('the Lab saves its trained decoders as checkpoints the page opens again; ' +
  '"open its table" loads the learned one', async () => {
  const page = await open('#tab_bottom=lab');
  await page.evaluate(
    () => window.ropeviz.lab({ task: 'copy', methods: ['learned', 'rope'], train_len: 3, steps: 200, seed: 2 }));
  await frames(page, 3);
  const files = await clickDownloads(page, 'lab_weights', 4);
  assert.deepEqual(files.map((d) => d.suggestedFilename()).sort(), ['ropeviz-lab-learned-config.json',
    'ropeviz-lab-learned-model.safetensors', 'ropeviz-lab-rope-config.json', 'ropeviz-lab-rope-model.safetensors']);
  // The download is the binary file, intact: its header names pos_emb and its data ends where the file does.
  const saved = path.join(dir, 'lab');
  fs.mkdirSync(saved, { recursive: true });
  for (const d of files) await d.saveAs(path.join(saved, d.suggestedFilename()));
  const bytes = fs.readFileSync(path.join(saved, 'ropeviz-lab-learned-model.safetensors'));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const end = Math.max(...Object.values(header).filter((t) => t.data_offsets).map((t) => t.data_offsets[1]));
  assert.equal(8 + n + end, bytes.length);
  assert.equal(header.pos_emb.dtype, 'F32');
  const [rows, dim] = header.pos_emb.shape;
  await pick(page, [path.join(saved, 'ropeviz-lab-learned-model.safetensors')]);
  await page.waitForFunction(() => window.ropeviz.state().weights !== null);
  let s = await state(page);
  assert.deepEqual([s.weights.learned_table.tensor, s.max_position, s.d_model], ['pos_emb', rows, dim]);
  await page.evaluate(() => window.ropeviz.set({ weights: 'none' }));
  const o = await page.evaluate(() => window.ropeviz.rect('lab_open_table'));
  await page.mouse.click(o.x + o.w / 2, o.y + o.h / 2);
  await page.waitForFunction(() => window.ropeviz.state().weights !== null);
  s = await state(page);
  assert.deepEqual([s.weights.source, s.weights.learned_table.tensor, s.max_position],
    ["the lab's learned decoder", 'pos_emb', rows]);
  page.assertClean();
  await page.closeAll();
});

test('the single file from file:// reads the Hub (emulated) the same way', async () => {
  const hub = await hubEmulation();
  const browser = await launch();
  const single = pathToFileURL(path.join(webDir, 'ropeviz.html')).href;
  const page = await openPage(browser, { bypassCSP: true, allowed: (u) => u === single || u.startsWith(`${single}#`) ||
    u.startsWith(hub.origin + '/') || u.startsWith(`http://127.0.0.1:${hub.hostPort}/`),
    expectedErrors: /^Failed to load resource: the server responded with a status of 404/ });  // no index: one file
  await page.addInitScript(`window.ropevizTestHubOrigin = ${JSON.stringify(hub.origin)};`);
  await page.goto(`${single}#tab_bottom=learned_table`);
  await ready(page);
  const s = await page.evaluate(() => window.ropeviz.fetchWeights('test/gpt2'));
  assert.deepEqual([s.weights.source, s.weights.learned_table.rows, s.max_position], ['test/gpt2 (Hub)', 1024, 1024]);
  assert.ok(s.weights.bytes_read <= 8 + gpt2Sizes.headerBytes + wpeBytes, `read ${s.weights.bytes_read}`);
  page.assertClean();
  await page.closeAll();
  await browser.close();
  await hub.close();
});
