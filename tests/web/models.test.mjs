// Real models in the page: a link opens one (#model=...), set() chooses one, config.json files dropped on the
// page are read with clear notes for bad ones (the shared tests/fixtures/bad_configs.jsonl), screenshots of three.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedApp, frames, state, shot, a11yText, pickFiles } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const fixtures = path.join(root, 'tests/fixtures');
const open = servedApp();

// What the command-line engine derives for a preset (the model op, docs/cli.md): the
// page must show the same numbers.
const cliModel = (preset, seqLen) => JSON.parse(execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['eval'], {
  input: JSON.stringify({ op: 'model', preset, seq_len: seqLen }) + '\n',
}).toString());

// The page's float64 math runs on the wasm libm, the CLI's on the system's: pow may differ in the last bit.
const assertSameFloats = (actual, expected, what) => {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]) <= 4e-16 * Math.abs(expected[i]),
    `${what}[${i}]: ${a} vs ${expected[i]}`));
};

// Drops a file on the canvas as a user would (a DragEvent carrying a File), then waits for the note it raises.
const drop = async (page, name, text, bytes = 0) => {
  const count = await page.evaluate(({ name, text, bytes }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([bytes ? new Uint8Array(bytes) : text], name, { type: 'application/json' }));
    document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true,
      cancelable: true }));
    return dt.files.length;
  }, { name, text, bytes });
  assert.equal(count, 1);
  // the file is read asynchronously: wait for the note that names it (names are unique within a test)
  await page.waitForFunction((name) => window.ropeviz.state().notes.some((t) =>
    t === `loaded ${name}` || t.startsWith(`${name}: `)), name);
  return state(page);
};

test('#model=llama-3.1-8b: the scaled frequencies the CLI derives, its context, ' +
  'its name in the text layer', async () => {
  const page = await open('#model=llama-3.1-8b&position=100000');
  await frames(page, 3);
  const s = await state(page);
  assert.equal(s.model, 'llama-3.1-8b');
  assert.equal(s.max_position, 131072);
  assert.equal(s.d_head, 128);
  const cli = cliModel('llama-3.1-8b', 100001);
  assertSameFloats(s.rope.theta, cli.rope.inv_freq, 'state().rope.theta, the model\'s inv_freq after llama3 scaling');
  assert.ok(s.rope.theta[63] < 500000 ** (-126 / 128), 'the slowest pair is divided by the factor');
  assert.equal(s.absolute.ok, true);  // 100000 < 131072 rows
  const text = await a11yText(page, /Model: llama-3\.1-8b, from meta-llama\/Llama-3\.1-8B/);
  assert.match(text, /rope_type llama3/);
  assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /model=llama-3\.1-8b/);
  page.assertClean();
  await page.closeAll();
});

test('set({model}) chooses a preset; the fields it decides stay its own; model: "none" frees them', async () => {
  const page = await open('');
  let s = await page.evaluate(() => window.ropeviz.set({ model: 'qwen2-7b' }));
  assert.equal(s.model, 'qwen2-7b');
  assertSameFloats(s.rope.theta, cliModel('qwen2-7b', s.position + 1).rope.inv_freq, 'qwen2-7b theta');
  s = await page.evaluate(() => window.ropeviz.set({ d_head: 8 }));
  assert.equal(s.d_head, 128);
  assert.ok(s.notes.some((n) => n.includes('d_head is 128 in the model qwen2-7b')), s.notes.join(' | '));
  s = await page.evaluate(() => window.ropeviz.set({ model: 'none', d_head: 8 }));
  assert.equal(s.model, null);
  assert.equal(s.d_head, 8);
  s = await page.evaluate(() => window.ropeviz.set({ model: 'gpt-5' }));
  assert.equal(s.model, null);
  assert.ok(s.notes.some((n) => n.startsWith("model='gpt-5' is not none, config or one of")));
  page.assertClean();
  await page.closeAll();
});

