#!/usr/bin/env python3
"""Writes the single-file page: web/shell.html with the app's JavaScript and its wasm inlined, for file://.

The page is windows-1252 (one byte per character), and the wasm goes in as one JavaScript string with one
character per byte, handed to the app as Module.wasmBinary (nothing is fetched, not even a data: URL). Each byte
is stored rotated by a constant chosen so that the few bytes a string literal must escape are rare. gzip packs the
page within 1% of the gzipped wasm and JavaScript apart; the same string in a UTF-8 page (two bytes for each byte
over 127) packed 9% larger, base64 (Emscripten's SINGLE_FILE) more.

  python3 web/single_file.py SHELL.html ropeviz.js ropeviz.wasm OUT.html
"""
import collections
import re
import sys

# Bytes a JavaScript string literal in an HTML <script> cannot hold as themselves; '<' so that no "</script" or
# "<!--" changes how the HTML parser reads the element.
_ESCAPES = {0x5C: b"\\\\", 0x22: b'\\"', 0x0A: b"\\n", 0x0D: b"\\r", 0x00: b"\\x00", 0x3C: b"\\x3c"}
# The characters windows-1252 gives bytes 0x80..0x9F (the five it leaves undefined decode to U+0081.. themselves).
_HIGH = ("\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f"
         "\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178")
_CHARSET = re.compile(r'<meta charset="utf-8">', re.I)
_CODE = re.compile(r"<(script|style)[^>]*>(.*?)</\1>", re.S | re.I)


def rotation(data):
    """The shift of every byte that makes the bytes needing an escape rarest."""
    counts = collections.Counter(data)
    return min(range(256), key=lambda k: sum(counts[(e - k) & 255] for e in _ESCAPES))


def wasm_literal(data, shift):
    """A JavaScript string literal (windows-1252 bytes) whose character i is byte i of data plus shift."""
    table = [_ESCAPES.get(b, bytes([b])) for b in range(256)]
    return b'"' + b"".join(table[(b + shift) & 255] for b in data) + b'"'


def loader(wasm):
    shift = rotation(wasm)
    high = "".join("\\u%04x" % ord(c) for c in _HIGH)
    return ("<script>\n"
            "// The app's wasm, inlined: character i of this string is byte i plus %d (mod 256), as windows-1252.\n"
            "var Module = {wasmBinary: (function (s) {\n"
            "  var high = \"%s\", byte = new Uint8Array(0x2200), bytes = new Uint8Array(s.length);\n"
            "  for (var c = 0; c < 256; c++) byte[c] = c;\n"
            "  for (c = 0; c < 32; c++) byte[high.charCodeAt(c)] = 128 + c;\n"
            "  for (var i = 0; i < s.length; i++) bytes[i] = byte[s.charCodeAt(i)] - %d;\n"
            "  return bytes;\n"
            "})(" % (shift, high, shift)).encode("ascii") + wasm_literal(wasm, shift) + b")};\n</script>\n"


def page(shell, js, wasm):
    if not _CHARSET.search(shell):
        sys.exit('single_file: the shell has no <meta charset="utf-8"> to make windows-1252')
    if "{{{ SCRIPT }}}" not in shell:
        sys.exit("single_file: the shell has no {{{ SCRIPT }}} placeholder")
    if any(not code.isascii() for _, code in _CODE.findall(shell)):
        sys.exit("single_file: the shell's <script> or <style> has a non-ASCII character (no &#x; there)")
    if not js.isascii():
        sys.exit("single_file: ropeviz.js has a non-ASCII character, which a windows-1252 page would change")
    if "</script" in js.lower():
        sys.exit("single_file: ropeviz.js contains '</script', which would end its inline element")
    shell = _CHARSET.sub('<meta charset="windows-1252">', shell)
    before, after = (s.encode("ascii", "xmlcharrefreplace") for s in shell.split("{{{ SCRIPT }}}"))
    return before + loader(wasm) + b"<script>\n" + js.encode("ascii") + b"\n</script>" + after


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
    with open(out_path, "wb") as f:
        f.write(page(shell, js, wasm))
