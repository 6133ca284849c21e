// Browser benchmark of the lab (make bench-web): the default experiment (six methods x three seeds) in headless
// Chromium with 1 and 2 Web Workers (and 4 where the machine has the cores), RUNS times each (default 3), with wall
// time, time inside the runs, tokens/s and the steps each method took; the medians and the speed-up over one worker;
// the native CLI's wall time for the same experiment with --jobs 1 and 2; and the CLI's tokens/s for the same
// 100-step rope run beside the page's. Not a test: numbers for docs/lab.md.
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, startServer, ready } from '../web/lib.mjs';
import { ownChildren, treeCpuSeconds } from '../web/measure.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/ropeviz-cli');
const runs = Number(process.env.RUNS || 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startServer();
const before = ownChildren();
const browser = await launch();
const browserPid = [...ownChildren()].find((pid) => !before.has(pid));  // its CPU: how much of the machine it got
const page = await openPage(browser, { allowed: (url) => url.startsWith(server.origin + '/') });
await page.goto(`${server.origin}/#tab=lab`);
await ready(page);
const cores = await page.evaluate(() => navigator.hardwareConcurrency);
console.log(`${cores} cores as the page sees them (${os.cpus().length} as node does), load average ` +
  `${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const wallOf = {};
for (const workers of [1, 2, 4].filter((w) => w <= Math.max(2, cores))) {
  const walls = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = Date.now(), cpu0 = treeCpuSeconds(browserPid);
    const doc = await page.evaluate((n) => window.ropeviz.lab({ workers: n }), workers);
    walls.push((Date.now() - t0) / 1000);
    const cpu = treeCpuSeconds(browserPid) - cpu0;
    const steps = Object.entries(doc.methods).map(([k, m]) =>
      `${k} ${m.runs.map((r) => r.steps).join('/')}${m.reached_bar ? '' : ' (below the bar)'}`);
    console.log(`default run, ${workers} worker${workers > 1 ? 's' : ''}, ${i + 1}: ${walls[i].toFixed(1)} s wall, ` +
      `${cpu.toFixed(1)} s CPU of the browser (${(cpu / walls[i]).toFixed(2)} cores), load average ` +
      `${os.loadavg()[0].toFixed(1)}, ${Math.round(doc.tokens_per_s)} tokens/s per worker; ` +
      `steps per seed: ${steps.join(', ')}`);
  }
  wallOf[workers] = median(walls);
  console.log(`median of ${runs}, ${workers} worker${workers > 1 ? 's' : ''}: ${wallOf[workers].toFixed(1)} s wall` +
    (workers > 1 ? `, ${(wallOf[1] / wallOf[workers]).toFixed(2)}x one worker's` : ''));
}
const native = {};
for (const jobs of [1, 2]) {
  const walls = [], cpus = [];
  for (let i = 0; i < runs; ++i) {  // GNU time: wall, user and system seconds
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', cli, 'lab', '--jobs', String(jobs)], { encoding: 'utf8' });
    const [wall, user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
    walls.push(wall);
    cpus.push(user + sys);
  }
  native[jobs] = median(walls);
  console.log(`ropeviz-cli lab --jobs ${jobs} (the default experiment): ${native[jobs].toFixed(1)} s wall, ` +
    `${median(cpus).toFixed(1)} s CPU, median of ${runs}, load average ${os.loadavg()[0].toFixed(1)}` +
    (jobs > 1 ? `; ${(native[1] / native[jobs]).toFixed(2)}x --jobs 1` : ''));
}
const rope = ['--methods', 'rope', '--steps', '100', '--check-every', '0', '--seeds', '1'];
const pageRates = [], nativeRates = [];
for (let i = 0; i < runs; ++i) {
  const doc = await page.evaluate(
    () => window.ropeviz.lab({ methods: ['rope'], steps: 100, check_every: 0, seeds: 1 }));
  pageRates.push(doc.tokens_per_s);
  nativeRates.push(JSON.parse(execFileSync(cli, ['lab', ...rope]).toString()).tokens_per_s);
}
const p = median(pageRates), n = median(nativeRates);
console.log(`rope, 100 steps: page ${Math.round(p)} tokens/s, native ${Math.round(n)} tokens/s (medians of ${runs}): ` +
  `page/native ${(p / n).toFixed(2)}`);
page.assertClean();
await browser.close();
await server.close();
