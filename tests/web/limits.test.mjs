// Limits on every input in the browser: a 1 MB hash, 10,000 keys, set() with wrong types, 100k
// characters typed into a field, and a wasm heap bounded by -sMAXIMUM_MEMORY.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedApp, frames, state, shot } from './lib.mjs';

const open = servedApp();

// Sets a hash and waits for the app to answer it (the hashchange handler runs synchronously).
const setHash = (page, hash) => page.evaluate((h) => new Promise((resolve) => {
  window.addEventListener('hashchange', () => setTimeout(resolve, 0), { once: true });
  location.hash = h;
}), hash);

test('a 1 MB hash is rejected whole with one note; the view and the address keep the last good state', async () => {
  const page = await open('#position=9');
  await setHash(page, 'position=3&' + 'x'.repeat(1 << 20));  // a hang fails on the suite's --test-timeout
  await frames(page, 2);
  const s = await state(page);
  assert.equal(s.position, 9);
  assert.ok(s.notes.some((n) => /longer than 16384 bytes/.test(n)), JSON.stringify(s.notes));
  assert.ok((await page.evaluate(() => location.hash.length)) < 2000, 'the address holds the good view again');
  page.assertClean();
  await page.closeAll();
});

test('a hash with 10,000 keys raises a bounded number of notes and no hang', async () => {
  const page = await open();
  const keys = Array.from({ length: 10000 }, (_, i) => `k${i}=${i}`).join('&');
  await setHash(page, keys);
  await setHash(page, Array.from({ length: 2000 }, () => 'position=x').join('&'));
  await frames(page, 2);
  const s = await state(page);
  assert.equal(s.position, 5);
  assert.ok(s.notes.length <= 17, `${s.notes.length} notes`);
  page.assertClean();
  await page.closeAll();
});

test('set() with wrong types: a note each, the previous good value kept', async () => {
  const page = await open();
  await page.evaluate(() => window.ropeviz.set({ position: 12 }));
  const cases = await page.evaluate(() => {
    const bad = { text: 'abc', nan: NaN, inf: Infinity, ninf: -Infinity, nested: { a: { b: 1 } }, array: [5],
      nul: null, yes: true, no: false, undef: undefined, huge: '9'.repeat(100000), amp: '3&position=4' };
    return Object.entries(bad).map(([name, v]) => {
      const s = window.ropeviz.set({ position: v });
      return { name, position: s.position, notes: s.notes.length, last: s.notes[s.notes.length - 1] };
    });
  });
  for (const c of cases) {
    assert.equal(c.position, 12, `${c.name}: kept position`);
    assert.match(c.last, /^position=|^ignored a link longer than/, `${c.name}: noted (${c.last})`);
  }
  assert.equal((await page.evaluate(() => window.ropeviz.set({ position: -0 }))).position, 0);
  assert.equal((await page.evaluate(() => window.ropeviz.set({ base: '500' }))).base, 500);
  const many = await page.evaluate(() => {
    const o = {};
    for (let i = 0; i < 10000; i++) o['key' + i] = 'value' + i;
    return window.ropeviz.set(o);
  });
  assert.equal(many.position, 0);
  assert.ok(many.notes.some((n) => /longer than/.test(n)));
  page.assertClean();
  await page.closeAll();
});

test('100k characters typed into the m field: the field takes what fits, a note, a bounded value, ' +
  'no hang', async () => {
  const page = await open();
  const r = await page.evaluate(() => window.ropeviz.rect('position_input'));
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  await frames(page, 3);
  await page.keyboard.press('Control+A');
  await frames(page, 2);
  // The GLFW port reads characters from keypress events: 100k of them arrive before the next frame.
  await page.evaluate(() => {
    for (let i = 0; i < 100000; i++)
      window.dispatchEvent(
        new KeyboardEvent('keypress', { charCode: 49 + (i % 9), keyCode: 49 + (i % 9), bubbles: true }));
  });
  await page.keyboard.insertText('7'.repeat(100000));  // a paste-like insert: must not reach the app or hang it
  await frames(page, 3);
  await page.keyboard.press('Enter');
  await frames(page, 3);
  const s = await state(page);
  // The field keeps the 63 digits that fit; as a double that is ~1e62, which the parser clamps to the
  // largest position with a note (an S64 field read it with musl's sscanf as -1, and clamped to 0).
  assert.equal(s.position, 1e9);
  assert.ok(s.notes.some((n) => n.startsWith('position=') && n.includes('using 1000000000')), JSON.stringify(s.notes));
  await shot(page, 'limits-typed');
  page.assertClean();
  await page.closeAll();
});

test('the largest legal table fits under the wasm memory cap, and memory_bytes reports it', async () => {
  const page = await open();
  const small = await state(page);
  assert.ok(small.memory_bytes > 0 && small.memory_bytes <= 512 * 1024 * 1024, `${small.memory_bytes}`);
  // [1e9, 1024 x 256]: 2.6e14 entries, never built; rows are drawn on demand, the heatmap from a sample
  const big = await page.evaluate(() => window.ropeviz.set({ d_head: 1024, heads: 256, max_position: 1e9,
    position: 1e9 - 1 }));
  assert.equal(big.max_position, 1e9);
  assert.equal(big.d_model, 262144);
  assert.equal(big.absolute.ok, true, 'the last row is served');
  await frames(page, 5);
  let s = await page.evaluate(() => window.ropeviz.set({ position: 1e9, max_position: 1e9 - 1 }));
  assert.equal(s.absolute.error, 'IndexError: index 1000000000 is out of bounds for dimension 0 with size 999999999');
  await frames(page, 5);
  s = await state(page);
  assert.ok(s.memory_bytes <= 512 * 1024 * 1024, `memory ${s.memory_bytes}`);
  await page.evaluate(() => window.ropeviz.set({ d_head: 8, heads: 4, max_position: 10, position: 5 }));
  await frames(page, 5);
  page.assertClean();
  await page.closeAll();
});
