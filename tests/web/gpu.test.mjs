// The page and its GPU: heatmaps coloured by the UI shader, a lost and restored WebGL context, a 0x0 canvas, a window
// wider than the GPU allows, and 300% zoom (devicePixelRatio 3). Screenshots go to build/web-test-artifacts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, shot } from './lib.mjs';

const open = servedApp();

// The RGBA pixels of a PNG (a data: URL), decoded by the page's own image decoder: {width, height, data}.
async function decodePng(page, dataUrl) {
  const { width, height, base64 } = await page.evaluate(async (dataUrl) => {
    const img = new Image();
    img.src = dataUrl;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const bytes = g.getImageData(0, 0, c.width, c.height).data;
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return { width: c.width, height: c.height, base64: btoa(text) };
  }, dataUrl);
  return { width, height, data: Buffer.from(base64, 'base64') };
}

// Mean brightness of a rectangle of the canvas (in the screenshot's pixels).
async function brightness(page, r) {
  const { width, data } = await decodePng(page,
    `data:image/png;base64,${(await page.screenshot()).toString('base64')}`);
  let sum = 0;
  for (let y = r.y; y < r.y + r.h; y++)
    for (let i = 4 * (y * width + r.x); i < 4 * (y * width + r.x + r.w); i += 4)
      sum += data[i] + data[i + 1] + data[i + 2];
  return sum / (r.w * r.h) / 3;
}

const lose = (page, how) => page.evaluate((how) => {
  const ext = document.getElementById('canvas').getContext('webgl2').getExtension('WEBGL_lose_context');
  window.__ropevizLoseExt ??= ext;  // the extension object of the first call restores the context
  window.__ropevizLoseExt[how]();
}, how);

// The colour map of shaders/ui.glsl and src/app/ui/heatmap.cpp: mid (t = 0) blends towards neg (t = -1) or pos (t = 1).
const colourMap = { mid: [0.13, 0.14, 0.17], neg: [0.26, 0.55, 0.98], pos: [1.0, 0.74, 0.28] };

// Of an image's pixels: how many lie on the colour map's blue and gold branches, well away from its dark middle
// (within 4/255 of mid + a (end - mid) for one a >= 0.3 in every channel), and how many distinct colours it has.
function onColourMap({ data }, map) {
  const counts = { neg: 0, pos: 0, colours: new Set(), pixels: data.length / 4 };
  for (let i = 0; i < data.length; i += 4) {
    const px = [data[i] / 255, data[i + 1] / 255, data[i + 2] / 255];
    counts.colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    for (const branch of ['neg', 'pos']) {
      const end = map[branch];
      const k = branch === 'neg' ? 2 : 0;  // the channel that moves most on the branch: blue, red
      const a = (px[k] - map.mid[k]) / (end[k] - map.mid[k]);
      if (a < 0.3 || a > 1.001) continue;
      if (px.every((v, c) => Math.abs(v - (map.mid[c] + a * (end[c] - map.mid[c]))) <= 4 / 255)) counts[branch]++;
    }
  }
  return { neg: counts.neg, pos: counts.pos, colours: counts.colours.size, pixels: counts.pixels };
}

// The angle field drawn and read back as PNG: cos(m theta_i) has both signs, so both branches over most of the panel.
async function assertHeatmapColoured(page, name) {
  await frames(page, 5);
  const picture = await page.evaluate(() => window.ropeviz.png('angle_field'));
  const counts = onColourMap(await decodePng(page, picture.png), colourMap);
  await shot(page, name);
  assert.ok(counts.neg > counts.pixels * 0.05, `blue branch: ${JSON.stringify(counts)}`);
  assert.ok(counts.pos > counts.pixels * 0.05, `gold branch: ${JSON.stringify(counts)}`);
  assert.ok(counts.colours > 200, `a smooth map, not a flat fill: ${JSON.stringify(counts)}`);
}

const prelinkedTaken = (page) => page.evaluate(() => ({
  marked: performance.getEntriesByName('ropeviz:prelinked').length, left: window.rvPrelinked }));

