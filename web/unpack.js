// Unpacks the single file's inlined wasm (web/single_file.py) into Module.wasmBinary, with web/unlzma.c's decoder,
// and the app's code packed after it (LZMA packs it smaller than gzip packs an inline script), which rvStartApp runs
// as an inline script (the page's policy holds its sha256, web/csp.py). This runs first in the body, before the
// shell's script makes the WebGL context, and the shell's last script calls rvStartApp. With a software GPU the
// order trades one case for another (medians of fresh headless browsers here): in a new window, whose own start-up
// keeps the GPU process busy, this thread unpacks meanwhile (ready 480 -> 402 ms); in a window that has settled, the
// context asked after the unpack waits behind the browser's repaint of its loading tab (ready 209 -> 272 ms).
var rvStartApp, Module = {wasmBinary: (function (text) {
  'use strict';
  // The text is windows-1252: each character is one byte, 0x80..0x9F through that charset's table (high), a NUL byte
  // came through the HTML parser as U+FFFD (byteOf 0), and ESCAPE x stands for byte x ^ 0x40 if that is CR (which
  // the parser would turn into LF), '<' (before '/' or '!') or ESCAPE itself; ESCAPE is the text's first character
  // and stands for itself before any other character.
  var high = new TextDecoder('windows-1252').decode(Uint8Array.from({length: 32}, function (_, k) { return 128 + k; }));
  var byteOf = new Uint8Array(0x10000), c, i, n = 0;
  for (c = 0; c < 256; c++) byteOf[c] = c;
  for (c = 0; c < 32; c++) byteOf[high.charCodeAt(c)] = 128 + c;
  var escape = text.charCodeAt(0), packed = new Uint8Array(text.length), b;
  for (i = 1; i < text.length; i++) {
    c = text.charCodeAt(i);
    b = c === escape && i + 1 < text.length ? byteOf[text.charCodeAt(i + 1)] ^ 0x40 : -1;
    if (b === 13 || b === 60 || b === byteOf[escape]) i++;  // a pair: ESCAPE then byte ^ 0x40
    else b = byteOf[c];
    packed[n++] = b;
  }
  // packed: the decoder's size and bytes (web/unlzma.c's wasm, 2 KB: compiled at once, small enough for the main
  // thread), the wasm's size, the first LZMA stream's length, then the two streams, each with its unpacked size in
  // its bytes 1..4. The decoder's memory holds the streams at its heap base and the unpacked bytes after them: the
  // first stream unpacks to the wasm's start, the second to the rest of it and then the app's ASCII code.
  function word(at) {
    return (packed[at] | (packed[at + 1] << 8) | (packed[at + 2] << 16) | (packed[at + 3] << 24)) >>> 0;
  }
  var code = 4 + word(0), wasmSize = word(code), at = code + 8, second = at + word(code + 4);
  var first = word(at + 1), size = first + word(second + 1), streams = packed.subarray(at, n);
  var decoder = new WebAssembly.Instance(new WebAssembly.Module(packed.subarray(4, code)), {}).exports;
  var memory = decoder.memory, base = decoder.__heap_base.value, end = base + streams.length;
  if (end + size > memory.buffer.byteLength) memory.grow(Math.ceil((end + size - memory.buffer.byteLength) / 65536));
  new Uint8Array(memory.buffer, base, streams.length).set(streams);
  // A stream unpacked in 32 KB slices: the engine runs a call to its end in the code it started with, and the
  // decoder's optimised code, compiled while the first slices run, unpacks the rest (the first stream took 64 ms
  // in one call, 30 ms in slices). -1 if it does not unpack.
  function unlzma(stream, out) {
    var total = decoder.unlzma_start(stream, out), done = 0, now;
    while (done < total) {
      now = decoder.unlzma_run(done + 32768);
      if (now <= done) return -1;
      done = now;
    }
    return total;
  }
  if (unlzma(base, end) !== first || unlzma(base + second - at, end + first) !== size - first) {
    throw new Error('the inlined wasm does not unpack');
  }
  var unpacked = new Uint8Array(memory.buffer, end, size), code = new TextDecoder().decode(unpacked.subarray(wasmSize));
  // Runs the app's code as an inline script after `script` (the shell's last), once.
  rvStartApp = function (script) {
    var app = document.createElement('script');
    app.textContent = code;
    code = rvStartApp = null;
    script.after(app);
  };
  return unpacked.slice(0, wasmSize);
})(document.getElementById('wasm-lzma').textContent)};
