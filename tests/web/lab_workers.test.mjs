// The lab's runs in Web Workers: lab({..., workers: N}) gives the same document for 1 and 2 workers, served and from
// the single file (exactly: the same wasm trains each run alone), and the CLI's to the last bit; the
// first seeds' models come back bit for bit (the saved weights); Stop during a worker run keeps what trained and
// ends the workers; a bad `workers` is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { clickDownloads, openPage, ready, servedApp, state, frames, webDir } from './lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const open = servedApp();
const served = (hash = '#tab=lab') => open(hash);
const single = async (hash = '#tab=lab') => {
  const url = pathToFileURL(path.join(webDir, 'ropeviz.html')).href;
  const page = await openPage(open.browser(), { allowed: (u) => u === url || u.startsWith(`${url}#`) });
  await page.goto(`${url}${hash}`);
  await ready(page);
  return page;
};

const options = { task: 'reverse', methods: ['learned', 'rope', 'none'], train_len: 3, steps: 30, seed: 5, seeds: 2 };
const flags = ['--task', 'reverse', '--methods', 'learned,rope,none', '--train-len', '3', '--steps', '30', '--seed',
  '5', '--seeds', '2'];
const timeless = (doc) => { const { seconds, tokens_per_s: rate, ...rest } = doc; return rest; };
let servedDoc = null;  // the first test's document, which the single file must give exactly
const lab = (page, o) => page.evaluate((x) => window.ropeviz.lab(x), o);
const refused = (page, o) => page.evaluate((x) => window.ropeviz.lab(x).then(() => 'resolved', (e) => e.message), o);

// The saved weights of the finished run (the panel's "save weights"): {file name: bytes}.
async function savedWeights(page) {
  const out = {};
  for (const d of await clickDownloads(page, 'lab_weights', 6))
    out[d.suggestedFilename()] = fs.readFileSync(await d.path());
  return out;
}

test('served: 1 and 2 workers give the same document and models, and the CLI\'s', async () => {
  const page = await served();
  const one = await lab(page, { ...options, workers: 1 });
  await frames(page, 3);
  const oneWeights = await savedWeights(page);
  const two = await lab(page, { ...options, workers: 2 });
  await frames(page, 3);
  const twoWeights = await savedWeights(page);
  assert.deepEqual(timeless(two), timeless(one), 'the number of workers changes nothing');
  assert.deepEqual(Object.keys(oneWeights).sort(), ['learned', 'none', 'rope'].flatMap((m) =>
    [`ropeviz-lab-${m}-config.json`, `ropeviz-lab-${m}-model.safetensors`]).sort());
  for (const [name, bytes] of Object.entries(oneWeights)) assert.ok(bytes.equals(twoWeights[name]), name);
  assert.ok(two.seconds > 0 && two.tokens_per_s > 0);
  const s = await state(page);
  assert.equal(s.lab.running, false);
  assert.deepEqual(timeless(s.lab.result), timeless(two));
  // the CLI's document, exactly (one document on every build: tests/web/lab_identical.test.mjs has every method)
  const cli = JSON.parse(execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['lab', ...flags]).toString());
  assert.deepEqual(timeless(two), timeless(cli), 'the page with 2 workers gives the CLI\'s document');
  // the models came back for the views inside them
  const r = await page.evaluate(() => window.ropeviz.rect('lab_attention'));
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  await frames(page, 3);
  page.assertClean();
  await page.closeAll();
  servedDoc = timeless(two);
});

test('the single file: workers from its own code give the served page\'s document exactly', async () => {
  if (!servedDoc) {  // run alone: the served page's document first
    const page = await served();
    servedDoc = timeless(await lab(page, { ...options, workers: 2 }));
    await page.closeAll();
  }
  const page = await single();
  const doc = await lab(page, { ...options, workers: 2 });
  assert.deepEqual(timeless(doc), servedDoc);
  assert.deepEqual(timeless(await lab(page, { ...options, workers: 1 })), servedDoc);
  page.assertClean();
  await page.closeAll();
});

test('Stop during a worker run keeps the finished runs and the others so far, and ends the workers', async () => {
  const page = await served('#tab=lab&task=reverse&train_len=5&steps=1000&methods=rope,t5&lab_seed=3');
  const run = page.evaluate(() => window.ropeviz.lab({ task: 'reverse', methods: ['rope', 't5'], train_len: 5,
    steps: 1000, seed: 3, check_every: 0, workers: 2 }).then(() => 'resolved', (e) => e.message));
  await page.waitForFunction(
    () => window.ropeviz.state().lab.result === null && window.ropeviz.state().lab.progress > 0.03);
  const r = await page.evaluate(() => window.ropeviz.rect('lab_stop'));
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  assert.match(await run, /stopped before it finished/);
  const s = await state(page);
  assert.equal(s.lab.stopped, true);
  const rope = s.lab.result.methods.rope;
  assert.ok(rope.runs.length >= 1 && rope.train_loss.length > 0 && rope.train_loss.length < 1000,
    `rope's losses so far are kept (${rope.train_loss.length})`);
  await new Promise((res) => setTimeout(res, 1500));
  const later = await state(page);
  assert.deepEqual(later.lab.result, s.lab.result, 'nothing arrives after Stop: the workers are gone');
  page.assertClean();
  await page.closeAll();
});

test('a bad workers value is refused with a clear message and starts nothing', async () => {
  const page = await served();
  for (const bad of [0, 17, 1.5, '2', null, [2], -1]) {
    assert.match(await refused(page, { methods: ['rope'], steps: 2, workers: bad }),
      /lab option "workers" must be a whole number from 1 to 16 \(the Web Workers that train the runs\)/, String(bad));
  }
  assert.equal((await state(page)).lab.serial, 0);
  assert.match(await refused(page, { methods: ['rope'], workers: 2, train_len: 0 }), /--train-len must be in/);
  page.assertClean();
  await page.closeAll();
});
