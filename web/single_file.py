#!/usr/bin/env python3
"""Writes the single-file page: web/shell.html with the app's JavaScript and its wasm inlined, for file://.

The wasm and then the app's JavaScript go in LZMA-packed (18% smaller than gzip packs the wasm, 10% the code),
after web/unlzma.c's decoder (unlzma.wasm), as the text of a <script type="application/octet-stream"> that never
runs, one windows-1252 character per byte, first in the body; web/unpack.js, right after it, turns it back into
the bytes, unpacks them and hands the wasm to the app as Module.wasmBinary (nothing is fetched, not even a data:
URL); at the shell's {{{ SCRIPT }}}, after its context script, rvStartApp runs the code as an inline script,
which the policy allows by the sha256 that data-code-sha256 carries to web/csp.py. The page is windows-1252 so
that every byte is one character: in UTF-8 each byte over 127 would take two.

The shell's {{{ UI_SHADER }}} becomes the UI shader as shipped (UI_SHADER.glsl, src/assets/embed_shaders.cmake).

  python3 web/single_file.py SHELL.html ropeviz.js ropeviz.wasm web/unpack.js unlzma.wasm UI_SHADER.glsl OUT.html
"""
import base64
import collections
import hashlib
import itertools
import lzma
import re
import sys

_CHARSET = re.compile(r'<meta charset="utf-8">', re.I)
_CODE = re.compile(r"<(script|style)[^>]*>(.*?)</\1>", re.S | re.I)
# Bytes the HTML parser would change inside a <script> (CR becomes LF) or read as markup ('<' before '/' or '!');
# NUL comes through as U+FFFD, which no windows-1252 byte decodes to, so web/unpack.js maps it back.
_CR, _LT, _SPECIAL_NEXT = 0x0D, 0x3C, (0x2F, 0x21)
# The sources' comments and indentation, which the page does not need (0.9 KB gzip): the shell's HTML and CSS
# comments and the whole-line // comments of its inline scripts and of unpack.js (whose first line stays: it names
# the script).
_HTML_COMMENT = re.compile(r"<!--.*?-->\n?", re.S)
_CSS_COMMENT = re.compile(r"[ \t]*/\*.*?\*/\n?", re.S)
_LINE_COMMENT = re.compile(r"^[ \t]*//.*\n", re.M)


_INDENT = re.compile(r"\n[ \t]+")


def uncommented(shell):
    """The shell without its comments, and its <style> and <script> without their indentation."""
    shell = _HTML_COMMENT.sub("", shell)
    return _CODE.sub(lambda m: m.group(0).replace(m.group(2), _INDENT.sub("\n", (
        _LINE_COMMENT if m.group(1).lower() == "script" else _CSS_COMMENT).sub("", m.group(2)))), shell)


def lzma_packed(data):
    """data as raw LZMA behind a 5-byte header (lc/lp/pb, size), with the literal settings and match length that
    pack it best (the longest matches the encoder looks for change its parse: 0.2 KB on the page)."""
    best = None
    for lc, pb, nice in itertools.product((2, 3, 4), (0, 1), (96, 192, 273)):
        body = lzma.compress(data, format=lzma.FORMAT_RAW, filters=[
            {"id": lzma.FILTER_LZMA1, "preset": 9 | lzma.PRESET_EXTREME, "lc": lc, "lp": 0, "pb": pb,
             "nice_len": nice}])
        if best is None or len(body) < len(best[1]):
            best = ((pb * 5) * 9 + lc, body)
    return bytes([best[0]]) + len(data).to_bytes(4, "little") + best[1]


def data_section_start(wasm):
    """Where the wasm's data section (id 11, the last: texts, tables, the font) begins, or its end if it has none."""
    at = 8
    while at < len(wasm):
        size, shift, end = 0, 0, at + 1
        while True:
            size |= (wasm[end] & 0x7F) << shift
            shift += 7
            end += 1
            if wasm[end - 1] < 0x80:
                break
        if wasm[at] == 11:
            return at
        at = end + size
    return len(wasm)


def packed(unlzma, wasm, code):
    """The decoder's size and bytes (raw, which gzip packs 0.3 KB smaller than base64), the wasm's size, the first
    stream's length, then two LZMA streams: the wasm's code (everything before its data section), and its data
    followed by the app's code. Text and machine code pack best with different literal settings: two streams are
    0.3 KB smaller than one."""
    split = data_section_start(wasm)
    first = lzma_packed(wasm[:split])
    return (len(unlzma).to_bytes(4, "little") + unlzma + len(wasm).to_bytes(4, "little") +
            len(first).to_bytes(4, "little") + first + lzma_packed(wasm[split:] + code))


