// Browser benchmark of the lab (make bench-web): the default six-method experiment in headless Chromium, RUNS times
// (default 3), with wall time, time inside the run, tokens/s and the steps each method took; then the median, and
// the native CLI's tokens/s for the same 100-step rope run beside the page's. Not a test: numbers for the note.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, startServer, ready } from '../web/lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const runs = Number(process.env.RUNS || 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startServer();
const browser = await launch();
const page = await openPage(browser, { allowed: (url) => url.startsWith(server.origin + '/') });
await page.goto(`${server.origin}/#tab=lab`);
await ready(page);
const walls = [];
for (let i = 0; i < runs; ++i) {
  const t0 = Date.now();
  const doc = await page.evaluate(() => window.ropeviz.lab({}));
  walls.push((Date.now() - t0) / 1000);
  const steps = Object.entries(doc.methods).map(([k, m]) => `${k} ${m.steps_run}${m.reached_bar ? '' : ' (below the bar)'}`);
  console.log(`default run ${i + 1}: ${walls[i].toFixed(1)} s wall, ${doc.seconds.toFixed(1)} s in the run, ` +
    `${Math.round(doc.tokens_per_s)} tokens/s; steps: ${steps.join(', ')}`);
}
console.log(`median of ${runs}: ${median(walls).toFixed(1)} s wall`);
const rope = ['--methods', 'rope', '--steps', '100', '--check-every', '0'];
const pageRates = [], nativeRates = [];
for (let i = 0; i < runs; ++i) {
  const doc = await page.evaluate(() => window.ropeviz.lab({ methods: ['rope'], steps: 100, check_every: 0 }));
  pageRates.push(doc.tokens_per_s);
  const cli = JSON.parse(execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['lab', ...rope]).toString());
  nativeRates.push(cli.tokens_per_s);
}
const p = median(pageRates), n = median(nativeRates);
console.log(`rope, 100 steps: page ${Math.round(p)} tokens/s, native ${Math.round(n)} tokens/s (medians of ${runs}): ` +
  `page/native ${(p / n).toFixed(2)}`);
page.assertClean();
await browser.close();
await server.close();
