// The tokenizer benchmarks' two texts, 1,000,000 bytes of UTF-8 each, the same bytes for every side
// (bench_tokenize.cpp, tokenize_node.mjs, tokenize_browser.mjs): English (web/models/heldout.txt repeated) and
// mixed-script (a fixed list of sentences repeated). Each is cut back to a UTF-8 boundary and padded with spaces to
// exactly 1,000,000 bytes.
// Usage: node tokenize_texts.mjs [DIR]   (default build/bench: writes DIR/tokenize_english.txt and tokenize_mixed.txt)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const textBytes = 1000000;
export const textNames = ['english', 'mixed'];

const mixedSentences = [
  'Καλημέρα κόσμε· η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο.',
  'Съешь же ещё этих мягких французских булок, да выпей чаю. Ёлка, щи и подъезд.',
  '你好，世界。今天天气很好，我们去公园散步吧！机器学习模型的位置编码。',
  'こんにちは、カタカナ・ひらがな・漢字の混ざった文です。한국어 텍스트도 있습니다.',
  'مرحبا بالعالم، هذه جملة عربية قصيرة للاختبار ١٢٣٤٥.',
  'नमस्ते दुनिया, यह हिन्दी का एक छोटा वाक्य है। १२३४५',
  'Family 👨\u200D👩\u200D👧\u200D👦, flag 🏳\uFE0F\u200D🌈, thumbs 👍🏽, scientist 🧑🏿\u200D🔬 and 🙂🙂🙂.',
  'Cafe\u0301 nai\u0308ve re\u0301sume\u0301 — Ångström, façade, jalapeño, Ærøskøbing, Łódź, Dvořák.',
  'for (int i = 0; i < n; ++i) { a[i] = b[i] * 2 + 0x7f; }  // x**2 -> {"k": [1, 2.5, -3e10]}',
  'Order 12345678901234567890 shipped 2024-03-15T12:34:56Z at 3.14159 and 2,718,281.828 units.',
  'def rope(x, theta=10000.0):\n    return x * cos(theta) + rotate_half(x) * sin(theta)\n',
  'The quick brown fox jumps over the lazy dog.\tTabs\tand  double  spaces.\r\n',
];

// Repeats `unit` (a string) to `textBytes` bytes: cut back to a UTF-8 boundary, then spaces to the exact size.
function fill(unit) {
  const one = Buffer.from(unit, 'utf8');
  const out = Buffer.alloc(textBytes, 0x20);
  for (let at = 0; at < textBytes; at += one.length) one.copy(out, at, 0, Math.min(one.length, textBytes - at));
  let lead = textBytes - 1;
  while (lead > 0 && (out[lead] & 0xc0) === 0x80) --lead;  // the last character's lead byte
  const length = out[lead] >= 0xf0 ? 4 : out[lead] >= 0xe0 ? 3 : out[lead] >= 0xc0 ? 2 : 1;
  if (lead + length > textBytes) out.fill(0x20, lead);      // cut short: spaces instead
  return out;
}

// {english, mixed}: Buffers of exactly textBytes bytes, the same on every run.
export function tokenizeTexts() {
  return {
    english: fill(fs.readFileSync(path.join(root, 'web/models/heldout.txt'), 'utf8')),
    mixed: fill(mixedSentences.join(' ') + '\n'),
  };
}

// Writes the texts to dir (made if missing); returns {name: path}.
export function writeTokenizeTexts(dir = path.join(root, 'build/bench')) {
  fs.mkdirSync(dir, { recursive: true });
  const texts = tokenizeTexts(), paths = {};
  for (const name of textNames) {
    paths[name] = path.join(dir, `tokenize_${name}.txt`);
    fs.writeFileSync(paths[name], texts[name]);
  }
  return paths;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const paths = writeTokenizeTexts(process.argv[2] && path.resolve(process.argv[2]));
  for (const name of textNames) console.log(`${paths[name]}: ${fs.statSync(paths[name]).size} bytes`);
}
