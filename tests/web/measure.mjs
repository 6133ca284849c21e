// Measurements for the performance artefact: the start-up timeline of a fresh browser, the CPU an idle
// tab costs the browser's processes, and the latency from an input event to the next drawn frame.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { launch, openPage, median } from './lib.mjs';

const clockTicks = 100;  // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux

// Before the page's own code runs: when window.ropeviz.ready resolves, and when each frame is drawn (the
// page's Module.rvFrameDrawn, wrapped through an accessor so the page's assignment keeps working). Watching
// frames this way asks for none: window.ropeviz.frames() would.
function instrument() {
  window.__rv = { readyAt: null, frameTimes: [], inputTimes: [], handledTimes: [] };
  let hook;
  Object.defineProperty(window, 'ropeviz', {
    configurable: true,
    get: () => hook,
    set: (value) => {
      hook = value;
      value.ready.then(() => { window.__rv.readyAt = performance.now(); }, () => {});
    },
  });
  let drawn = null;
  const wrapper = function (n) {
    window.__rv.frameTimes.push(performance.now());
    return drawn && drawn.apply(this, arguments);
  };
  const module = {};
  Object.defineProperty(module, 'rvFrameDrawn', {
    configurable: true,
    enumerable: true,
    get: () => wrapper,
    set: (f) => { if (f !== wrapper) drawn = f; },
  });
  window.Module = module;
  window.addEventListener('mousemove', (e) => {
    window.__rv.inputTimes.push(e.timeStamp);  // when the browser took the event
    window.__rv.handledTimes.push(performance.now());  // when the page got it (the browser's delivery is before)
  }, true);
}

// The page's start-up timeline in ms since navigation: its resources, its own marks (ropeviz:*), ready.
async function timeline(page) {
  return page.evaluate(() => {
    const out = { ready: window.__rv.readyAt };
    for (const r of performance.getEntriesByType('resource')) {
      const name = r.name.split('/').pop();
      if (name === 'ropeviz.js') out.script_arrived = r.responseEnd;
      if (name === 'ropeviz.wasm') {
        out.wasm_request = r.startTime;
        out.wasm_arrived = r.responseEnd;
      }
    }
    for (const m of performance.getEntriesByType('mark'))
      if (m.name.startsWith('ropeviz:') && !(m.name.slice(8) in out)) out[m.name.slice(8)] = m.startTime;
    return out;
  });
}

// Every process: its parent and the CPU ticks (user + system) it has used so far.
function processTable() {
  const children = new Map();
  const ticks = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try { stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8'); } catch { continue; }  // gone meanwhile
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');  // after "pid (comm) "
    const parent = Number(fields[1]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(entry));
    ticks.set(Number(entry), Number(fields[11]) + Number(fields[12]));  // utime, stime
  }
  return { children, ticks };
}

// The processes this test process started (Playwright starts the browser as our child).
export const ownChildren = () => new Set(processTable().children.get(process.pid) ?? []);

// CPU seconds used so far by the process `pid` and all its descendants.
export function treeCpuSeconds(pid) {
  const { children, ticks } = processTable();
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    total += ticks.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total / clockTicks;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Waits until a just-opened window has finished its own start-up: the browser's processes together used under 10 ms
// of CPU in each of two successive 100 ms spans (at most 3 s). In this headless Chromium a new window composites a
// first blank frame and loads its omnibox popup's two WebUI pages (their scripts alone ran 235 ms in a trace, on this
// machine's 2 cores), work a user's window has done before a URL is typed into it. Returns the ms {waited} and
// whether the browser fell {quiet} (false: the 3 s ran out first).
async function windowSettled(browserPid) {
  const start = performance.now();
  let quiet = 0;
  for (let i = 0; quiet < 2 && i < 30; i++) {
    const before = treeCpuSeconds(browserPid);
    await sleep(100);
    quiet = treeCpuSeconds(browserPid) - before < 0.011 ? quiet + 1 : 0;
  }
  return { waited: performance.now() - start, quiet: quiet === 2 };
}

// CPU seconds the whole browser used during `seconds` of an idle page.
async function idleCpu(browserPid, seconds) {
  const before = treeCpuSeconds(browserPid);
  await sleep(seconds * 1000);
  return treeCpuSeconds(browserPid) - before;
}

// Milliseconds from each of `count` mouse moves over the canvas (spaced so the page is idle before each)
// to the end of the next frame drawn after it: {total} from when the browser took the event, {page} from when
// the page's handlers got it (the rest is the browser's delivery, which waits for its next animation frame).
async function inputLatency(page, count, gapMs) {
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const mark = await page.evaluate(() => ({ inputs: window.__rv.inputTimes.length }));
    await page.mouse.move(600 + 20 * i, 300 + 10 * (i % 3));
    await page.waitForFunction((n) => {
      const rv = window.__rv;
      return rv.inputTimes.length > n && rv.frameTimes.some((t) => t > rv.inputTimes[n]);
    }, mark.inputs);
    latencies.push(await page.evaluate((n) => {
      const rv = window.__rv;
      const drawn = rv.frameTimes.find((t) => t > rv.inputTimes[n]);
      return { total: drawn - rv.inputTimes[n], page: drawn - rv.handledTimes[n] };
    }, mark.inputs));
    await sleep(gapMs);
  }
  return latencies;
}

// A browser that has started up as a user's has: it has shown a page (its first frames cost its GPU process
// hundreds of ms here, whatever the page), in a context of its own that is gone before the measured visit.
async function warmUp(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.setContent('<p>a page before</p>');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await context.close();
}

