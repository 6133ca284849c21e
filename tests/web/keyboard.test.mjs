// Keyboard only, with real key presses: Tab and Shift+Tab move a visible focus through the canvas's controls
// (state().focus names it), Enter and Space press buttons, a field reached by Tab takes typed text on Enter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, shot } from './lib.mjs';

const open = servedApp();

const press = async (page, key) => {
  await page.keyboard.press(key);
  await frames(page, 3);
};

// Tab (or `key`: Shift+Tab) until the focus is `target`, at most `limit` presses; returns the presses. A press waits
// as press() does, for 3 frames, unless the focus moves to another named control before (then the press has done
// what it does: the key queue hands ImGui its release and the next press in order, a frame each, so the next press
// needs no wait of its own). Controls without a name show as focus null, so a press from null to null waits 3 frames.
const tabTo = async (page, target, limit, key = 'Tab') => {
  let hops = 0;
  let focus = (await state(page)).focus;
  while (focus !== target && hops++ < limit) {
    await page.keyboard.press(key);
    const moved = await page.waitForFunction(({ before, until }) => {
      const drawn = window.ropeviz.frames();  // also asks for a frame, as frames() does
      const now = window.ropeviz.state().focus;
      return (drawn >= until || now !== before) && { now };
    }, { before: focus, until: (await page.evaluate(() => window.ropeviz.frames())) + 3 });
    focus = (await moved.jsonValue()).now;
  }
  await frames(page, 2);  // the last release delivered too
  return hops;
};

test('Tab reaches the canvas controls in order, Enter and Space press them, ' +
  'a tabbed field takes typed text', async () => {
  const page = await open('#position=50&max_position=20');
  await page.focus('canvas');
  await press(page, 'Tab');
  assert.equal((await state(page)).focus, 'lesson_start');
  await press(page, 'Tab');
  assert.equal((await state(page)).focus, 'reset');
  await shot(page, 'keyboard-focus-reset');
  await press(page, 'Enter');
  let s = await state(page);
  assert.equal(s.max_position, 10, 'Enter pressed Reset: the lesson defaults');
  await press(page, 'Shift+Tab');
  assert.equal((await state(page)).focus, 'lesson_start');
  await press(page, 'Space');
  assert.equal((await state(page)).lesson, 1, 'Space pressed Lesson');
  await tabTo(page, 'max_position', 60);
  assert.equal((await state(page)).focus, 'max_position', 'Tab reaches the max_position field');
  await page.keyboard.type('30');
  await frames(page, 6);
  await press(page, 'Enter');
  s = await state(page);
  assert.equal(s.max_position, 30, 'the typed value applied on Enter');
  await press(page, 'Escape');  // leaves keyboard navigation
  assert.equal((await state(page)).focus, null);
  page.assertClean();
  await page.closeAll();
});

test('keyboard only: the first exercise answered and checked without the mouse', async () => {
  const page = await open('#tab_bottom=exercises');
  await page.focus('canvas');
  // Backwards from the end: the exercises are the last panel (forwards, 76 presses through every control above them).
  const hops = await tabTo(page, 'ex_answer0', 60, 'Shift+Tab');
  assert.equal((await state(page)).focus, 'ex_answer0', `Shift+Tab reaches the first answer field (${hops} presses)`);
  await page.keyboard.type('65536');
  await frames(page, 12);  // the key queue hands ImGui one change per key a frame: 6, 5, 5, 3, 6 take a few
  await press(page, 'Tab');
  assert.equal((await state(page)).focus, 'ex_answer1');
  await page.keyboard.type('0');
  await frames(page, 4);
  await press(page, 'Tab');
  assert.equal((await state(page)).focus, 'ex_check');
  await press(page, 'Enter');
  assert.equal((await state(page)).exercises[0].verdict, 'right');
  page.assertClean();
  await page.closeAll();
});
