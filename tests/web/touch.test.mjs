// Touch, with real touch events (Chromium's input pipeline through CDP): a finger dragged along the position
// slider moves it past the table as a mouse would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, shot } from './lib.mjs';

const open = servedApp();

// One finger's gesture through one CDP session (a touch sequence lives in its session).
const touch = async (cdp, page, type, x, y) => {
  await cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  await frames(page, 2);
};

test('a finger dragged along the position slider moves it past the table; nothing moves after the lift', async () => {
  const page = await open('', { viewport: { width: 390, height: 844 }, scale: 1, hasTouch: true });
  const r = await page.evaluate(() => window.ropeviz.rect('position'));
  assert.ok(r, 'the slider is drawn');
  const y = r.y + r.h / 2;
  const cdp = await page.context().newCDPSession(page);
  await touch(cdp, page, 'touchStart', r.x + 0.08 * r.w, y);
  for (let i = 1; i <= 8; i++) await touch(cdp, page, 'touchMove', r.x + (0.08 + 0.07 * i) * r.w, y);
  await touch(cdp, page, 'touchEnd', 0, 0);
  await cdp.detach();
  await frames(page, 12);  // the pointer leaves the canvas a moment after the lift
  const s = await state(page);
  assert.ok(s.position > s.max_position, `dragged to ${s.position}`);
  assert.match(s.absolute.error, /IndexError/);
  const after = await state(page);
  await frames(page, 3);
  assert.equal((await state(page)).position, after.position, 'nothing moves after the finger is lifted');
  await shot(page, 'touch-drag-390');
  page.assertClean();
  await page.closeAll();
});
