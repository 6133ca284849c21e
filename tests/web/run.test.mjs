// Run it in the served page (docs/run-it.md): the llama-bytes demo button fetches the model beside the page, Run
// reads its whole file through the page's want/supply loop and runs a pass per frame; state().run carries the
// measured losses and the shift test, and the panel is drawn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, shot, click } from './lib.mjs';

const open = servedApp();

test('the llama-bytes demo runs in the page: loss past 512 rises, YaRN keeps it, the shift test is flat', async () => {
  const page = await open('#tab=run', { viewport: { width: 1400, height: 1000 } });
  await frames(page, 3);
  await click(page, 'run_demo_0');
  await page.waitForFunction(() => (window.ropeviz.state().weights || {}).source === 'llama-bytes (demo)',
    null, { timeout: 60000 });
  await click(page, 'run_button');
  await page.waitForFunction(() => { const r = window.ropeviz.state().run; return r && !r.running; }, null,
    { timeout: 240000 });
  const run = (await state(page)).run;
  assert.equal(run.error, '', JSON.stringify(run));
  assert.equal(run.curves[0].error, '', JSON.stringify(run));
  assert.equal(run.done, run.passes);
  assert.equal(run.trained, 512);
  const none = run.curves.find((c) => c.rope === 'none'), yarn = run.curves.find((c) => c.rope === 'yarn');
  assert.ok(none.past > 1.5 * none.in_range, `no scaling: ${none.in_range} in range, ${none.past} past 512`);
  assert.ok(yarn.past < none.past, `YaRN past 512: ${yarn.past}`);
  for (const sh of run.shifts) assert.ok(Math.abs(sh.loss - run.shifts[0].loss) < 1e-4, `shift ${sh.shift}`);
  assert.match(run.sentence, /^Measured on llama-bytes \(demo\) \(no scaling\)/);
  await frames(page, 2);
  await shot(page, 'run-llama-bytes');
});
