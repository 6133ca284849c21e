// Frame time at heavy settings, as the app measures it (state().frame_ms, CPU time of a frame),
// reported as a median; the bound only catches gross regressions, the figure goes in the log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launch, openPage, ready, frames, shot, median, artifactDir } from './lib.mjs';

let server, browser;
const report = path.join(artifactDir, 'performance.txt');
before(async () => {
  fs.writeFileSync(report, '');
  server = await startServer();
  browser = await launch();
});
after(async () => { await browser?.close(); await server?.close(); });

const sampleFrameTimes = (page, count) => page.evaluate((n) => new Promise((resolve) => {
  const samples = [];
  let last = window.ropeviz.frames();
  const tick = () => {
    const f = window.ropeviz.frames();
    if (f !== last) { last = f; samples.push(window.ropeviz.state().frame_ms); }
    if (samples.length >= n) resolve(samples); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}), count);

const heavy = { d_head: 256, max_position: 8192, offsets: 4096, position: 100000 };

// The presets that load the app most: the widest heads (gemma-2-9b, d_head 256) and the longest context
// (deepseek-v2-lite, 163,840 positions: a learned table drawn from sampled rows).
const models = [['gemma-2-9b', { model: 'gemma-2-9b', position: 100000 }],
  ['deepseek-v2-lite', { model: 'deepseek-v2-lite', position: 100000 }]];

for (const [name, settings] of [['default', {}], ['heavy', heavy], ...models]) {
  test(`frame time at ${name} settings`, async () => {
    const page = await openPage(browser, { allowed: (url) => url.startsWith(server.origin + '/') });
    await page.goto(`${server.origin}/`);
    await ready(page);
    const s = await page.evaluate((p) => window.ropeviz.set(p), settings);
    for (const [k, v] of Object.entries(settings)) assert.equal(s[k], v, k);
    await frames(page, 10);  // let the one-off recomputation and texture upload pass
    const samples = await sampleFrameTimes(page, 90);
    const ms = median(samples);
    const line = `web frame_ms median at ${name} settings (${JSON.stringify(settings)}): ${ms.toFixed(3)} ms over ${samples.length} frames`;
    console.log(line);
    fs.appendFileSync(report, line + '\n');
    assert.ok(samples.every(Number.isFinite));
    assert.ok(ms < 50, `median frame ${ms} ms: a gross regression (the goal is < 4 ms)`);
    await shot(page, `web-${name}`);
    page.assertClean();
    await page.closeAll();
  });
}
