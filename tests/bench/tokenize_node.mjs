// Hugging Face's JS tokenizer (@huggingface/tokenizers, installed in tests/tokenizer/node_modules) in node: encode of
// tokenize_texts.mjs's 1 MB English and mixed-script texts with the fixture tokenizers bench_tokenize.cpp uses, best
// of 3, in MB/s and tokens/s. The anchor of tokenize_browser.mjs's side-by-side table.
// Usage: node tokenize_node.mjs   (prints SKIP and exits 0 when the npm package is not installed)
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { textBytes, textNames, tokenizeTexts } from './tokenize_texts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// [label, fixture directory]: the same as bench_tokenize.cpp's
export const benchTokenizers = [['smollm2', 'smollm2_digits_bytelevel'], ['llama2', 'llama2_spm_bytefallback'],
  ['llama3', 'llama3_split_bytelevel']];
export const tokenizerJson = (dir) =>
  fs.readFileSync(path.join(root, 'tests/fixtures/tokenizers', dir, 'tokenizer.json'), 'utf8');

// The package's Tokenizer class (as tests/tokenizer/crosscheck.mjs imports it), or null when it is not installed.
export async function jsTokenizer() {
  try {
    const entry = createRequire(path.join(root, 'tests/tokenizer/package.json')).resolve('@huggingface/tokenizers');
    return (await import(pathToFileURL(entry.replace(/\.cjs$/, '.mjs')).href)).Tokenizer;
  } catch {
    return null;
  }
}

// Best of `runs` encodes of text (a string) by a tokenizer of Tokenizer: {ms, tokens}.
export function bestNode(Tokenizer, json, text, runs = 3) {
  const tok = new Tokenizer(JSON.parse(json), { clean_up_tokenization_spaces: false });
  let ms = Infinity, tokens = 0;
  for (let i = 0; i < runs; ++i) {
    const t0 = performance.now();
    tokens = tok.encode(text, { add_special_tokens: false }).ids.length;
    ms = Math.min(ms, performance.now() - t0);
  }
  return { ms, tokens };
}

export const rateLine = (label, r) => `${label}: ${(textBytes / 1e3 / r.ms).toFixed(2)} MB/s, ` +
  `${Math.round(r.tokens / r.ms * 1e3)} tokens/s (${r.tokens} tokens, best ${r.ms.toFixed(0)} ms)`;

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const Tokenizer = await jsTokenizer();
  if (!Tokenizer) {
    console.log('SKIP: @huggingface/tokenizers is not installed (run setup.sh, or npm ci in tests/tokenizer)');
    process.exit(0);
  }
  const texts = tokenizeTexts();
  for (const [label, dir] of benchTokenizers)
    for (const name of textNames)
      console.log(rateLine(`@huggingface/tokenizers ${label} ${name}`,
        bestNode(Tokenizer, tokenizerJson(dir), texts[name].toString('utf8'))));
}