test('dropped config.json files: a good one becomes the model; ' +
  '32 bad ones and a 50 MB one leave it as it was', async () => {
  const page = await open('#model=llama-3.1-8b&position=4242');
  const good = fs.readFileSync(path.join(fixtures, 'configs/phi-3.5-mini.json'), 'utf8');
  let s = await drop(page, 'phi-3.5-mini.json', good);
  assert.equal(s.model, null, 'a dropped file is not a preset');
  assert.equal(s.model_label, 'phi-3.5-mini.json');
  assertSameFloats(s.rope.theta, cliModel('phi-3.5-mini', s.position + 1).rope.inv_freq, 'phi-3.5-mini theta');
  assert.ok(s.notes.includes('loaded phi-3.5-mini.json'));
  await frames(page, 2);
  await shot(page, 'model-dropped-phi-3.5-mini');

  const kept = await state(page);
  const cases = fs.readFileSync(path.join(fixtures, 'bad_configs.jsonl'), 'utf8').trim().split('\n').map(JSON.parse);
  assert.ok(cases.length >= 25);
  for (const [i, { text, field }] of cases.entries()) {
    // the first few as real drops, the rest through the same path by script (loadConfig)
    s = i < 4 ? await drop(page, `bad-${i}.json`, text)
              : await page.evaluate(({ text, i }) => window.ropeviz.loadConfig(text, `bad-${i}.json`), { text, i });
    const note = s.notes[s.notes.length - 1];
    assert.ok(note.startsWith(`bad-${i}.json: `) && note.includes(field) && note.endsWith('kept the current model'),
      `case ${i} (${field}): ${note}`);
    assert.equal(s.hash, kept.hash, `case ${i} changed the view`);
    assert.equal(s.model_label, 'phi-3.5-mini.json');
  }
  const memory = s.memory_bytes;
  s = await drop(page, 'huge.json', '', 50 << 20);
  assert.equal(s.notes[s.notes.length - 1],
    'huge.json: 52,428,800 bytes is over the 1,048,576-byte limit for a config.json; kept the current model');
  assert.equal(s.hash, kept.hash);
  assert.ok(s.memory_bytes - memory < 32 << 20, `the wasm heap grew by ${s.memory_bytes - memory} bytes`);
  page.assertClean();
  await page.closeAll();
});

test('three presets on screen: a learned table past its end, partial rotary, a long context\'s budget', async () => {
  for (const [name, hash] of [['gpt2', '#model=gpt2&position=1500'],
    ['phi-2', '#model=phi-2&position=300&tab_top=rotations&tab_bottom=models'],
    ['llama-3.1-8b', '#model=llama-3.1-8b&position=20000&tab_top=context_budget&tab_bottom=score_curve']]) {
    const page = await open(hash);
    await frames(page, 4);
    const s = await state(page);
    assert.equal(s.model, name);
    if (name === 'gpt2')
      assert.equal(s.absolute.error, 'IndexError: index 1500 is out of bounds for dimension 0 with size 1024');
    if (name === 'phi-2') assert.equal(s.rope.rotary_pairs, 16);
    await shot(page, `model-${name}`);
    page.assertClean();
    await page.closeAll();
  }
});

test('"load config.json" opens a file picker; pasted config text loads too', async () => {
  const page = await open('');
  await pickFiles(page, 'load_config', path.join(fixtures, 'configs/gemma-2-9b.json'));
  await page.waitForFunction(() => window.ropeviz.state().model_label === 'gemma-2-9b.json');
  let s = await state(page);
  assert.equal(s.d_head, 256);
  assertSameFloats(s.rope.theta, cliModel('gemma-2-9b', s.position + 1).rope.inv_freq, 'gemma-2-9b theta');

  const text = fs.readFileSync(path.join(fixtures, 'configs/gpt-j-6b.json'), 'utf8');
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.setData('text/plain', text);
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, text);
  s = await state(page);
  assert.equal(s.model_label, 'pasted config.json');
  assert.equal(s.pairing, 'interleaved', 'GPT-J rotates every two');
  assert.equal(s.rope.rotary_pairs, 32, 'rotary_dim 64 of 256');
  page.assertClean();
  await page.closeAll();
});
