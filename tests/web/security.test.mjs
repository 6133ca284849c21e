// The page under its Content-Security-Policy: served by the real `make run` server (web/serve.py,
// header + <meta>) and as the single file from file:// (<meta> only), it loads, draws, exports, trains a lab in its
// Web Workers and copies a link without one policy violation or console error; a worker it does not name is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { webDir, launch, openPage, ready, frames, state } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const serveScript = path.resolve(here, '../../web/serve.py');
let browser, server, origin;

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

before(async () => {
  browser = await launch();
  const port = await freePort();
  server = spawn('python3', [serveScript, '--root', webDir, '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`serve.py exited with ${code}`)));
    server.stdout.once('data', (d) => resolve(String(d)));
  });
  origin = `http://127.0.0.1:${port}`;
  assert.ok(line.includes(`${origin}/`), line);
});
after(async () => {
  await browser?.close();
  server?.kill();
});

// Every securitypolicyviolation event from the first script on, kept on window for the test to read.
const watch = (page) => page.addInitScript(() => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} ${e.sample || ''}`);
  });
});

// A small lab in two Web Workers (the policy's worker-src): it trains and resolves under the policy.
async function workers(page) {
  const doc = await page.evaluate(
    () => window.ropeviz.lab({ methods: ['rope', 'none'], steps: 3, seeds: 1, workers: 2 }));
  assert.deepEqual(Object.keys(doc.methods), ['rope', 'none']);
  assert.equal(doc.methods.rope.train_loss.length, 3);
}

// A worker from `source` ('blob' or a URL) posts 1 when it runs; the policy's refusal is an error event instead.
const tryWorker = (page, source) => page.evaluate((src) => new Promise((resolve) => {
  const url = src === 'blob' ? URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' })) : src;
  let w;
  try { w = new Worker(url); } catch (e) { return resolve('refused'); }
  w.onmessage = () => resolve('ran');
  w.onerror = () => resolve('refused');
}), source);

async function exercise(page) {
  const s = await ready(page);
  assert.equal(s.position, 3);
  await frames(page, 3);
  // It draws: frames are counted, the loading box is gone, and the screenshot is no blank fill (a
  // one-colour 1280x800 PNG is a few KB; the drawn panels are far more).
  assert.ok(await page.evaluate(() => window.ropeviz.frames()) >= 3);
  assert.ok(await page.evaluate(() => document.getElementById('status').classList.contains('hidden')));
  const png = await page.screenshot();
  assert.ok(png.length > 30000, `the screenshot is ${png.length} bytes: nothing drawn?`);
  // An export is a blob: download, allowed under the policy.
  const r = await page.evaluate(() => window.ropeviz.rect('export_angles'));
  assert.ok(r, 'the export button is drawn');
  const [download] = await Promise.all([page.waitForEvent('download'), page.mouse.click(r.x + r.w / 2, r.y + r.h / 2)]);
  assert.match(download.suggestedFilename(), /^ropeviz-angles-.*\.csv$/);
  // The context menu is still suppressed by the canvas's hashed inline handler.
  const prevented = await page.evaluate(() => {
    const e = new MouseEvent('contextmenu', { bubbles: true, cancelable: true });
    document.getElementById('canvas').dispatchEvent(e);
    return e.defaultPrevented;
  });
  assert.equal(prevented, true, 'oncontextmenu ran under the policy');
  await workers(page);
  await frames(page, 3);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  page.assertClean();
}

test('served by web/serve.py: the page runs under the header policy with no violation', async () => {
  const page = await openPage(browser, { allowed: (u) => u.startsWith(`${origin}/`) });
  await watch(page);
  const response = await page.goto(`${origin}/#position=3`);
  const policy = response.headers()['content-security-policy'];
  assert.match(policy, /^default-src 'none'; script-src 'self' 'wasm-unsafe-eval' /);
  assert.ok(!policy.includes("'unsafe-inline'") && !policy.includes("'unsafe-eval'"), policy);
  assert.match(policy, /; worker-src 'self';/, 'workers: the page\'s own ropeviz.js only');
  assert.equal(policy.match(/worker-src [^;]*/g).length, 1, policy);
  assert.equal(response.headers()['x-content-type-options'], 'nosniff');
  await exercise(page);
  // The same page must not reach past the policy: an injected inline script and a foreign fetch are refused.
  const blocked = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true;';
    document.body.appendChild(s);
    let fetched = true;
    try { await fetch('https://example.com/'); } catch { fetched = false; }
    return { injected: window.__injected === true, fetched };
  });
  assert.deepEqual(blocked, { injected: false, fetched: false });
  assert.equal(await tryWorker(page, 'blob'), 'refused', 'a blob: worker is not the served page\'s');
  // Violation events arrive asynchronously: the refusals are reported (the listener works).
  await page.waitForFunction(() => window.__cspViolations.length >= 3);
  const reported = (await page.evaluate(() => window.__cspViolations)).join('\n');
  assert.match(reported, /script-src/);
  assert.match(reported, /connect-src blocked https:\/\/example\.com/);
  assert.match(reported, /worker-src blocked blob/);
  await page.closeAll();
});