def escaped(packed):
    """packed as script text: its escape byte first, then each byte, or escape + byte ^ 0x40 where the parser
    would change it (CR; a '<' before '/' or '!'). The escape byte stands for itself unless the next character
    would make such a pair with it, so it rarely takes two characters (escaping each of them cost 1.1 KB)."""
    counts = collections.Counter(packed)
    unsafe = {0x00, _CR, _LT, *_SPECIAL_NEXT}
    # the escape must not be a pair's second character itself, or an escaped byte after it would read as a pair
    seconds = {_CR ^ 0x40, _LT ^ 0x40}
    escape = min((b for b in range(256) if b not in unsafe | seconds and b ^ 0x40 not in unsafe),
                 key=lambda b: counts[b])
    seconds.add(escape ^ 0x40)
    out = bytearray([escape])
    for i, b in enumerate(packed):
        follow = packed[i + 1] if i + 1 < len(packed) else None
        if b == _CR or (b == _LT and follow in _SPECIAL_NEXT) or (b == escape and follow in seconds):
            out += bytes([escape, b ^ 0x40])
        else:
            out.append(b)
    return bytes(out)


def page(shell, js, wasm, unpack, unlzma, shader):
    if not _CHARSET.search(shell):
        sys.exit('single_file: the shell has no <meta charset="utf-8"> to make windows-1252')
    if "{{{ SCRIPT }}}" not in shell or "<body>\n" not in shell.split("{{{ SCRIPT }}}")[0]:
        sys.exit("single_file: the shell has no <body> line before a {{{ SCRIPT }}} placeholder")
    if any(not code.isascii() for _, code in _CODE.findall(shell)):
        sys.exit("single_file: the shell's <script> or <style> has a non-ASCII character (no &#x; there)")
    for name, code in (("ropeviz.js", js), ("unpack.js", unpack)):
        if not code.isascii():
            sys.exit(f"single_file: {name} has a non-ASCII character, which a windows-1252 page would change")
        if "</script" in code.lower():
            sys.exit(f"single_file: {name} contains '</script', which would end its inline element")
    name, rest = unpack.split("\n", 1)
    unpack = name + "\n" + _INDENT.sub("\n", _LINE_COMMENT.sub("", rest))
    if "{{{ UI_SHADER }}}" not in shell or not shader.isascii() or "</" in shader:
        sys.exit("single_file: no {{{ UI_SHADER }}} in the shell, or a shader it cannot hold as ASCII script text")
    shell = _CHARSET.sub('<meta charset="windows-1252">', uncommented(shell)).replace("{{{ UI_SHADER }}}", shader)
    before, after = (s.encode("ascii", "xmlcharrefreplace") for s in shell.split("{{{ SCRIPT }}}"))
    code = ("\n" + js + "\n").encode("ascii")
    sha = base64.b64encode(hashlib.sha256(code).digest()).decode("ascii")
    # first in the body, before the shell's context script (web/unpack.js says why); the app starts at the end
    unpacking = (b'<script type="application/octet-stream" id="wasm-lzma" data-code-sha256="' + sha.encode("ascii") +
                 b'">' + escaped(packed(unlzma, wasm, code)) + b"</script>\n<script>\n" + unpack.encode("ascii") +
                 b"</script>\n")
    body = before.index(b"<body>\n") + len(b"<body>\n")
    return (before[:body] + unpacking + before[body:] + b"<script>rvStartApp(document.currentScript);</script>" +
            after)


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    shell_path, js_path, wasm_path, unpack_path, unlzma_path, shader_path, out_path = sys.argv[1:]
    with open(shell_path, encoding="utf-8") as f:
        shell = f.read()
    with open(js_path, encoding="utf-8") as f:
        js = f.read()
    with open(wasm_path, "rb") as f:
        wasm = f.read()
    with open(unpack_path, encoding="utf-8") as f:
        unpack = f.read()
    with open(unlzma_path, "rb") as f:
        unlzma = f.read()
    with open(shader_path, encoding="utf-8") as f:
        shader = f.read()
    with open(out_path, "wb") as f:
        f.write(page(shell, js, wasm, unpack, unlzma, shader))
