// The main controls as real, labelled HTML inputs: a screen reader (or the Tab key) can run the app with them,
// and they follow every change made on the canvas or by script. The text view: headings and tables of the state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, a11yText, shot } from './lib.mjs';

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
  assert.match(v.text, /It serves position 4 by looking up row P\[4\]/);
  page.assertClean();
  await page.closeAll();
});

// A screen-reader user's whole path through the lesson's four exercises: every question, field and button reached by
// its role and accessible name (as a screen reader finds them), answers checked by core, the verdict read from a
// status line; the canvas's exercise panel holds the same answers and verdicts.
test('the exercises as an HTML form: the lesson\'s four answered without the canvas, ' +
  'wrong and unreadable ones told why', async () => {
  const page = await open('#position=5');
  await page.waitForSelector('#exercises form', { state: 'attached' });
  const titles = await page.$$eval('#exercises h3', (hs) => hs.map((h) => h.textContent));
  assert.equal(titles.length, (await state(page)).exercises.length);
  const wiring = await page.$$eval('#exercises input', (inputs) => inputs.map((i) => [i.labels.length, i.maxLength]));
  assert.ok(wiring.length >= 12 && wiring.every(([labels, max]) => labels === 1 && max === 200),
    `every field has its label and a length cap: ${JSON.stringify(wiring)}`);
  const form = (title) => page.getByRole('form', { name: title });
  const answerAll = async (title, answers) => {
    const fields = form(title).getByRole('textbox');
    assert.equal(await fields.count(), answers.length, `${title}: one labelled field per part`);
    for (let k = 0; k < answers.length; ++k) await fields.nth(k).fill(answers[k]);
    await form(title).getByRole('button', { name: 'Check' }).click();
    return form(title).getByRole('status');
  };
  const lesson = [['65536', '0'], ['IndexError', 'runs but degrades past 2048'], ['1, 0.1, 0.01, 0.001', '3'],
    ['[2, 5, 4, 8]', '[2, 5, 4, 8]', '[2, 5, 4, 8]', 'no']];
  // Wrong, then unreadable, then right, for the first: each verdict is spoken from the status line.
  let status = await answerAll(titles[0], ['16384', '0']);
  assert.match(await status.textContent(), /^Not yet: .*max_position × d_head/);
  status = await answerAll(titles[0], ['sixty', '0']);
  assert.match(await status.textContent(), /^Cannot check: /);
  for (let i = 0; i < lesson.length; ++i) {
    status = await answerAll(titles[i], lesson[i]);
    assert.match(await status.textContent(), /^Right\. /, `${titles[i]}: ${await status.textContent()}`);
  }
  const s = await state(page);
  assert.deepEqual(s.exercises.slice(0, 4).map((e) => e.verdict), ['right', 'right', 'right', 'right']);
  // The hint is a button that says whether it is open; the field keeps Enter for Check.
  const hint = form(titles[2]).getByRole('button', { name: 'Hint' });
  const hintText = form(titles[2]).locator('p[id$="-hint-text"]');
  assert.equal(await hint.getAttribute('aria-expanded'), 'false');
  assert.equal(await hintText.isVisible(), false, 'the hint is hidden until asked for');
  await hint.click();
  assert.equal(await hint.getAttribute('aria-expanded'), 'true');
  assert.equal(await hintText.isVisible(), true);
  assert.ok((await form(titles[2]).locator('p[id$="-hint-text"]').textContent()).length > 10);
  await form(titles[2]).getByRole('textbox').first().focus();  // the focused form is shown over the canvas
  await shot(page, 'exercises-form');
  // Show me opens the view that explains it (other settings: the generated questions change and the form is
  // rebuilt); the answers of the questions that did not change survive.
  const generated = () => page.$eval('#exercises form:last-of-type p', (p) => p.textContent);
  const before = await generated();
  await form(titles[1]).getByRole('button', { name: 'Show me' }).click();
  await page.waitForFunction(() => window.ropeviz.state().position === 2048);
  await frames(page, 2);
  await page.waitForTimeout(600);  // the form follows once the change settles
  assert.notEqual(await generated(), before, 'a generated question follows the new settings');
  assert.equal(await form(titles[0]).getByRole('textbox').first().inputValue(), '65536');
  assert.match(await form(titles[0]).getByRole('status').textContent(), /^Right\./);
  page.assertClean();
  await page.closeAll();
});
