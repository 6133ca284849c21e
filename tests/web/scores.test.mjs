// The dot-product panel's choice of q and k in the page (issue #25): #qk=ones reads back from state() with its closed
// form, and layer0 after window.ropeviz.loadWeights of a generated llama checkpoint draws the numbers the CLI's
// real_scores gives for the same file; screenshots of both at 1600 x 1000.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedApp, frames, state, shot, a11yText } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const open = servedApp();
const wide = { viewport: { width: 1600, height: 1000 } };

// A llama-shaped checkpoint (F32): embedding [V, hidden], layer 0's input norm and q/k projections, seeded values.
const shape = { vocab: 40, hidden: 32, heads: 4, kvHeads: 2, headDim: 8 };
function llamaCheckpoint(s) {
  let state = 12345;
  const next = () => {  // a small LCG in [-1, 1): the same bytes every run
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 31 - 1;
  };
  const tensors = [
    ['model.embed_tokens.weight', [s.vocab, s.hidden], () => next()],
    ['model.layers.0.input_layernorm.weight', [s.hidden], () => 1 + 0.1 * next()],
    ['model.layers.0.self_attn.q_proj.weight', [s.heads * s.headDim, s.hidden], () => 0.5 * next()],
    ['model.layers.0.self_attn.k_proj.weight', [s.kvHeads * s.headDim, s.hidden], () => 0.5 * next()],
  ];
  const header = {};
  const chunks = [];
  let offset = 0;
  for (const [name, dims, value] of tensors) {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n).map(() => value());
    header[name] = { dtype: 'F32', shape: dims, data_offsets: [offset, offset + 4 * n] };
    chunks.push(Buffer.from(data.buffer));
    offset += 4 * n;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, ...chunks]);
}
const llamaConfig = (s) => JSON.stringify({ model_type: 'llama', hidden_size: s.hidden, num_attention_heads: s.heads,
  num_key_value_heads: s.kvHeads, head_dim: s.headDim, vocab_size: s.vocab, rope_theta: 10000,
  max_position_embeddings: 2048, rms_norm_eps: 1e-5 });

test('#qk=ones: all-ones q and k, d_head at r = 0 and the decay after it, in state() and the text layer', async () => {
  const page = await open('#qk=ones&tab_bottom=score_curve&model=llama-2-7b&offsets=4096', wide);
  await frames(page, 3);
  const s = await state(page);
  assert.equal(s.score_curve.qk, 'ones');
  assert.equal(s.score_curve.drawn, 'ones');
  assert.equal(s.score_curve.error, null);
  assert.equal(s.score_curve.scores.length, 9);
  assert.ok(Math.abs(s.score_curve.scores[0] - 128) < 1e-9, `score(0) = d_head: ${s.score_curve.scores[0]}`);
  assert.ok(Math.abs(s.score_curve.cauchy_schwarz - 128) < 1e-9);
  for (let r = 1; r < 9; ++r) assert.ok(s.score_curve.scores[r] < s.score_curve.scores[r - 1], `decays at r = ${r}`);
  assert.match(s.hash, /&qk=ones&q_token=0&k_token=0&qk_head=0/);
  const text = await a11yText(page, /all ones/);
  assert.match(text, /RoFormer's long-term-decay figure/);
  await shot(page, 'score-curve-ones');
  page.assertClean();
  await page.closeAll();
});

test('qk=layer0 after loadWeights of a generated llama checkpoint: the CLI\'s real_scores, ' +
  'read with the load', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ropeviz-scores-'));
  const bytes = llamaCheckpoint(shape);
  const config = llamaConfig(shape);
  fs.writeFileSync(path.join(dir, 'model.safetensors'), bytes);
  const ask = (head, token, key) => ({ op: 'real_scores', file: path.join(dir, 'model.safetensors'),
    config: JSON.parse(config), head, token, key_token: key, offsets: 8 });
  const [cli, cliAfter] = execFileSync(path.join(root, 'build/native/ropeviz-cli'), ['eval'], {
    input: JSON.stringify(ask(3, 5, 17)) + '\n' + JSON.stringify(ask(0, 39, 2)) + '\n' }).toString().trim().split('\n')
    .map((line) => JSON.parse(line));
  fs.rmSync(dir, { recursive: true });
  assert.equal(cli.score.length, 9, JSON.stringify(cli));
  const page = await open('#tab_bottom=score_curve&qk=layer0&q_token=5&k_token=17&qk_head=3', wide);
  await frames(page, 2);
  let s = await state(page);
  assert.equal(s.score_curve.drawn, 'random', 'no weights yet: random q and k');
  assert.match(s.score_curve.error, /no checkpoint is loaded/);
  assert.ok(s.score_curve.scores.every(Number.isFinite));
  s = await page.evaluate(({ bytes, config }) => window.ropeviz.loadWeights([
    new File([new Uint8Array(bytes)], 'model.safetensors'), new File([config], 'config.json')]),
  { bytes: [...bytes], config });
  await frames(page, 3);
  s = await state(page);
  assert.equal(s.score_curve.drawn, 'layer0', JSON.stringify(s.score_curve));
  assert.equal(s.score_curve.error, null);
  s.score_curve.scores.forEach((v, r) => assert.ok(
    Math.abs(v - cli.score[r]) <= 1e-9 * Math.max(1, Math.abs(cli.score[r])),
    `score(${r}): page ${v}, CLI ${cli.score[r]}`));
  assert.match(s.score_curve.words, /layer 0 of model\.safetensors \(head 3, key head 1\)/);
  const text = await a11yText(page, /q and k are layer 0 of model\.safetensors/);
  assert.match(text, /before any attention softmax/);
  await shot(page, 'score-curve-layer0');
  // Other tokens and another head: the page reads their rows from the same File after the load.
  await page.evaluate(() => window.ropeviz.set({ qk_head: 0, q_token: 39, k_token: 2 }));
  await page.waitForFunction(() => {
    window.ropeviz.frames();
    return window.ropeviz.state().score_curve.drawn === 'layer0';
  });
  s = await state(page);
  assert.equal(s.score_curve.head, 0);
  s.score_curve.scores.forEach((v, r) => assert.ok(
    Math.abs(v - cliAfter.score[r]) <= 1e-9 * Math.max(1, Math.abs(cliAfter.score[r])),
    `after the load, score(${r}): page ${v}, CLI ${cliAfter.score[r]}`));
  await page.evaluate(() => window.ropeviz.set({ qk_head: 3, q_token: 5, k_token: 17 }));
  await frames(page, 3);
  // An id past the embedding is refused by name; the state stays.
  s = await page.evaluate(() => window.ropeviz.set({ q_token: 40 }));
  assert.equal(s.score_curve.q_token, 5);
  assert.ok(s.notes.some(
    (n) => n.includes("q_token='40': token 40 is past model.safetensors's vocabulary of 40 tokens")),
    s.notes.join('\n'));
  page.assertClean();
  await page.closeAll();
});
