// Text in for Run it (docs/run-it.md): a checkpoint dropped with a tokenizer_config.json (not its config), its
// tokenizer.json dropped after it, a text pasted: the page's tokens are the tokenize op's, the strip shows them, and
// the run reads them in the workers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedApp, frames, state, shot, click } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const fixture = path.join(root, 'tests/fixtures/tokenized_llama');
const open = servedApp();

const cli = (request) => JSON.parse(execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['eval'],
  { input: JSON.stringify(request) + '\n' }).toString());

// Drops files ([name, base64 bytes]) on the canvas together, as a user would.
const drop = (page, files) => page.evaluate((files) => {
  const dt = new DataTransfer();
  for (const [name, b64] of files)
    dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
  document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true,
    cancelable: true }));
}, files);
const file = (name) => [name, fs.readFileSync(path.join(fixture, name)).toString('base64')];
const paste = (page, text) => page.evaluate((text) => {
  const dt = new DataTransfer();
  dt.setData('text/plain', text);
  document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
}, text);

const prose = 'The ship left the harbour at dawn, 1,204 tonnes of grain below deck and 37 sailors on it. ' +
  'Nobody aboard had crossed the strait in winter; the old charts said the current runs at 4 knots there.\n\t';

test('a pasted text through a dropped tokenizer.json: the tokenize op\'s ids, the strip, a run in the workers',
  async () => {
    const page = await open('#tab=run', { viewport: { width: 1400, height: 1000 } });
    await frames(page, 2);
    const sideFile = ['tokenizer_config.json', Buffer.from('{"model_max_length": 7}').toString('base64')];
    await drop(page, [file('model.safetensors'), file('config.json'), sideFile]);
    await page.waitForFunction(() => (window.ropeviz.state().weights || {}).source === 'model.safetensors');
    let s = await state(page);
    assert.equal(s.weights.tokenizer, null);
    assert.equal(s.weights.vocab, 1536);
    assert.equal(s.max_position, 128, 'config.json is the config, not tokenizer_config.json');
    await frames(page, 2);
    s = await state(page);
    assert.match(s.run.text.error, /vocabulary of 1,536, not bytes: give its tokenizer\.json/);

    await drop(page, [file('tokenizer.json')]);
    await page.waitForFunction(() => (window.ropeviz.state().weights.tokenizer || {}).name === 'tokenizer.json');
    s = await state(page);
    assert.deepEqual(s.weights.tokenizer, { name: 'tokenizer.json', tokens: 1200, ids: 1200, fits: true });

    const text = prose.repeat(24);
    await paste(page, text);
    await frames(page, 3);
    s = await state(page);
    const want = cli({ op: 'tokenize', tokenizer: path.join(fixture, 'tokenizer.json'), text }).ids;
    assert.equal(s.run.text.name, 'pasted text');
    assert.equal(s.run.text.bytes, Buffer.byteLength(text));
    assert.equal(s.run.text.tokens, want.length);
    assert.deepEqual(s.run.text.first_ids, want.slice(0, 16));
    assert.ok(s.notes.some((n) => n.startsWith('Run it reads pasted text')), s.notes.join('\n'));

    await click(page, 'run_button');
    await page.waitForFunction(() => { const r = window.ropeviz.state().run; return r && !r.running && r.done; },
      null, { timeout: 240000 });
    s = await state(page);
    assert.equal(s.run.error, '', JSON.stringify(s.run));
    assert.equal(s.run.done, s.run.passes);
    assert.ok(s.run.curves.every((c) => c.error === '' && c.windows > 0), JSON.stringify(s.run.curves));
    // a random model: about ln(1,536) = 7.3 nats a token, measured on these tokens
    assert.ok(Math.abs(s.run.curves[0].in_range - Math.log(1536)) < 1.5, JSON.stringify(s.run.curves[0]));

    const r = await page.evaluate(() => window.ropeviz.rect('run_tokens'));
    assert.ok(r && r.w > 200 && r.h > 40, JSON.stringify(r));
    await page.mouse.move(r.x + 20, r.y + 14);
    await frames(page, 3);
    await shot(page, 'run-token-strip');
    page.assertClean();
    await page.closeAll();
  });
