// Unpacks the single file's inlined wasm (web/single_file.py) into Module.wasmBinary, with web/unlzma.c's decoder,
// and runs the app's code packed after it (LZMA packs it smaller than gzip packs an inline script; the page's policy
// holds its sha256, web/csp.py).
var rvAppCode, Module = {wasmBinary: (function (text, decoderBase64) {
  'use strict';
  // The text is windows-1252: each character is one byte, 0x80..0x9F through that charset's table, a NUL byte
  // came through the HTML parser as U+FFFD (byteOf 0), and ESCAPE x stands for byte x ^ 0x40 (CR, which the
  // parser would turn into LF, a '<' before '/' or '!', and ESCAPE itself); ESCAPE is the text's first character.
  var high = '\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f' +
             '\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178';
  var byteOf = new Uint8Array(0x10000), c, i, n = 0;
  for (c = 0; c < 256; c++) byteOf[c] = c;
  for (c = 0; c < 32; c++) byteOf[high.charCodeAt(c)] = 128 + c;
  var escape = text.charCodeAt(0), packed = new Uint8Array(text.length);
  for (i = 1; i < text.length; i++) {
    c = text.charCodeAt(i);
    packed[n++] = c === escape ? byteOf[text.charCodeAt(++i)] ^ 0x40 : byteOf[c];
  }
  // The decoder is a 2 KB wasm (compiled at once: small enough for the main thread) whose memory holds the
  // packed bytes at its heap base and the unpacked ones after them. packed[0..3] is the wasm's size, then the
  // LZMA stream's header: packed[5..8] is the unpacked size (the wasm, then the app's ASCII code).
  var decoder = new WebAssembly.Instance(new WebAssembly.Module(
    Uint8Array.from(atob(decoderBase64), function (ch) { return ch.charCodeAt(0); })), {}).exports;
  function word(at) {
    return (packed[at] | (packed[at + 1] << 8) | (packed[at + 2] << 16) | (packed[at + 3] << 24)) >>> 0;
  }
  var wasmSize = word(0), size = word(5);
  var memory = decoder.memory, base = decoder.__heap_base.value, need = base + n + size;
  if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
  new Uint8Array(memory.buffer, base, n).set(packed.subarray(0, n));
  if (decoder.unlzma(base + 4, base + n) !== size) throw new Error('the inlined wasm does not unpack');
  var unpacked = new Uint8Array(memory.buffer, base + n, size);
  rvAppCode = new TextDecoder().decode(unpacked.subarray(wasmSize));
  return unpacked.slice(0, wasmSize);
})(document.getElementById('wasm-lzma').textContent, '{{{ UNLZMA }}}')};
// The app's code runs next, as an inline script right after this one (Module is set by then).
(function (app) {
  app.textContent = rvAppCode;
  rvAppCode = null;
  document.currentScript.after(app);
})(document.createElement('script'));
