// Touch, with real touch events (Chromium's input pipeline through CDP): a finger dragged along the position
// slider moves it past the table as a mouse would; a vertical swipe scrolls the panel under it and clicks nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, shot, a11yText } from './lib.mjs';

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

test('a phone (390 x 844 at DPR 3): one column inside the screen, a tap opens the controls sheet, ' +
  'the picker shows any panel', async () => {
  const vw = 390, vh = 844;
  const page = await open('#position=100', { viewport: { width: vw, height: vh }, scale: 3, hasTouch: true });
  const inside = async (id) => {
    const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
    assert.ok(r, `${id} is drawn`);
    assert.ok(r.x >= 0 && r.y >= 0 && r.x + r.w <= vw + 0.5 && r.y + r.h <= vh + 0.5,
      `${id} inside the screen: ${JSON.stringify(r)}`);
    return r;
  };
  for (const id of ['sheet', 'panel_picker', 'position', 'lookup', 'panel_top']) await inside(id);
  assert.equal(await page.evaluate(() => window.ropeviz.rect('panel_bottom')), null, 'one panel at a time');
  const lookup = await inside('lookup');
  assert.ok(lookup.h > 28, `the IndexError wraps onto two lines in its box (${lookup.h} px tall; one line is ~19)`);
  assert.match(await a11yText(page, /IndexError/), /index 100 is out of bounds/);  // spoken once changes settle
  await shot(page, 'phone-390x844');
  const sheet = await inside('sheet');
  await page.touchscreen.tap(sheet.x + sheet.w / 2, sheet.y + sheet.h / 2);
  await frames(page, 4);
  for (const id of ['max_position', 'd_head', 'base', 'position']) {
    const r = await inside(id);
    if (id !== 'position') assert.ok(r.w >= 120, `${id} is wide enough for its number (${r.w} px)`);
  }
  await shot(page, 'phone-390x844-controls');
  const close = await inside('sheet');  // now "Close"
  await page.touchscreen.tap(close.x + close.w / 2, close.y + close.h / 2);
  await frames(page, 4);
  await page.evaluate(() => { location.hash = '#tab=lab'; });
  // the lab panel in the one column (asking for frames while waiting: the page draws on demand)
  await page.waitForFunction(() => (window.ropeviz.frames(), window.ropeviz.rect('lab_run') !== null), null,
    { timeout: 10000 });
  await inside('lab_run');
  await inside('panel_bottom');
  await shot(page, 'phone-390x844-lab');
  page.assertClean();
  await page.closeAll();
});

test('a vertical swipe scrolls the panel under the finger as far as it travels, and presses nothing', async () => {
  const page = await open('#tab=lab', { viewport: { width: 390, height: 844 }, scale: 1, hasTouch: true });
  const r = await page.evaluate(() => window.ropeviz.rect('panel_bottom'));
  assert.ok(r, 'the lab panel is shown (on a phone its settings sit above its plots: it scrolls)');
  const before = await state(page);
  const x = r.x + r.w / 2, y0 = r.y + r.h * 0.45;  // on the settings (the panel itself), ending on them too
  const cdp = await page.context().newCDPSession(page);
  await touch(cdp, page, 'touchStart', x, y0);
  for (let i = 1; i <= 10; i++) await touch(cdp, page, 'touchMove', x, y0 - 20 * i);
  await frames(page, 3);
  const during = await state(page);
  await touch(cdp, page, 'touchEnd', 0, 0);
  await cdp.detach();
  const { y, max } = during.hovered_scroll;
  assert.ok(max > 100, `the panel has something to scroll (${max} pixels)`);
  assert.ok(y >= 0.6 * Math.min(200, max) && y <= max, `a 200-pixel swipe up scrolled the panel down: ${y} of ${max}`);
  await frames(page, 12);
  const after = await state(page);
  assert.equal(after.hash, before.hash, 'nothing was pressed on the way');
  await shot(page, 'touch-swipe-390');
  page.assertClean();
  await page.closeAll();
});

test('on a touch screen a tapped field takes the on-screen keyboard (letters for answers, digits for numbers): ' +
  'the first exercise answered by finger', async () => {
  const page = await open('#tab=exercises', { viewport: { width: 390, height: 844 }, scale: 2, hasTouch: true });
  const tap = async (id) => {
    const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
    assert.ok(r, `${id} is drawn`);
    await page.touchscreen.tap(r.x + r.w / 2, r.y + r.h / 2);
    await frames(page, 4);
  };
  const keyboard = () => page.evaluate(() => [document.activeElement.id, document.activeElement.inputMode]);
  await tap('ex_answer0');
  assert.deepEqual(await keyboard(), ['soft-keys', 'text'], 'the keyboard field has the focus, with letters');
  await page.keyboard.type('65539');
  await frames(page, 10);
  await page.keyboard.press('Backspace');
  await frames(page, 4);
  await page.keyboard.type('6');
  await frames(page, 4);
  await tap('ex_answer1');
  await page.keyboard.type('0');
  await frames(page, 4);
  await tap('ex_check');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'canvas', 'no field: the keyboard closes');
  assert.equal((await state(page)).exercises[0].verdict, 'right', 'typed once each: 65536 and 0');
  await tap('sheet');
  await tap('max_position');  // a number field: the digits keyboard
  assert.deepEqual(await keyboard(), ['soft-keys', 'decimal']);
  page.assertClean();
  await page.closeAll();
});
