#!/usr/bin/env python3
"""Writes the single-file page: web/shell.html with the app's JavaScript and its wasm inlined, for file://.

The wasm goes in as one JavaScript string whose characters U+0000..U+00FF are its bytes, handed to the app as
Module.wasmBinary (so nothing is fetched, not even a data: URL). Written as UTF-8 and gzipped, such a string
is about 17% smaller than base64 (Emscripten's SINGLE_FILE), whose 6-bit symbols gzip cannot pack back.

  python3 web/single_file.py SHELL.html ropeviz.js ropeviz.wasm OUT.html
"""
import sys

_ESCAPES = {0x5C: "\\\\", 0x22: '\\"', 0x0A: "\\n", 0x0D: "\\r", 0x00: "\\x00",
            0x3C: "\\x3c"}  # '<': no "</script" can end the element early


def wasm_literal(data):
    """A JavaScript string literal holding data's bytes as characters 0..255."""
    table = [_ESCAPES.get(b, chr(b)) for b in range(256)]
    return '"' + "".join(table[b] for b in data) + '"'


def page(shell, js, wasm):
    loader = ("<script>\n// The app's wasm, inlined: character i of this string is byte i.\n"
              "var Module = {wasmBinary: (function (s) {\n"
              "  var bytes = new Uint8Array(s.length);\n"
              "  for (var i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);\n"
              "  return bytes;\n"
              "})(" + wasm_literal(wasm) + ")};\n</script>\n")
    if "</script" in js.lower():
        sys.exit("single_file: ropeviz.js contains '</script', which would end its inline element")
    if "{{{ SCRIPT }}}" not in shell:
        sys.exit("single_file: the shell has no {{{ SCRIPT }}} placeholder")
    return shell.replace("{{{ SCRIPT }}}", loader + "<script>\n" + js + "\n</script>")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    shell_path, js_path, wasm_path, out_path = sys.argv[1:]
    with open(shell_path, encoding="utf-8") as f:
        shell = f.read()
    with open(js_path, encoding="utf-8") as f:
        js = f.read()
    with open(wasm_path, "rb") as f:
        wasm = f.read()
    with open(out_path, "w", encoding="utf-8", newline="") as f:
        f.write(page(shell, js, wasm))
