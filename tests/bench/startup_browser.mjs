// Browser benchmark of start-up (make bench-web): the served page's and the single file's start-up timelines, the
// served page's idle CPU and input latency, a blank page's first WebGL2 context and the reference page
// (tests/web/reference_page.html, the floor under ready), each the median of STARTUP_RUNS fresh browsers (default 5),
// with tests/web/measure.mjs's protocols, into build/bench-web/startup.txt. make test runs one fresh browser of the
// same functions as a smoke (tests/web/performance.test.mjs); the medians are this script's.
//
// Start-up is measured three ways, each in fresh browsers. The goal's figure: in a browser that has shown a page
// before, the URL opened in a window that has finished its own start-up (as a user types it into an open window).
// Then the URL opened with a new window at once (a link opened in a new window: the visit shares the 2 cores with
// the window's start-up), and as the very first page of a just-started browser, whose own first frames come on top.
// The reference page is measured the first two ways.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, median, webDir } from '../web/lib.mjs';
import { freshRun, blankContextMs, referenceRun, timelineLine, loadLine, idleLine, latencyLine, assertTimelines }
  from '../web/measure.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const runs = Number(process.env.STARTUP_RUNS || 5);
const idleSeconds = 5;
const outDir = path.join(root, 'build/bench-web');
const report = path.join(outDir, 'startup.txt');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(report, '');
const ms = (x) => `${Math.round(x)}`;
function record(line) {
  console.log(line);
  fs.appendFileSync(report, line + '\n');
}
const repeat = async (f) => {
  const out = [];
  for (let i = 0; i < runs; i++) out.push(await f());
  return out;
};

const server = await startServer();
try {
  const served = `${server.origin}/`;
  const allowed = (url) => url.startsWith(server.origin + '/');
  const results = await repeat(() => freshRun(served, { allowed, idleSeconds, inputs: 6 }));
  const racing = (await repeat(() => freshRun(served, { allowed, settle: false }))).map((r) => r.timeline);
  const cold = (await repeat(() => freshRun(served, { allowed, warm: false, settle: false }))).map((r) => r.timeline);
  const timelines = results.map((r) => r.timeline);
  const settling = results.map((r) => r.settling);
  const cpu = results.map((r) => r.idleCpu);
  const latencies = results.flatMap((r) => r.latencies);
  const blank = await repeat(() => blankContextMs());
  const reference = [], referenceRacing = [];
  for (let i = 0; i < runs; i++) {
    reference.push(await referenceRun(`${server.origin}/__reference`));
    referenceRacing.push(await referenceRun(`${server.origin}/__reference`, { settle: false }));
  }
  record(`(${loadLine()})`);
  const waits = settling.map((s) => s.waited), quiet = settling.filter((s) => s.quiet).length;
  record(`a new window settled (its own start-up over) after ${ms(median(waits))} ms median (runs: ` +
    `${waits.map(ms).join(', ')}; ${quiet} of ${runs} fell quiet within 3 s); the "settled window" visits start then`);
  record(`a blank page's first WebGL2 context in a settled window of a fresh browser: ${ms(median(blank))} ms median ` +
    `(runs: ${blank.map(ms).join(', ')}); the page's own "context" mark below ends the same wait`);
  const floor = 'reference page (tests/web/reference_page.html: the context, one program used, one texture, ' +
    'one draw, no app; the floor under "ready")';
  record(timelineLine(`${floor}, settled window`, reference));
  record(timelineLine(`${floor}, new window opened with the URL`, referenceRacing));
  record(timelineLine('served page, settled window (the goal\'s figure)', timelines));
  record(timelineLine('served page, new window opened with the URL', racing));
  record(timelineLine('served page as the first page of a just-started browser', cold));
  record(idleLine('served page', cpu, idleSeconds));
  record(latencyLine('served page', latencies));
  assertTimelines([...timelines, ...racing, ...cold]);
  assert.ok([...cpu, ...blank].every(Number.isFinite));
  assert.ok(latencies.every((l) => Number.isFinite(l.total) && Number.isFinite(l.page)));
  assert.ok([...reference, ...referenceRacing].every((r) => r.context > 0 && r.ready > r.context),
    'the reference drew');

  const file = pathToFileURL(path.join(webDir, 'ropeviz.html')).href;
  const fileAllowed = (u) => u === file || u.startsWith(file + '#');
  const fileSettled = (await repeat(() => freshRun(file, { allowed: fileAllowed }))).map((r) => r.timeline);
  const fileRacing = (await repeat(() => freshRun(file, { allowed: fileAllowed, settle: false })))
    .map((r) => r.timeline);
  const fileCold = (await repeat(() => freshRun(file, { allowed: fileAllowed, warm: false, settle: false })))
    .map((r) => r.timeline);
  record(`(${loadLine()})`);
  record(timelineLine('single file, settled window (the goal\'s figure)', fileSettled));
  record(timelineLine('single file, new window opened with the URL', fileRacing));
  record(timelineLine('single file as the first page of a just-started browser', fileCold));
  assertTimelines([...fileSettled, ...fileRacing, ...fileCold]);
  console.log(`written to ${path.relative(root, report)}`);
} finally {
  await server.close();
}
