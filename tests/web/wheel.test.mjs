// The mouse wheel over a scrolling area: one notch scrolls a few lines, down when turned down, and back up;
// never to the end of the area (Emscripten's GLFW passed ImGui the raw pixel delta with the sign flipped).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state } from './lib.mjs';

const open = servedApp();

test('one wheel notch scrolls the shape trace a few lines, in the direction turned, ' +
  'in pixel and line modes', async () => {
  const page = await open('#tab_top=shape_trace', { viewport: { width: 800, height: 600 } });
  await frames(page, 2);
  const r = await page.evaluate(() => window.ropeviz.rect('panel_top'));
  const x = Math.round(r.x + r.w / 2), y = Math.round(r.y + r.h / 2);
  await page.mouse.move(x, y);  // over the top panel
  await frames(page, 3);
  let s = await state(page);
  assert.equal(s.hovered_scroll.y, 0);
  const max = s.hovered_scroll.max;
  assert.ok(max > 100, `the panel scrolls (range ${max})`);

  await page.mouse.wheel(0, 100);  // one notch down, as Chromium reports it (deltaMode 0: pixels)
  await frames(page, 3);
  s = await state(page);
  const oneNotch = s.hovered_scroll.y;
  assert.ok(oneNotch > 20, `moved down (${oneNotch})`);
  assert.ok(oneNotch < Math.min(max, 200), `a few lines, not to the end (${oneNotch} of ${max})`);

  await page.mouse.wheel(0, -100);  // and back up
  await frames(page, 3);
  assert.equal((await state(page)).hovered_scroll.y, 0);

  // Firefox reports lines (deltaMode 1, 3 lines a notch): the same notch, the same scroll
  await page.evaluate(([x, y]) => document.getElementById('canvas').dispatchEvent(new WheelEvent('wheel',
    { deltaY: 3, deltaMode: 1, clientX: x, clientY: y, bubbles: true, cancelable: true })), [x, y]);
  await frames(page, 3);
  assert.equal((await state(page)).hovered_scroll.y, oneNotch);
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'the page itself does not scroll');
  page.assertClean();
  await page.closeAll();
});
