// Number fields with a real keyboard: typed text applies on Enter or when the focus leaves, never per keystroke
// (typing 2048 into max_position must not pass through 2 and 20), and a key tapped faster than a frame counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state } from './lib.mjs';

const open = servedApp();

const click = async (page, id) => {
  const r = await page.evaluate((name) => window.ropeviz.rect(name), id);
  assert.ok(r, `${id} is drawn`);
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  await frames(page, 2);
};

test('typing 2048 into max_position: nothing applies until Enter, then 2048; ' +
  'base applies when focus leaves', async () => {
  const page = await open('#position=100');
  await click(page, 'max_position');  // the click selects the whole text: typing replaces it
  for (const key of '2048') {
    await page.keyboard.type(key);
    await frames(page, 1);
    const s = await state(page);
    assert.equal(s.max_position, 10, `after typing ${key}`);
    assert.equal(s.notes.length, 0);
  }
  await page.keyboard.press('Enter');  // down and up within one frame: queued, not lost
  await frames(page, 3);
  let s = await state(page);
  assert.equal(s.max_position, 2048);
  assert.equal(s.absolute.ok, true, 'position 100 is inside the new table');

  await click(page, 'base');
  await page.keyboard.type('500000');
  await frames(page, 2);
  assert.equal((await state(page)).base, 10000);
  await click(page, 'key_position');  // the focus leaves base
  s = await state(page);
  assert.equal(s.base, 500000);
  await page.keyboard.press('Escape');  // leaves the n field untouched
  await frames(page, 2);
  assert.equal((await state(page)).key_position, 3);
  page.assertClean();
  await page.closeAll();
});