// Runs visit(browser, pid) in a just-launched browser (pid: its process, for CPU counting), warmed up first (warmUp)
// unless `warm` is false, and closes the browser whatever happens.
async function inFreshBrowser(visit, warm = true) {
  const earlier = ownChildren();
  const browser = await launch();
  const pid = [...ownChildren()].find((p) => !earlier.has(p));
  try {
    if (warm) await warmUp(browser);
    return await visit(browser, pid);
  } finally {
    await browser.close();
  }
}

// The floor under the page's start-up: ms a blank page's first WebGL2 context takes in a fresh browser that has shown
// a page before, in a window that has settled (windowSettled); no page can avoid it.
export const blankContextMs = () => inFreshBrowser(async (browser, browserPid) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await windowSettled(browserPid);
  await page.setContent('<canvas></canvas>');
  const took = await page.evaluate(() => {
    const start = performance.now();
    document.querySelector('canvas').getContext('webgl2', { depth: false, stencil: false, antialias: false });
    return performance.now() - start;
  });
  await context.close();
  return took;
});

// The start-up floor: the marks (ms since navigation) of tests/web/reference_page.html, a WebGL2 page doing only
// what the app's page must before its first frame, opened at `url` in a fresh browser that has shown a page before
// (`settle`: as freshRun's).
export const referenceRun = (url, { settle = true } = {}) => inFreshBrowser(async (browser, browserPid) => {
  const page = await openPage(browser, { allowed: (u) => u === url });
  if (settle) await windowSettled(browserPid);
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('reference:ready').length > 0);
  const marks = await page.evaluate(() => Object.fromEntries(
    performance.getEntriesByType('mark').map((m) => [m.name.replace('reference:', ''), m.startTime])));
  page.assertClean();
  await page.closeAll();
  return marks;
});

// One fresh browser and a fresh profile (empty cache): opens `url`, records the start-up timeline; with
// `idleSeconds`, also the browser's CPU over that long idle, and with `inputs`, input-to-frame latencies.
// `warm`: the browser has shown another page first (warmUp); otherwise the page is its very first. `settle`: the URL
// is opened in a window that has finished its own start-up (windowSettled), as a user types it into a window that
// is open; otherwise the window is opened with the URL at once, as a link opened in a new window, and the visit
// shares the machine with the window's start-up. `allowed` guards requests as openPage does.
export const freshRun = (url, { allowed, idleSeconds = 0, inputs = 0, warm = true, settle = true }) => inFreshBrowser(
  async (browser, browserPid) => {
    const page = await openPage(browser, { allowed });
    const settling = settle ? await windowSettled(browserPid) : null;
    await page.addInitScript(instrument);
    await page.goto(url);
    await page.waitForFunction(() => window.__rv.readyAt !== null);
    const run = { timeline: await timeline(page), settling };
    await sleep(1000);  // the a11y text, the first frames' follow-ups
    if (idleSeconds) run.idleCpu = await idleCpu(browserPid, idleSeconds);
    if (inputs) run.latencies = await inputLatency(page, inputs, 400);
    page.assertClean();
    await page.closeAll();
    return run;
  }, warm);

const ms = (x) => (x === undefined || x === null ? '-' : `${Math.round(x)}`);

// One line of the artefact: per-field medians of the runs' start-up timelines (freshRun's), in the order the events
// happen, and ready in each run.
export function timelineLine(label, timelines) {
  const keys = [...new Set(timelines.flatMap((t) => Object.keys(t)))]
    .map((k) => [k, median(timelines.map((t) => t[k]).filter(Number.isFinite))])
    .sort((a, b) => a[1] - b[1]);
  const ready = timelines.map((t) => t.ready);
  const fields = keys.map(([k, v]) => `${k} ${ms(v)}`).join(', ');
  if (timelines.length === 1) return `${label} start-up, one fresh browser (ms since navigation): ${fields}`;
  return `${label} start-up, median of ${timelines.length} fresh browsers (ms since navigation): ${fields}; ` +
    `ready in each run: ${ready.map(ms).join(', ')}`;
}

// The machine's load while measuring: other builds on its cores slow every figure here.
export const loadLine = () => `load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`;

// The artefact's lines for the idle CPU (seconds of the browser's processes per `seconds` idle, freshRun's idleCpu)
// and the input latencies (freshRun's latencies, flattened over the runs).
export function idleLine(label, cpu, seconds) {
  const runs = cpu.length === 1 ? 'one run' : `median; runs: ${cpu.map((c) => c.toFixed(2)).join(', ')}`;
  return `${label} idle: browser processes used ${median(cpu).toFixed(2)} s CPU per ${seconds} s (${runs})`;
}
export function latencyLine(label, latencies) {
  const total = latencies.map((l) => l.total), own = latencies.map((l) => l.page);
  return `${label} input latency, mouse move to the end of the next drawn frame: ${ms(median(total))} ms ` +
    `median of ${total.length} moves (max ${ms(Math.max(...total))}); from the page's handler to the end of ` +
    `that frame: ${ms(median(own))} ms median (max ${ms(Math.max(...own))}), the rest is the browser's delivery`;
}

// What every start-up timeline must show, whatever the protocol and page (both pages share the shell's marks): ready
// within 20 s, each field a finite time, the context made before ready.
export function assertTimelines(timelines) {
  assert.ok(timelines.every((t) => t.ready > 0 && t.ready < 20000), 'ready within 20 s');
  assert.ok(timelines.every((t) => Object.values(t).every(Number.isFinite)), 'every timeline field a finite time');
  assert.ok(timelines.every((t) => t.context > 0 && t.context < t.ready), 'the context comes first');
}