// The page links the UI shader while the app loads (web/shell.html); the app draws with that program when its own
// text for both stages is the same (platform/web/web_gl.cpp, web/page.js), which the build makes so (the shader as
// shipped).
test('heatmaps are coloured on the GPU by the UI shader\'s colour map, ' +
  'drawn with the program the page linked', async () => {
  const page = await open('#tab_top=angle_field&d_head=64&position=300');
  assert.deepEqual(await prelinkedTaken(page), { marked: 1, left: null }, 'the app took the page\'s program');
  await assertHeatmapColoured(page, 'gpu-heatmap');
  page.assertClean();
  await page.closeAll();
});

// A page whose linked text differs from the app's (as an older cached page would): the app links its own and draws
// the same.
test('a page-linked program with another text is not taken: the app links its own and draws the same', async () => {
  const page = await open('#tab_top=angle_field&d_head=64&position=300', { init: () => {
    Object.defineProperty(window, 'rvPrelinked', { configurable: true, get: () => window.__linked, set: (v) => {
      window.__offered ??= Boolean(v && v.program);
      window.__linked = v && { ...v, vertex: v.vertex + '\n// another build' };
    } });
  } });
  assert.equal(await page.evaluate(() => window.__offered), true, 'the page linked its program');
  assert.deepEqual(await prelinkedTaken(page), { marked: 0, left: null }, 'offered, compared, not taken');
  await assertHeatmapColoured(page, 'gpu-heatmap-own-link');
  page.assertClean();
  await page.closeAll();
});

test('a lost WebGL context shows a message, then everything is rebuilt and drawn on restore', async () => {
  const page = await open('#tab_top=angle_field');
  await frames(page, 5);
  const box = { x: 0, y: 0, w: 1280, h: 800 };
  await shot(page, 'gpu-before');
  const before = await brightness(page, box);

  await lose(page, 'loseContext');
  await page.waitForFunction(() => !document.getElementById('status').classList.contains('hidden'));
  assert.match(await page.textContent('#status-text'), /graphics context was lost/);
  const stopped = await page.evaluate(() => window.ropeviz.frames());
  await page.waitForTimeout(300);
  const during = await page.evaluate(() => window.ropeviz.frames());
  assert.ok(during - stopped <= 1, `no frames while lost (${stopped} -> ${during})`);
  // The app still answers: state and set work without a GPU.
  assert.equal((await page.evaluate(() => window.ropeviz.set({ position: 7 }))).position, 7);
  // png() cannot draw without a GPU: it says so at once instead of waiting for a frame that never comes
  const refused = await page.evaluate(() => window.ropeviz.png('rotations').then(() => 'resolved', (e) => e.message));
  assert.match(refused, /graphics context is lost/);
  await shot(page, 'gpu-lost');

  await lose(page, 'restoreContext');
  await page.waitForFunction(() => document.getElementById('status').classList.contains('hidden'));
  await frames(page, 10);
  await shot(page, 'gpu-after');
  const after = await brightness(page, box);
  assert.ok(Math.abs(after - before) < 3, `the restored page looks like before (${before} vs ${after})`);
  assert.ok(after > 20, `the restored page draws the UI (mean brightness ${after})`);
  const s = await state(page);
  assert.equal(s.panel_top, 'angle_field');
  assert.equal(s.position, 7);

  // Lose and restore again: the second restore must rebuild from the first one's objects too.
  await lose(page, 'loseContext');
  await page.waitForFunction(() => !document.getElementById('status').classList.contains('hidden'));
  await lose(page, 'restoreContext');
  await page.waitForFunction(() => document.getElementById('status').classList.contains('hidden'));
  await frames(page, 5);
  assert.ok(Math.abs((await brightness(page, box)) - before) < 3, 'the second restore draws like the first');
  page.assertClean();
  await page.closeAll();
});

