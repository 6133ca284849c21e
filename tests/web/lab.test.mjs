// The lab in the page: window.ropeviz.lab(options) trains in Web Workers and resolves to the document
// `ropeviz-cli lab` prints for the same options (to the last bit), refuses bad options with the CLI's message,
// a link restores the panel's settings, and Run / Stop work with the mouse. Screenshots of a finished run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedApp, frames, state, shot } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const open = servedApp();

const cliLab = (flags) => JSON.parse(execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['lab', ...flags])
  .toString());

const click = async (page, id) => {
  const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
  assert.ok(r, `control ${id} is drawn`);
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
};

test('lab(options) resolves to the CLI document for the same options, and keeps the page drawing', async () => {
  const page = await open('#tab=lab');
  const options = { task: 'copy', methods: ['learned', 'rope', 'alibi'], train_len: 3, steps: 40, seed: 7 };
  const startFrames = await page.evaluate(() => window.ropeviz.frames());
  const doc = await page.evaluate((o) => window.ropeviz.lab(o), options);
  const drawn = (await page.evaluate(() => window.ropeviz.frames())) - startFrames;
  const cli = cliLab(['--task', 'copy', '--methods', 'learned,rope,alibi', '--train-len', '3', '--steps', '40',
    '--seed', '7']);
  for (const key of ['task', 'train_len', 'eval_lengths', 'steps', 'seed', 'd_model', 'heads', 'layers', 'batch'])
    assert.deepEqual(doc[key], cli[key], key);
  assert.deepEqual(Object.keys(doc.methods), ['learned', 'rope', 'alibi']);
  for (const [name, m] of Object.entries(cli.methods)) {
    const w = doc.methods[name];
    assert.equal(w.accuracy.length, 12, `${name}: one accuracy per eval length 1..4L`);
    assert.deepEqual(w, m, `${name}: the CLI's numbers to the last bit (nulls past the table, its error)`);
  }
  assert.match(doc.methods.learned.error, /^IndexError: index 6 is out of bounds for dimension 0 with size 6$/);
  assert.ok(doc.seconds > 0 && doc.tokens_per_s > 0);
  assert.ok(drawn > 3, `the page kept drawing while training (${drawn} frames)`);
  const s = await state(page);
  assert.equal(s.lab.running, false);
  assert.deepEqual(s.lab.result.methods.rope.accuracy, doc.methods.rope.accuracy);  // the state export holds it
  await frames(page, 3);
  await shot(page, 'lab-finished');
  await click(page, 'lab_attention');
  await frames(page, 3);
  await shot(page, 'lab-attention');
  await click(page, 'lab_kv');
  await frames(page, 3);
  await shot(page, 'lab-kv-cache');
  page.assertClean();
  await page.closeAll();
});

test('a longer learned table: sizes that read never-trained rows run, ' +
  'and those rows moved by weight decay alone', async () => {
  const page = await open('#tab=lab');
  const doc = await page.evaluate(() => window.ropeviz.lab(
    { methods: ['learned'], train_len: 3, table_len: 12, steps: 40, seed: 7 }));
  const cli = cliLab(['--methods', 'learned', '--train-len', '3', '--table-len', '12', '--steps', '40', '--seed', '7']);
  assert.equal(doc.max_position, 12);
  assert.equal(doc.trained_positions, 6);
  const w = doc.methods.learned, m = cli.methods.learned;
  assert.deepEqual(w.accuracy.map((a) => a === null), [...Array(12).keys()].map((i) => i + 1 > 6),
    'numbers up to size 6 (12 positions), null past the table');
  assert.deepEqual(w, m, 'the CLI\'s numbers to the last bit');
  assert.equal(w.error, 'IndexError: index 12 is out of bounds for dimension 0 with size 12');
  assert.equal(w.table_row_change.length, 12);
  assert.ok(Math.max(...w.table_row_change.slice(6)) < 0.1 * Math.min(...w.table_row_change.slice(0, 6)),
    `never-trained rows barely moved: ${w.table_row_change.map((c) => c.toFixed(4))}`);
  await frames(page, 3);
  await shot(page, 'lab-untrained-rows');
  await click(page, 'lab_table');
  await frames(page, 3);
  await shot(page, 'lab-learned-rows');
  page.assertClean();
  await page.closeAll();
});

test('lab() refuses bad options with the CLI parser message and starts nothing', async () => {
  const page = await open('#tab=lab');
  const refused = (o) => page.evaluate((x) => window.ropeviz.lab(x).then(() => 'resolved', (e) => e.message), o);
  assert.match(await refused({ train_len: 0 }), /--train-len must be in \[1, 64\], got 0/);
  assert.match(await refused({ methods: ['rope', 'sorcery'] }), /unknown method "sorcery"/);
  assert.match(await refused({ colour: 'red' }), /unknown flag "--colour"/);
  assert.match(await refused({ steps: { n: 3 } }), /lab option "steps" needs/);
  assert.match(await refused({ steps: NaN }), /lab option "steps" needs/);
  assert.match(await refused('copy'), /must be an object/);
  const s = await state(page);
  assert.equal(s.lab.serial, 0);
  assert.equal(s.lab.running, false);
  page.assertClean();
  await page.closeAll();
});

test('a link restores the lab settings; Run and Stop with the mouse keep partial curves', async () => {
  const page = await open('#tab=lab&task=reverse&train_len=5&steps=1000&methods=rope,t5&lab_seed=3');
  let s = await state(page);
  assert.equal(s.panel_bottom, 'lab');
  assert.match(s.hash, /task=reverse&methods=rope,t5&train_len=5&table_len=0&steps=1000&lab_seed=3/);
  await frames(page, 2);
  await click(page, 'lab_run');
  await page.waitForFunction(() => window.ropeviz.state().lab.progress > 0.01);
  s = await state(page);
  assert.equal(s.lab.running, true);
  await click(page, 'lab_stop');
  await page.waitForFunction(() => !window.ropeviz.state().lab.running);
  s = await state(page);
  assert.equal(s.lab.stopped, true);
  const rope = s.lab.result.methods.rope;
  assert.ok(rope.train_loss.length > 0 && rope.train_loss.length < 1000, `${rope.train_loss.length} steps kept`);
  assert.ok(rope.train_loss.every(Number.isFinite));
  await frames(page, 2);
  await shot(page, 'lab-stopped');
  // PyTorch: the script and its data file, byte for byte what `ropeviz-cli lab-export` writes for the run's flags
  const files = [];
  page.on('download', (d) => files.push(d));
  await click(page, 'lab_torch');
  for (let i = 0; i < 50 && files.length < 2; ++i) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(files.map((d) => d.suggestedFilename()).sort(), ['ropeviz_lab.py', 'ropeviz_lab_data.json']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rv-lab-export-'));
  execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['lab-export', dir, '--task', 'reverse', '--methods',
    'rope,t5', '--train-len', '5', '--steps', '1000', '--seed', '3']);
  for (const d of files) {
    const got = fs.readFileSync(await d.path(), 'utf8');
    assert.equal(got, fs.readFileSync(path.join(dir, d.suggestedFilename()), 'utf8'), d.suggestedFilename());
  }
  fs.rmSync(dir, { recursive: true });
  page.assertClean();
  await page.closeAll();
});
