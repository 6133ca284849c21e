// End-to-end tests of the served web app in headless Chromium: the drag past max_position, the
// URL hash both ways, window.ropeviz, the #a11y text, high-DPI, resizing and hostile input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { servedApp, launch, openPage, frames, state, drag, shot, a11yText } from './lib.mjs';

const open = servedApp();

test('defaults are the lesson\'s: theta = [1, 0.1, 0.01, 0.001], angle 3.0 rad at m = 3', async () => {
  const page = await open();
  const s = await state(page);
  assert.equal(s.max_position, 10);
  assert.equal(s.d_head, 8);
  assert.equal(s.d_model, 32);
  assert.equal(s.base, 10000);
  [1, 0.1, 0.01, 0.001].forEach((t, i) => assert.ok(Math.abs(s.rope.theta[i] - t) < 1e-15, `theta_${i}`));
  const at3 = await page.evaluate(() => window.ropeviz.set({ position: 3 }));
  assert.equal(at3.rope.angle[0], 3);
  assert.equal(at3.absolute.ok, true);
  assert.equal(at3.absolute.error, null);
  await shot(page, 'web-default');
  page.assertClean();
  await page.closeAll();
});

test('dragging the position slider past max_position: IndexError for the table, RoPE keeps working', async () => {
  const page = await open('', { scale: 2 });
  await drag(page, 'position', 0.08, 0.08, 1);
  const inside = await state(page);
  assert.ok(inside.position < inside.max_position, `started inside the table at ${inside.position}`);
  assert.equal(inside.absolute.ok, true);
  await a11yText(page, /serves position/);

  // 4 moves, each seen by a frame (at devicePixelRatio 2 a software GPU draws one every ~0.7 s here): the slider
  // follows the pointer, so the position past the table is the last move's, as with the 10 moves this once made
  await drag(page, 'position', 0.08, 0.6, 4);
  const past = await state(page);
  const m = past.position;
  assert.ok(m >= past.max_position, `dragged past the table to ${m}`);
  assert.equal(past.absolute.ok, false);
  assert.equal(past.absolute.error, `IndexError: index ${m} is out of bounds for dimension 0 with size 10`);
  assert.equal(past.rope.ok, true);
  past.rope.theta.forEach((t, i) => assert.ok(Math.abs(past.rope.angle[i] - m * t) <= 1e-12 * m, `angle_${i}`));
  const text = await a11yText(page, new RegExp(`cannot serve position ${m}`));
  assert.ok(text.includes(`index ${m} is out of bounds for dimension 0 with size 10`));
  assert.match(await page.evaluate(() => location.hash), new RegExp(`position=${m}&`));
  await shot(page, 'web-after-drag-dpr2');
  page.assertClean();
  await page.closeAll();
});

test('a link restores the view; changes update the hash without adding history entries', async () => {
  const page = await open('#position=100&max_position=10&d_head=8&base=10000&pairing=half_split');
  let s = await state(page);
  assert.equal(s.position, 100);
  assert.equal(s.pairing, 'half_split');
  assert.equal(s.absolute.error, 'IndexError: index 100 is out of bounds for dimension 0 with size 10');
  const length = await page.evaluate(() => history.length);
  for (const position of [7, 8, 9, 250]) await page.evaluate((m) => window.ropeviz.set({ position: m }), position);
  await frames(page);
  assert.match(await page.evaluate(() => location.hash), /position=250&/);
  assert.equal(await page.evaluate(() => history.length), length);
  await page.evaluate(() => { location.hash = '#position=4&max_position=10'; });
  await page.waitForFunction(() => window.ropeviz.state().position === 4);
  s = await state(page);
  assert.equal(s.absolute.ok, true);
  page.assertClean();
  await page.closeAll();
});

