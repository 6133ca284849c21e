// window.ropeviz.forward and passkey (docs/window-ropeviz.md): the loaded checkpoint (a demo model read beside the
// served page, or File objects) answers the CLI's forward and passkey requests in a Web Worker with the same
// documents as `ropeviz-cli eval`; a bad request is refused with the CLI's message, and no checkpoint, by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedApp, frames, click } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const open = servedApp();

// `ropeviz-cli eval` on one request line: its document.
const cli = (request) => {
  let out;
  try {
    out = execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['eval'],
      { input: JSON.stringify(request) + '\n' });
  } catch (e) {
    out = e.stdout;  // an error document exits 1
  }
  return JSON.parse(out.toString());
};
const text = 'The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. '.repeat(4);

test('forward and passkey on the llama-bytes demo: the CLI\'s documents, computed in a worker', async () => {
  const page = await open('#tab=run', { viewport: { width: 1400, height: 1000 } });
  await frames(page, 2);
  const none = await page.evaluate(() => window.ropeviz.forward({ tokens: [1, 2, 3] }).then(() => 'resolved',
    (e) => e.message));
  assert.match(none, /^forward runs the loaded checkpoint: load one first/);
  await click(page, 'run_demo_0');
  await page.waitForFunction(() => (window.ropeviz.state().weights || {}).source === 'llama-bytes (demo)',
    null, { timeout: 60000 });
  const file = path.join(root, 'web/models/llama-bytes/model.safetensors');
  const ask = { text, outputs: ['nll', 'sink', 'attention_by_distance'], rope_scaling: { rope_type: 'yarn', factor: 4,
    original_max_position_embeddings: 512 } };
  let t0 = Date.now();
  const got = await page.evaluate((r) => window.ropeviz.forward(r), ask);
  console.log(`forward of ${text.length} tokens in the worker: ${Date.now() - t0} ms (the file read, the worker ` +
    'started)');
  const want = cli({ op: 'forward', file, ...ask });
  assert.deepEqual(Object.keys(got), Object.keys(want));
  assert.equal(got.nll.length, text.length - 1);
  // The same numbers to the last bit: the same code, the same float32 arithmetic in the wasm as in the CLI.
  assert.deepEqual(got.nll, want.nll);
  assert.deepEqual(got.sink, want.sink);
  assert.deepEqual(got.attention_by_distance, want.attention_by_distance);
  // A second request reuses the worker and takes positions and the rope dropped.
  const shifted = { tokens: [...Buffer.from(text.slice(0, 64))], positions: [...Array(64).keys()].map((t) => t + 700),
    rope: 'drop' };
  const again = await page.evaluate((r) => window.ropeviz.forward(r), shifted);
  assert.deepEqual(again.nll, cli({ op: 'forward', file, ...shifted }).nll);
  // The passkey bench: the same grid.
  const grid = { lengths: [300, 400], depths: [0, 1], trials: 1, seed: 3 };
  t0 = Date.now();
  const pk = await page.evaluate((r) => window.ropeviz.passkey(r), grid);
  console.log(`passkey 2 x 2 in the worker: ${Date.now() - t0} ms`);
  const pkWant = cli({ op: 'passkey', file, ...grid });
  assert.deepEqual(pk.lengths, pkWant.lengths);
  assert.deepEqual(pk.accuracy, pkWant.accuracy);
  assert.deepEqual(pk.key_logprob, pkWant.key_logprob);
  // Refusals carry the CLI's message and type.
  const bad = await page.evaluate(() => window.ropeviz.forward({ tokens: [1, 2], outputs: ['everything'] })
    .then(() => null, (e) => [e.type, e.message]));
  const badWant = cli({ op: 'forward', file, tokens: [1, 2], outputs: ['everything'] }).error;
  assert.deepEqual(bad, [badWant.type, badWant.message]);
  // (no assertClean: the demo's optional model.safetensors.index.json is a 404 in the console, as a Hub repo's is)
});

test('forward on File objects: gpt2-bytes past its 1,024 rows is PyTorch\'s IndexError, as the CLI says', async () => {
  const page = await open('#');
  await frames(page, 2);
  const loaded = await page.evaluate(async () => {
    const get = (name) => fetch('models/gpt2-bytes/' + name).then((r) => r.blob());
    const files = [new File([await get('model.safetensors')], 'model.safetensors'),
      new File([await get('config.json')], 'config.json')];
    return (await window.ropeviz.loadWeights(files)).weights.source;
  });
  assert.equal(loaded, 'model.safetensors');
  const past = await page.evaluate(() => window.ropeviz.forward({ tokens: [65, 66], positions: [1023, 1024] })
    .then(() => null, (e) => e.message));
  const file = path.join(root, 'web/models/gpt2-bytes/model.safetensors');
  assert.equal(past, cli({ op: 'forward', file, tokens: [65, 66], positions: [1023, 1024] }).error.message);
  assert.match(past, /index 1024 is out of bounds for dimension 0 with size 1024/);
  const inside = await page.evaluate(() => window.ropeviz.forward({ text: 'apt-get install',
    outputs: ['nll', 'logits'] }));
  const want = cli({ op: 'forward', file, text: 'apt-get install', outputs: ['nll', 'logits'] });
  assert.deepEqual(inside.logits, want.logits);
  assert.deepEqual(inside.nll, want.nll);
  page.assertClean();
});
