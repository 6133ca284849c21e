// The learner's path in the browser: a lesson link restores its step's view and Next walks on, Play sweeps the
// position in real time into the IndexError, and an exercise is answered with the real mouse and keyboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, shot, click } from './lib.mjs';

const open = servedApp();

test('a lesson link restores its view; Next moves to the next step and the hash follows', async () => {
  const page = await open('#lesson=4');
  await frames(page, 3);
  let s = await state(page);
  assert.equal(s.lesson, 4);
  assert.equal(s.position, 100);
  assert.equal(s.panel_top, 'angle_field');
  assert.equal(s.panel_bottom, 'learned_table');
  assert.equal(s.absolute.error, 'IndexError: index 100 is out of bounds for dimension 0 with size 10');
  await shot(page, 'lesson-4');
  await click(page, 'lesson_next');
  s = await state(page);
  assert.equal(s.lesson, 5);
  assert.equal(s.panel_top, 'why_rotation');
  await page.waitForFunction(() => window.location.hash.includes('lesson=5'));
  await click(page, 'lesson_close');
  assert.equal((await state(page)).lesson, 0);
  page.assertClean();
  await page.closeAll();
});

test('Play sweeps the position frame by frame, across the table into the IndexError, and Pause stops it', async () => {
  const page = await open('#position=7&max_position=10');
  await frames(page, 2);
  await click(page, 'play');
  assert.equal((await state(page)).playing, true);
  await page.waitForFunction(() => window.ropeviz.state().position >= 10, null, { timeout: 10000 });
  const s = await state(page);
  assert.match(s.absolute.error, /^IndexError: index \d+ is out of bounds for dimension 0 with size 10$/);
  await click(page, 'play');
  const paused = (await state(page)).position;
  assert.equal((await state(page)).playing, false);
  await frames(page, 20);
  assert.equal((await state(page)).position, paused);
  page.assertClean();
  await page.closeAll();
});

test('an exercise answered with the mouse and keyboard is checked by core; Show me opens its view', async () => {
  const page = await open('#tab_bottom=exercises');
  await frames(page, 3);
  await click(page, 'ex_answer0');
  await page.keyboard.type('16384');
  await click(page, 'ex_answer1');
  await page.keyboard.type('0');
  await click(page, 'ex_check');
  assert.equal((await state(page)).exercises[0].verdict, 'wrong');
  await click(page, 'ex_answer0');
  for (let i = 0; i < 5; i++) {  // keys reach ImGui one change a frame; typed characters do not wait for them
    await page.keyboard.press('Backspace');
    await frames(page, 2);
  }
  await frames(page, 4);
  await page.keyboard.type('65,536');
  await frames(page, 2);  // the characters reach the field before Enter does
  await page.keyboard.press('Enter');  // queued behind the digits' key events, which reach ImGui one change a frame
  await page.waitForFunction(() => window.ropeviz.state().exercises[0].verdict === 'right', null, { timeout: 10000 });
  await shot(page, 'exercise-right');
  await click(page, 'ex_show');
  const s = await state(page);
  assert.equal(s.max_position, 2048);
  assert.equal(s.panel_top, 'shape_trace');
  assert.equal(s.panel_bottom, 'exercises');
  page.assertClean();
  await page.closeAll();
});