test('hostile hash values are rejected or clamped with a visible note, never NaN', async () => {
  const page = await open('#position=abc&d_head=7&base=-1&max_position=99999999999&offsets=1e400' +
    '&seed=%E0%A4%A&x=<script>');
  const s = await state(page);
  assert.equal(s.position, 5);
  assert.equal(s.d_head, 8);
  assert.equal(s.base, 10000);
  assert.equal(s.max_position, 1e9, 'clamped to the largest table (its rows are drawn on demand)');
  assert.ok(s.notes.length >= 4, `notes: ${JSON.stringify(s.notes)}`);
  // Our JSON writes non-finite numbers as null: the only nulls allowed are the absent model, errors, weights, lab
  // run and Run it study.
  const nulls = [];
  const walk = (v, at) => {
    if (v === null) nulls.push(at);
    else if (typeof v === 'number') assert.ok(Number.isFinite(v), at);
    else if (typeof v === 'object') Object.entries(v).forEach(([k, x]) => walk(x, `${at}.${k}`));
  };
  walk(s, 'state');
  assert.deepEqual(nulls, ['state.model', 'state.model_label', 'state.absolute.error', 'state.score_curve.error',
    'state.weights',
    'state.lab.error', 'state.lab.result', 'state.run', 'state.focus']);
  // no model or weights chosen, no lab run, no Run it study, no focus
  assert.ok(s.rope.angle.every(Number.isFinite));
  await frames(page, 3);
  await shot(page, 'web-hostile-hash');
  const thrown = await page.evaluate(() => {
    try { window.ropeviz.set([1]); return null; } catch (e) { return e.message; }
  });
  assert.match(thrown, /expects an object/);
  page.assertClean();
  await page.closeAll();
});

test('a release outside the canvas ends the drag (no stuck button)', async () => {
  const page = await open();
  const r = await page.evaluate(() => window.ropeviz.rect('position'));
  const y = r.y + r.h / 2;
  await page.mouse.move(r.x + 0.1 * r.w, y);
  await frames(page);
  await page.mouse.down();
  await frames(page);
  await page.mouse.move(r.x + 0.3 * r.w, y);
  await frames(page);
  // The release lands on another element, as when the pointer leaves the canvas.
  await page.evaluate(({ x, y }) => document.getElementById('a11y').dispatchEvent(
    new MouseEvent('mouseup', { bubbles: true, button: 0, clientX: x, clientY: y })), { x: r.x + 0.3 * r.w, y });
  await frames(page, 3);
  const released = (await state(page)).position;
  await page.mouse.move(r.x + 0.9 * r.w, y);
  await frames(page, 3);
  assert.equal((await state(page)).position, released, 'moving after the release must not drag');
  await page.mouse.up();
  page.assertClean();
  await page.closeAll();
});

test('the canvas follows the window and is backed at devicePixelRatio', async () => {
  const page = await open('', { scale: 2, viewport: { width: 1000, height: 700 } });
  const dims = () => page.evaluate(() => {
    const c = document.getElementById('canvas');
    return { w: c.width, h: c.height, cssW: c.clientWidth, cssH: c.clientHeight };
  });
  await frames(page);
  assert.deepEqual(await dims(), { w: 2000, h: 1400, cssW: 1000, cssH: 700 });
  await page.setViewportSize({ width: 800, height: 500 });
  await page.waitForFunction(() => document.getElementById('canvas').width === 1600);
  assert.deepEqual(await dims(), { w: 1600, h: 1000, cssW: 800, cssH: 500 });
  const r = await page.evaluate(() => window.ropeviz.rect('position'));
  assert.ok(r.x >= 0 && r.x + r.w <= 800 && r.y >= 0 && r.y + r.h <= 500, 'rect in CSS pixels inside the view');
  await page.setViewportSize({ width: 1, height: 1 });
  await frames(page, 3);
  await page.setViewportSize({ width: 800, height: 500 });
  await frames(page, 3);
  assert.equal((await state(page)).absolute.ok, true);
  await shot(page, 'web-resized-800x500');
  page.assertClean();
  await page.closeAll();
});

test('without WebGL2 the page says so instead of going blank', async () => {
  const noGl = await launch(['--disable-webgl', '--disable-3d-apis']);
  try {
    const page = await openPage(noGl, { allowed: (url) => url.startsWith(open.origin() + '/') });
    await page.goto(`${open.origin()}/`);
    const error = await page.evaluate(() => window.ropeviz.ready.then(() => null, (e) => e.message));
    assert.match(error, /no WebGL2/);
    assert.match(await page.textContent('#status'), /no WebGL2/);
    assert.equal(await page.isVisible('#status'), true);
    page.assertClean();
  } finally {
    await noGl.close();
  }
});

