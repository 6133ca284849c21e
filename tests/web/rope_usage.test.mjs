// Frequencies in use in the page (docs/real-weights.md): a llama-shaped BF16 checkpoint with a planted pair and its
// config.json, made in the page and handed to window.ropeviz.loadWeights; the walk reads one layer's ranges at a time
// through the same want/supply loop as the load, finds the planted pair, never reads the large embedding, and the
// panel is drawn at 1600 x 1000.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { servedApp, state, frames, artifactDir } from './lib.mjs';

const open = servedApp();
const shape = { layers: 6, hidden: 64, heads: 4, kvHeads: 2, headDim: 16, planted: 3, gain: 10, context: 512,
  embedRows: 16000 };

// In the page: the checkpoint's bytes (BF16 projections seeded by a 32-bit LCG, pair `planted`'s rows i and i + 8 of
// every head scaled by `gain`, unit norms, then a zero embedding) and loadWeights with its config.json.
async function loadPlanted(page) {
  return page.evaluate(async (m) => {
    const tensors = [];
    let seed = 12345;
    const next = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return seed / 4294967296 - 0.5; };
    const proj = (heads) => {
      const v = new Float32Array(heads * m.headDim * m.hidden);
      for (let r = 0; r < heads * m.headDim; ++r) {
        const dim = r % m.headDim, planted = dim === m.planted || dim === m.planted + m.headDim / 2;
        for (let c = 0; c < m.hidden; ++c) v[r * m.hidden + c] = next() * 0.1 * (planted ? m.gain : 1);
      }
      return v;
    };
    for (let l = 0; l < m.layers; ++l) {
      const p = `model.layers.${l}.`;
      tensors.push({ name: p + 'self_attn.q_proj.weight', shape: [m.heads * m.headDim, m.hidden],
        data: proj(m.heads) });
      tensors.push({ name: p + 'self_attn.k_proj.weight', shape: [m.kvHeads * m.headDim, m.hidden],
        data: proj(m.kvHeads) });
      tensors.push({ name: p + 'input_layernorm.weight', shape: [m.hidden], data: new Float32Array(m.hidden).fill(1) });
    }
    tensors.push({ name: 'model.embed_tokens.weight', shape: [m.embedRows, m.hidden], data: null });
    const header = {};
    let at = 0;
    for (const t of tensors) {
      const n = t.shape.reduce((a, b) => a * b, 1) * 2;
      header[t.name] = { dtype: 'BF16', shape: t.shape, data_offsets: [at, at + n] };
      t.at = at;
      at += n;
    }
    let json = JSON.stringify(header);
    json += ' '.repeat((8 - (json.length % 8)) % 8);
    const embedAt = tensors[tensors.length - 1].at;
    const head = new Uint8Array(8 + json.length + embedAt);  // the embedding (last) follows as zeros
    new DataView(head.buffer).setUint32(0, json.length, true);
    head.set(new TextEncoder().encode(json), 8);
    const bits = new Uint32Array(1), f = new Float32Array(bits.buffer);
    const out = new DataView(head.buffer);
    for (const t of tensors)
      if (t.data)
        for (let i = 0; i < t.data.length; ++i) {
          f[0] = t.data[i];
          out.setUint16(8 + json.length + t.at + 2 * i, bits[0] >>> 16, true);  // bf16: the float32's top half
        }
    const file = new File([head, new Uint8Array(at - embedAt)], 'model.safetensors');
    const config = JSON.stringify({ model_type: 'llama', hidden_size: m.hidden, num_attention_heads: m.heads,
      num_key_value_heads: m.kvHeads, head_dim: m.headDim, num_hidden_layers: m.layers,
      max_position_embeddings: m.context, rope_theta: 10000 });
    const t0 = performance.now();
    const s = await window.ropeviz.loadWeights([file, new File([config], 'config.json')]);
    return { state: s, ms: performance.now() - t0, fileBytes: file.size, headerBytes: 8 + json.length };
  }, shape);
}

test('a llama-shaped checkpoint: the walk measures every layer, finds the planted pair, ' +
  'holds one layer at a time', async () => {
  const page = await open('#tab_bottom=rope_usage', { viewport: { width: 1600, height: 1000 } });
  const { state: loaded, ms, fileBytes, headerBytes } = await loadPlanted(page);
  assert.equal(loaded.weights.model_type, 'llama');
  await page.waitForFunction((n) => window.ropeviz.state().weights.rope_usage?.layers === n, shape.layers,
    { timeout: 60000 });
  await frames(page, 3);
  const s = await state(page);
  const u = s.weights.rope_usage;
  assert.deepEqual([u.layers, u.heads, u.kv_heads, u.pairs, u.total, u.done, u.active], [6, 4, 2, 8, 6, true, false]);
  assert.equal(u.strongest, shape.planted);
  for (let i = 0; i < u.pairs; ++i)
    if (i !== shape.planted) assert.ok(u.q_mean[shape.planted] > 5 * u.q_mean[i], `pair ${i}: ${u.q_mean[i]}`);
  assert.equal(u.context, shape.context);
  assert.ok(u.beyond_context > 0);
  const layerBytes = (shape.heads + shape.kvHeads) * shape.headDim * shape.hidden * 2 + shape.hidden * 2;
  // layer 0's norm came with the load, which read layer 0's q and k (two embedding rows, the norm, one head's rows)
  // for the dot product's default tokens: the walk did not read it again
  assert.equal(u.bytes_read, shape.layers * layerBytes - shape.hidden * 2);
  // what the load read stays held (the headers, and layer 0's rows for the dot product); the walk adds one layer at
  // most
  const loadBytes = s.weights.bytes_read - u.bytes_read;
  assert.ok(loadBytes >= headerBytes);
  assert.ok(u.held_max <= loadBytes + layerBytes,
    `held at most ${u.held_max} bytes (load ${loadBytes}, layer ${layerBytes})`);
  assert.ok(s.weights.bytes_read < fileBytes / 2, `read ${s.weights.bytes_read} of ${fileBytes}`);
  assert.ok(!s.weights_load.active);
  assert.equal(s.panel_bottom, 'rope_usage');
  await page.waitForFunction(() => /Frequencies in use panel: done: 6 of 6 layers measured/.test(
    document.getElementById('a11y').textContent), null, { timeout: 10000 });
  const words = await page.evaluate(() => document.getElementById('a11y').textContent);
  assert.match(words, /Strongest \(q gain × k gain\): pair 3/);
  fs.mkdirSync(artifactDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactDir, 'rope-usage-1600x1000.png') });
  const shot = await page.evaluate(() => window.ropeviz.png('rope_usage'));
  fs.writeFileSync(path.join(artifactDir, 'rope-usage-panel.png'), Buffer.from(shot.png.split(',')[1], 'base64'));
  fs.writeFileSync(path.join(artifactDir, 'rope-usage.txt'),
    `a ${shape.layers}-layer llama-shaped BF16 checkpoint (${fileBytes} bytes): ` +
    `loaded and walked in ${Math.round(ms)} ms, ` +
    `${u.bytes_read} bytes read by the walk, at most ${u.held_max} held, ` +
    `core ${u.layer_ms_median.toFixed(2)} ms per layer\n`);
  page.assertClean();
  await page.closeAll();
});