test('the single file from file:// runs under its <meta> policy with no violation', async () => {
  const url = pathToFileURL(path.join(webDir, 'ropeviz.html')).href;
  const page = await openPage(browser, { allowed: (u) => u === url || u.startsWith(`${url}#`) });
  await watch(page);
  await page.goto(`${url}#position=3`);
  const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(meta, /^default-src 'none'; script-src 'self' 'wasm-unsafe-eval' 'sha256-/);
  assert.ok(!meta.includes("'unsafe-inline'") && !meta.includes("'unsafe-eval'"), meta);
  // Fetches: the Hugging Face Hub's hosts only (when the user asks for a repo), nothing else
  assert.match(meta, /; connect-src 'self' https:\/\/huggingface\.co https:\/\/\*\.hf\.co;/);
  // Workers: only a blob: URL (the page's own code, which it has no file of its own for)
  assert.match(meta, /; worker-src blob:;/);
  assert.equal(meta.match(/worker-src [^;]*/g).length, 1, meta);
  await exercise(page);
  assert.equal((await state(page)).rope.ok, true);
  assert.equal(await tryWorker(page, 'data:text/javascript,postMessage(1)'), 'refused',
    'a data: worker is not the page\'s');
  await page.waitForFunction(() => window.__cspViolations.length >= 1);
  assert.match((await page.evaluate(() => window.__cspViolations)).join('\n'), /worker-src blocked data/);
  await page.closeAll();
});

// web/csp.py hashes the code a page runs inline (classic and module scripts, event handlers) and nothing of its
// data blocks (the single file's packed wasm, the UI shader's text), which never run.
test('the policy holds the hashes of inline code and of nothing else', async () => {
  const page = '<meta http-equiv="Content-Security-Policy" content="{{{ CSP }}}"><script>a()</script>' +
    '<script type="module">b()</script><script type="text/javascript">c()</script>' +
    '<script type="x-shader/x-glsl">d</script><script type="application/octet-stream">e</script>' +
    '<script src="f.js"></script><canvas oncontextmenu="g()"></canvas>';
  const out = await new Promise((resolve, reject) => {
    const py = spawn('python3', ['-c', 'import sys; sys.path.insert(0, sys.argv[1]); import csp; ' +
      'print(csp.policy(sys.stdin.read()))', path.resolve(here, '../../web')]);
    let text = '';
    py.stdout.on('data', (d) => { text += d; });
    py.on('error', reject);
    py.on('close', (code) => (code === 0 ? resolve(text.trim()) : reject(new Error(`csp.py exited ${code}`))));
    py.stdin.end(page);
  });
  const sha = (code) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`;
  for (const code of ['a()', 'b()', 'c()', 'g()']) assert.ok(out.includes(sha(code)), `${code} is hashed: ${out}`);
  for (const data of ['d', 'e']) assert.ok(!out.includes(sha(data)), `the data block ${data} is not: ${out}`);
  assert.match(out, /'unsafe-hashes'/, 'the event handler is allowed by its hash only');
});