test('every panel opens from a link (by name, or by its old number) and draws without a console error', async () => {
  const page = await open('#position=100&tab_top=rotations&tab_bottom=learned_table');
  const top = ['rotations', 'angle_field', 'shape_trace', 'extension', 'precision', 'sinusoidal'];
  const bottom = ['learned_table', 'score_curve', 'checks', 'comparison'];
  for (let i = 0; i < top.length; ++i) {
    const t = i % 2 ? String(i) : top[i];  // odd steps use the numbers that old links carry
    const b = bottom[i % bottom.length];
    await page.evaluate((h) => { location.hash = h; }, `#position=100&tab_top=${t}&tab_bottom=${b}`);
    await page.waitForFunction(([tk, bk]) => {
      const s = window.ropeviz.state();
      return s.panel_top === tk && s.panel_bottom === bk;
    }, [top[i], b]);
    await frames(page, 3);
    const s = await state(page);
    assert.equal(s.tab_top, i);
    assert.equal(s.absolute.ok, false);
    assert.equal(s.rope.ok, true);
    await page.waitForFunction((tk) => location.hash.includes(`tab_top=${tk}&`), top[i]);
    await shot(page, `web-tabs-${top[i]}-${b}`);
  }
  page.assertClean();
  await page.closeAll();
});

test('exports download as files whose numbers are the state\'s', async () => {
  const page = await open('#position=100&d_head=8');
  const r = await page.evaluate(() => window.ropeviz.rect('export_angles'));
  assert.ok(r, 'the export button is drawn');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.mouse.click(r.x + r.w / 2, r.y + r.h / 2),
  ]);
  assert.equal(download.suggestedFilename(), 'ropeviz-angles-m100-d8.csv');
  const text = fs.readFileSync(await download.path(), 'utf8');
  const rows = text.trim().split('\n').filter((l) => !l.startsWith('#')).slice(1).map((l) => l.split(',').map(Number));
  const s = await state(page);
  assert.equal(rows.length, 4);
  rows.forEach((row, i) => {
    assert.equal(row[1], s.rope.theta[i]);
    assert.equal(row[2], s.rope.angle[i]);
  });
  page.assertClean();
  await page.closeAll();
});

test('arrow keys step the position (shift: x10), as a keyboard user would', async () => {
  const page = await open('#position=8&max_position=10');
  await page.mouse.click(5, 795);  // focus the canvas on an empty corner
  await frames(page);
  // A quick tap: the app holds a key pressed and released between two frames down for one frame (window.cpp's key
  // queue), so it is one step. Holding it across frames for a while would repeat it, as a held key should: a test that
  // waits for frames between down and up holds it as long as a busy machine makes it (29 steps once, for 19).
  const tap = async (key) => {
    await page.keyboard.press(key);
    await frames(page, 3);
  };
  await tap('ArrowRight');
  assert.equal((await state(page)).position, 9);
  await page.keyboard.down('Shift');
  await tap('ArrowRight');
  await page.keyboard.up('Shift');
  const s = await state(page);
  assert.equal(s.position, 19);
  assert.equal(s.absolute.error, 'IndexError: index 19 is out of bounds for dimension 0 with size 10');
  page.assertClean();
  await page.closeAll();
});

test('"copy link" puts the address of this exact view on the clipboard', async () => {
  const page = await open('#position=42&d_head=16', { permissions: ['clipboard-read', 'clipboard-write'] });
  const r = await page.evaluate(() => window.ropeviz.rect('copy_link'));
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  await page.waitForFunction(() => window.ropeviz.state().notes.some((n) => n.includes('copied the link')));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.evaluate(() => location.href));
  assert.match(copied, /#position=42&.*d_head=16/);
  page.assertClean();
  await page.closeAll();
});