test('a 0x0 canvas and a hidden canvas neither crash nor hang; frames resume at a normal size', async () => {
  const page = await open();
  await page.evaluate(() => Module.setCanvasSize(0, 0));
  await frames(page, 5);
  await page.evaluate(() => { document.getElementById('canvas').style.display = 'none'; });
  await page.setViewportSize({ width: 1, height: 1 });
  await frames(page, 5);
  await page.evaluate(() => { document.getElementById('canvas').style.display = ''; });
  await page.setViewportSize({ width: 1280, height: 800 });
  await frames(page, 5);
  const size = await page.evaluate(
    () => [document.getElementById('canvas').width, document.getElementById('canvas').height]);
  assert.deepEqual(size, [1280, 800]);
  assert.ok((await brightness(page, { x: 0, y: 0, w: 1280, h: 800 })) > 20, 'the UI is drawn again');
  page.assertClean();
  await page.closeAll();
});

test('a 16k-wide window gets a backing store the GPU accepts; frames keep coming', async () => {
  const page = await open();
  await page.setViewportSize({ width: 16384, height: 600 });
  await frames(page, 5);
  const wide = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    const g = c.getContext('webgl2');
    const dims = g.getParameter(g.MAX_VIEWPORT_DIMS);
    return { w: c.width, h: c.height, max: Math.min(dims[0], g.getParameter(g.MAX_RENDERBUFFER_SIZE)) };
  });
  assert.ok(wide.w <= wide.max && wide.w > 0, `backing store ${wide.w} within the GPU's ${wide.max}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await frames(page, 5);
  assert.equal(await page.evaluate(() => document.getElementById('canvas').width), 1280);
  assert.ok((await brightness(page, { x: 0, y: 0, w: 1280, h: 800 })) > 20);
  page.assertClean();
  await page.closeAll();
});

test('300% zoom (devicePixelRatio 3) draws at 3x and keeps running', async () => {
  const page = await open('#tab_top=angle_field', { scale: 3 });
  await frames(page, 5);
  const size = await page.evaluate(() => [document.getElementById('canvas').width, window.devicePixelRatio]);
  assert.deepEqual(size, [3840, 3]);
  await shot(page, 'gpu-dpr3');
  const r = await page.evaluate(() => window.ropeviz.rect('position'));
  assert.ok(r && r.w > 50 && r.x + r.w <= 1280, `controls laid out in CSS pixels: ${JSON.stringify(r)}`);
  await page.setViewportSize({ width: 640, height: 400 });
  await frames(page, 5);
  assert.equal(await page.evaluate(() => document.getElementById('canvas').width), 1920);
  page.assertClean();
  await page.closeAll();
});

// Frames that would repeat the last one's pixels send nothing to the GPU (platform/gl/window.cpp, render_frame): the
// canvas keeps showing that frame. Counted by the page's own WebGL calls; a change is drawn and shows on screen.
test('frames that repeat the last picture draw nothing; a change is drawn and shows', async () => {
  const page = await open('#tab_top=angle_field&d_head=64&position=300', { init: () => {
    window.__glDraws = 0;
    const proto = WebGL2RenderingContext.prototype;
    for (const name of ['drawElements', 'drawArrays', 'clear']) {
      const call = proto[name];
      proto[name] = function (...args) { window.__glDraws++; return call.apply(this, args); };
    }
  } });
  const draws = () => page.evaluate(() => window.__glDraws);
  await frames(page, 8);  // the first frames lay the window out and upload the heatmap
  const before = await draws();
  const still = await page.screenshot();
  const idleFrames = (await state(page)).frames;
  await frames(page, 10);
  assert.ok((await state(page)).frames >= idleFrames + 10, 'ImGui ran its frames');
  assert.equal(await draws(), before, 'frames that change nothing draw nothing');
  assert.ok(still.equals(await page.screenshot()), 'and the canvas still shows the picture');
  await page.evaluate(() => window.ropeviz.set({ position: 150 }));
  await frames(page, 6);
  assert.ok(await draws() > before, 'a changed view is drawn');
  assert.ok(!still.equals(await page.screenshot()), 'and shows on screen');
  await assertHeatmapColoured(page, 'gpu-heatmap-after-skipped-frames');
  page.assertClean();
  await page.closeAll();
});
