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

test('Tab reaches the canvas controls in order, Enter and Space press them, a tabbed field takes typed text', async () => {
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
  let hops = 0;
  while ((await state(page)).focus !== 'max_position' && hops++ < 60) await press(page, 'Tab');
  assert.equal((await state(page)).focus, 'max_position', 'Tab reaches the max_position field');
  await page.keyboard.type('30');
  await press(page, 'Enter');
  s = await state(page);
  assert.equal(s.max_position, 30, 'the typed value applied on Enter');
  await press(page, 'Escape');  // leaves keyboard navigation
  assert.equal((await state(page)).focus, null);
  page.assertClean();
  await page.closeAll();
});