test('the text layer speaks once a drag settles, not at every position, and says the notes', async () => {
  const page = await open('');
  await a11yText(page, /Position m = 5\./);
  await page.evaluate(() => {
    window.__a11yChanges = 0;
    new MutationObserver(() => { window.__a11yChanges += 1; })
      .observe(document.getElementById('a11y'), { childList: true, characterData: true, subtree: true });
  });
  // 25 positions on 25 consecutive frames, as a quick slider drag gives them. The page speaks once the changes have
  // settled for 400 ms (web/page.js): a frame that came later than that (a loaded machine) may rightly speak once more.
  const slowFrames = await page.evaluate(() => new Promise((resolve) => {
    let i = 1, last = performance.now(), slow = 0;
    const step = () => {
      const now = performance.now();
      if (now - last > 400) slow += 1;
      last = now;
      window.ropeviz.set({ position: 10 * i });
      if (++i <= 25) requestAnimationFrame(step); else resolve(slow);
    };
    requestAnimationFrame(step);
  }));
  await a11yText(page, /Position m = 250\./);
  const changes = await page.evaluate(() => window.__a11yChanges);
  console.log(`#a11y changed ${changes} times for 25 positions on 25 frames (${slowFrames} frames over 400 ms apart)`);
  assert.ok(changes >= 1 && changes <= 2 + slowFrames,
    `#a11y changed ${changes} times with ${slowFrames} gaps over 400 ms (it spoke at every position: 25)`);
  await page.evaluate(() => window.ropeviz.set({ d_head: 7 }));
  await a11yText(page, /Note: d_head='7' is odd: RoPE rotates pairs; using 8\./);
  page.assertClean();
  await page.closeAll();
});

test('picture.png downloads the canvas as drawn, at its full pixel size', async () => {
  const page = await open('#position=100', { scale: 2 });
  await frames(page, 3);
  const r = await page.evaluate(() => window.ropeviz.rect('export_picture'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.mouse.click(r.x + r.w / 2, r.y + r.h / 2)]);
  assert.equal(download.suggestedFilename(), 'ropeviz-m100-d8.png');
  const png = fs.readFileSync(await download.path());
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.equal(png.readUInt32BE(16), 2560, 'width: 1280 CSS px at devicePixelRatio 2');
  assert.equal(png.readUInt32BE(20), 1600);
  const { inflateSync } = await import('node:zlib');
  let idat = Buffer.alloc(0);
  for (let at = 8; at < png.length;) {  // concatenate the IDAT chunks and check the picture is not blank
    const length = png.readUInt32BE(at), type = png.subarray(at + 4, at + 8).toString();
    if (type === 'IDAT') idat = Buffer.concat([idat, png.subarray(at + 8, at + 8 + length)]);
    at += 12 + length;
  }
  const pixels = inflateSync(idat);
  const distinct = new Set();
  for (let i = 0; i < pixels.length; i += 997) distinct.add(pixels[i]);
  assert.ok(distinct.size > 20, `the picture has content (${distinct.size} distinct sampled bytes)`);
  page.assertClean();
  await page.closeAll();
});

test('one panel as a PNG: window.ropeviz.png(panel) and the bar\'s PNG button, ' +
  'at the screen\'s pixel density', async () => {
  const page = await open('#position=100', { scale: 2 });
  await frames(page, 3);
  const pic = await page.evaluate(() => window.ropeviz.png('lab'));  // not shown yet: the hook shows it first
  const s = await state(page);
  assert.equal(s.panel_bottom, 'lab');
  assert.equal(pic.name, 'ropeviz-lab-m100-d8.png');
  const r = await page.evaluate(() => window.ropeviz.rect('panel_bottom'));
  assert.ok(Math.abs(pic.width - 2 * r.w) <= 1 && Math.abs(pic.height - 2 * r.h) <= 1,
    `${pic.width}x${pic.height} is the panel's ${r.w}x${r.h} CSS px at ratio 2`);
  assert.ok(pic.width < 2560 && pic.height < 1600 / 2, 'a panel, not the window');
  const png = Buffer.from(pic.png.replace(/^data:image\/png;base64,/, ''), 'base64');
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.equal(png.readUInt32BE(16), pic.width);
  const whole = await page.evaluate(() => window.ropeviz.png());
  assert.equal(whole.width, 2560);
  await assert.rejects(page.evaluate(() => window.ropeviz.png('no_such_panel')), /no_such_panel/);
  const b = await page.evaluate(() => window.ropeviz.rect('png_top'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.mouse.click(b.x + b.w / 2, b.y + b.h / 2)]);
  assert.equal(download.suggestedFilename(), `ropeviz-${s.panel_top}-m100-d8.png`);
  page.assertClean();
  await page.closeAll();
});
