// Run it's passkey bench in the served page (docs/run-it.md, docs/passkey.md): ticked alone on the llama-bytes demo,
// its cells run in the page's Web Workers and come back as the grids of `ropeviz-cli eval`'s passkey op, to the bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedApp, frames, state, shot, click } from './lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const open = servedApp();
const cli = (request) => JSON.parse(execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['eval'],
  { input: JSON.stringify(request) + '\n' }).toString());

// A slider's value typed in: Ctrl+click turns an ImGui slider into a text field.
async function typeSlider(page, id, value) {
  const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await page.keyboard.down('Control');
  await frames(page, 2);
  await page.mouse.down();
  await frames(page, 2);
  await page.mouse.up();
  await page.keyboard.up('Control');
  await frames(page, 2);
  await page.keyboard.press('Control+A');
  await frames(page, 2);
  await page.keyboard.type(String(value));
  await frames(page, 2);
  await page.keyboard.down('Enter');
  await frames(page, 2);
  await page.keyboard.up('Enter');
  await frames(page, 2);
}

test('the passkey bench in the page: no scaling and YaRN x4, the CLI\'s grids, drawn side by side', async () => {
  const page = await open('#tab=run', { viewport: { width: 1400, height: 1000 } });
  await frames(page, 3);
  await click(page, 'run_demo_0');
  await page.waitForFunction(() => (window.ropeviz.state().weights || {}).source === 'llama-bytes (demo)',
    null, { timeout: 60000 });
  await frames(page, 2);
  // the bench alone, under no scaling (rope 0) and YaRN (rope 4): untick the loss curves, the shift test, dynamic NTK
  // and Llama 3 (its config is the unscaled rope: one grid, not two)
  for (const id of ['run_bench', 'run_loss', 'run_shift', 'run_rope_3', 'run_rope_5']) await click(page, id);
  // a grid of 2 lengths x 2 depths, a key a cell: the page's workers and the CLI agree cell by cell all the same
  await typeSlider(page, 'run_bench_lengths', 2);
  await typeSlider(page, 'run_bench_depths', 2);
  await typeSlider(page, 'run_bench_keys', 1);
  await click(page, 'run_button');
  await page.waitForFunction(() => { const r = window.ropeviz.state().run; return r && !r.running; }, null,
    { timeout: 300000 });
  const run = (await state(page)).run;
  assert.equal(run.error, '', JSON.stringify(run));
  assert.equal(run.curves.length, 0);
  const bench = run.bench;
  assert.deepEqual(bench.lengths, [512, 1024]);
  assert.deepEqual(bench.depths, [0, 1]);
  assert.deepEqual(bench.grids.map((g) => g.rope), ['none', 'yarn']);
  const file = path.join(root, 'web/models/llama-bytes/model.safetensors');
  const ask = { op: 'passkey', file, lengths: bench.lengths, depths: bench.depths, trials: 1, seed: 0 };
  const scalings = { none: 'none', yarn: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 512 } };
  for (const g of bench.grids) {
    const want = cli({ ...ask, rope_scaling: scalings[g.rope] });
    assert.deepEqual(g.accuracy, want.accuracy, g.rope);
    assert.deepEqual(g.key_logprob, want.key_logprob, g.rope);
    assert.deepEqual(g.errors, []);
  }
  assert.match(run.bench_sentence, /^Passkey, measured on llama-bytes \(demo\) \(1 key a cell/);
  await frames(page, 2);
  await shot(page, 'run-passkey-bench');
});
