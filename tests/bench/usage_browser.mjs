// Browser benchmark of the Frequencies in use walk (not a test: numbers for the note): in headless Chromium, a
// Llama-2-7B-shaped BF16 checkpoint of LAYERS layers (default 3; q_proj and k_proj 4096 x 4096, 32 heads of 128) and a
// SmolLM2-135M-shaped one (30 layers, hidden 576, 9 heads, 3 key heads, head_dim 64), each made in the page and opened
// with loadWeights: core's median time per layer (state().weights.rope_usage.layer_ms_median), the wall time from the
// files to the finished walk, and the bytes held at most.
import { launch, openPage, startServer, ready } from '../web/lib.mjs';

const layers = Number(process.env.LAYERS || 3);
const server = await startServer();
const browser = await launch();

async function walk(shape) {
  const page = await openPage(browser, { allowed: (url) => url.startsWith(server.origin + '/') });
  await page.goto(`${server.origin}/#tab_bottom=rope_usage`);
  await ready(page);
  const r = await page.evaluate(async (m) => {
    const header = {};
    let at = 0;
    for (let l = 0; l < m.layers; ++l)
      for (const [name, rows, cols] of [['input_layernorm.weight', 0, m.hidden],
        ['self_attn.q_proj.weight', m.heads * m.headDim, m.hidden],
        ['self_attn.k_proj.weight', m.kv * m.headDim, m.hidden]]) {
        const n = (rows || 1) * cols * 2;
        header[`model.layers.${l}.${name}`] = {
          dtype: 'BF16', shape: rows ? [rows, cols] : [cols], data_offsets: [at, at + n] };
        at += n;
      }
    let json = JSON.stringify(header);
    json += ' '.repeat((8 - (json.length % 8)) % 8);
    const head = new Uint8Array(8 + json.length);
    new DataView(head.buffer).setUint32(0, json.length, true);
    head.set(new TextEncoder().encode(json), 8);
    const body = new Uint16Array(at / 2);
    let s = 1;
    for (let i = 0; i < body.length; ++i) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      body[i] = 0x3c00 + (s >>> 22) | ((s & 1) << 15);
    }
    const config = JSON.stringify({ model_type: 'llama', hidden_size: m.hidden, num_attention_heads: m.heads,
      num_key_value_heads: m.kv, head_dim: m.headDim, max_position_embeddings: 4096, rope_theta: 10000 });
    const files = [new File([head, body], 'model.safetensors'), new File([config], 'config.json')];
    const t0 = performance.now();
    const st = await window.ropeviz.loadWeights(files);
    return { ms: performance.now() - t0, u: st.weights.rope_usage, bytes: 8 + json.length + at, heap: st.memory_bytes };
  }, shape);
  await page.closeAll();
  return r;
}

const llama = await walk({ layers, hidden: 4096, heads: 32, kv: 32, headDim: 128 });
console.log(`Llama-2-7B-shaped BF16, ${layers} layers (${llama.bytes} bytes): ` +
  `core ${llama.u.layer_ms_median.toFixed(1)} ms ` +
  `per layer (median), ${(llama.ms / 1000).toFixed(2)} s from the files to the walked layers, ` +
  `at most ${llama.u.held_max} ` +
  `bytes held, heap ${llama.heap} bytes`);
const smol = await walk({ layers: 30, hidden: 576, heads: 9, kv: 3, headDim: 64 });
console.log(`SmolLM2-135M-shaped BF16, 30 layers (${smol.bytes} bytes): ` +
  `core ${smol.u.layer_ms_median.toFixed(2)} ms per ` +
  `layer (median), ${(smol.ms / 1000).toFixed(2)} s from the files to the walked layers, ${smol.u.layers} layers`);
await browser.close();
await server.close();
