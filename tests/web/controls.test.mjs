// The main controls as real, labelled HTML inputs: a screen reader (or the Tab key) can run the app with them,
// and they follow every change made on the canvas or by script. The text view: headings and tables of the state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, a11yText } from './lib.mjs';

const open = servedApp();

test('labelled HTML controls drive the app and follow it', async () => {
  const page = await open('#position=5');
  await frames(page, 2);
  const labels = await page.$$eval('#controls label', (ls) => ls.map((l) => l.textContent));
  assert.deepEqual(labels, ['model', 'position m', 'max_position (learned table rows)', 'd_head', 'base', 'pairing',
    'top panel', 'bottom panel']);
  assert.equal(await page.inputValue('#control-position'), '5');
  const models = await page.$$eval('#control-model option', (os) => os.map((o) => o.value));
  assert.ok(models.includes('none') && models.includes('llama-3.1-8b') && models.length >= 28);

  await page.getByLabel('position m').fill('100');  // typed, then Enter: applied like the canvas field
  await page.getByLabel('position m').press('Enter');
  await frames(page, 2);
  let s = await state(page);
  assert.equal(s.position, 100);
  assert.match(s.absolute.error, /index 100 is out of bounds/);
  await page.getByLabel('top panel').selectOption('precision');
  await frames(page, 3);
  assert.equal((await state(page)).panel_top, 'precision');
  await page.getByLabel('model').selectOption('gpt2');
  await frames(page, 3);
  s = await state(page);
  assert.equal(s.model, 'gpt2');
  assert.equal(await page.inputValue('#control-max_position'), '1024', 'the table size follows the model');
  await page.evaluate(() => window.ropeviz.set({ base: 500000 }));  // a change elsewhere is written back
  await frames(page, 2);
  assert.equal(await page.inputValue('#control-base'), '500000');
  // the Tab key reaches them, and the focused group becomes visible
  await page.focus('#control-model');
  const box = await page.$eval('#controls', (el) => el.getBoundingClientRect().width);
  assert.ok(box > 100, `the focused controls are shown (${box} px wide)`);
  page.assertClean();
  await page.closeAll();
});

test('the text view holds the state as headings and real tables, and follows a change once it settles', async () => {
  const page = await open('#position=100&max_position=10&d_head=8&tab_bottom=learned_table');
  await a11yText(page, /IndexError/);
  const view = () => page.evaluate(() => {
    const v = document.getElementById('text-view');
    return { headings: [...v.querySelectorAll('h2, h3')].map((h) => h.textContent),
      caption: v.querySelector('table caption')?.textContent,
      rows: [...v.querySelectorAll('table tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
      text: v.textContent };
  });
  let v = await view();
  assert.deepEqual(v.headings.slice(0, 3), ['Position m = 100, key n = 3', 'Learned absolute table', 'RoPE']);
  assert.ok(v.headings.includes('Learned table'), `the bottom panel's heading: ${v.headings}`);
  assert.equal(v.caption, "RoPE's 4 pairs at m = 100");
  assert.equal(v.rows.length, 4);
  assert.deepEqual(v.rows[1].slice(0, 3), ['1', '0.1', '10'], 'pair 1: theta 0.1, angle 100 x 0.1 = 10 rad');
  assert.match(v.text, /IndexError: index 100 is out of bounds for dimension 0 with size 10/);
  await page.evaluate(() => window.ropeviz.set({ position: 4, d_head: 16 }));
  await a11yText(page, /Position m = 4\./);
  v = await view();
  assert.equal(v.caption, "RoPE's 8 pairs at m = 4");
  assert.equal(v.rows.length, 8);
  assert.match(v.text, /It serves position 4 with row P\[4\]/);
  page.assertClean();
  await page.closeAll();
});
