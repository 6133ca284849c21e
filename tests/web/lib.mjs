// Shared helpers for the browser tests: a static server on a free loopback port, Debian's
// Chromium through playwright-core, guards that fail a test on console errors or foreign requests.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const webDir = path.resolve(here, '../../build/web');
export const artifactDir = path.resolve(here, '../../build/web-test-artifacts');
fs.mkdirSync(artifactDir, { recursive: true });

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm' };

// Serves build/web on 127.0.0.1 at a port the OS picks, then checks it is our server answering.
export async function startServer() {
  const token = `ropeviz-test-${process.pid}-${Date.now()}`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/__whoami') return res.end(token);
    if (url.pathname === '/__reference') {  // the start-up floor of the performance artefact (reference_page.html)
      res.setHeader('Content-Type', types['.html']);
      return fs.createReadStream(path.join(here, 'reference_page.html')).pipe(res);
    }
    const file = path.join(webDir, path.normalize(url.pathname === '/' ? '/index.html' : url.pathname));
    if (!file.startsWith(webDir) || !fs.existsSync(file)) { res.statusCode = 404; return res.end('not found'); }
    res.setHeader('Content-Type', types[path.extname(file)] ?? 'application/octet-stream');
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const answer = await (await fetch(`${origin}/__whoami`)).text();
  if (answer !== token) throw new Error(`port ${server.address().port} is answered by another server`);
  return { origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

export async function launch(extraArgs = []) {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-quic',
      '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...extraArgs],
  });
}

// A page whose console errors, page errors and requests outside `allowed` are collected; call
// page.assertClean() at the end of a test.
// expectedErrors: a RegExp of console errors the test causes on purpose (the browser's "Failed to load resource" for
// a 404 the page handles).
export async function openPage(browser, { viewport = { width: 1280, height: 800 }, scale = 1, allowed, permissions = [],
  hasTouch = false, expectedErrors = null, bypassCSP = false }) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: scale, acceptDownloads: true, permissions,
    hasTouch, bypassCSP });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !(expectedErrors && expectedErrors.test(m.text())))
      problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const url = r.url();
    if (!/^(data|blob):/.test(url) && !allowed(url)) problems.push(`request beyond the page's own files: ${url}`);
  });
  page.assertClean = () => {
    if (problems.length) throw new Error(problems.join('\n'));
  };
  page.closeAll = () => context.close();
  return page;
}

// One server and one browser for a test file (node:test before/after hooks); returns open(hash,
// options): a fresh page of the served app at that hash, ready, with the guards of openPage
// (open.origin() is the server's address).
export function servedApp() {
  let server, browser;
  before(async () => {
    server = await startServer();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  // options: openPage's, and `init`, a function run in the page before its own scripts
  const open = async (hash = '', { init, ...options } = {}) => {
    const page = await openPage(browser, { allowed: (url) => url.startsWith(server.origin + '/'), ...options });
    if (init) await page.addInitScript(init);
    await page.goto(`${server.origin}/${hash}`);
    await ready(page);
    return page;
  };
  open.origin = () => server.origin;  // for tests that bring their own browser
  open.browser = () => browser;       // for pages of other origins (the single file) in the same browser
  return open;
}

export async function ready(page) {
  await page.evaluate(() => window.ropeviz.ready);
  return page.evaluate(() => window.ropeviz.state());
}

// ImGui reads input once per frame: wait for n frames to pass, not for a fixed time.
export async function frames(page, n = 2) {
  const start = await page.evaluate(() => window.ropeviz.frames());
  await page.waitForFunction((target) => window.ropeviz.frames() >= target, start + n);
}

export const state = (page) => page.evaluate(() => window.ropeviz.state());

// A left click at the centre of a named control (window.ropeviz.rect, CSS pixels), with frames for ImGui to see it.
export async function click(page, id) {
  const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
  if (!r) throw new Error(`control ${id} has no rect`);
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await frames(page, 2);
  await page.mouse.down();
  await frames(page, 2);
  await page.mouse.up();
  await frames(page, 2);
}

// The #a11y text once it says what `pattern` (a RegExp) expects: it speaks after changes settle (400 ms).
export async function a11yText(page, pattern) {
  await page.waitForFunction((source) => new RegExp(source).test(document.getElementById('a11y').textContent),
    pattern.source);
  return page.textContent('#a11y');
}

// Drags a named control with real mouse events from fraction `from` to `to` of its width.
export async function drag(page, id, from, to, steps = 8) {
  const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
  if (!r) throw new Error(`control ${id} has no rect`);
  const y = r.y + r.h / 2;
  const x = (u) => r.x + u * r.w;
  await page.mouse.move(x(from), y);
  await frames(page);
  await page.mouse.down();
  await frames(page);
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(x(from + ((to - from) * i) / steps), y);
    await frames(page);
  }
  await page.mouse.up();
  await frames(page);
  return { x, y };
}

// Clicks a named control as a user would (the pointer over it first, a frame to see it) and gives the file chooser it
// opens `files`. Playwright turns on the browser's file-chooser interception when the wait starts, without waiting for
// it to take: so the wait starts frames before the click instead of racing it (a chooser the browser opens
// unintercepted is cancelled unseen).
export async function pickFiles(page, id, files) {
  const chooser = page.waitForEvent('filechooser');
  await frames(page, 2);
  const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
  if (!r) throw new Error(`control ${id} has no rect`);
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await frames(page, 2);
  const now = await page.evaluate((name) => window.ropeviz.rect(name), id);
  if (JSON.stringify(now) !== JSON.stringify(r)) throw new Error(`control ${id} moved from under the pointer`);
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  await (await chooser).setFiles(files);
}

// Clicks a named control and waits (up to 5 s) for `count` downloads; returns them (playwright's Download objects).
export async function clickDownloads(page, id, count) {
  const files = [];
  page.on('download', (d) => files.push(d));
  const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
  if (!r) throw new Error(`control ${id} is not drawn`);
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  for (let i = 0; i < 50 && files.length < count; ++i) await new Promise((done) => setTimeout(done, 100));
  return files;
}

export const shot = (page, name) => page.screenshot({ path: path.join(artifactDir, `${name}.png`) });
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
