#!/usr/bin/env python3
"""The page's Content-Security-Policy, in one place: `make run`'s header and the <meta> of the built pages.

Only the page's own code runs: script from 'self' plus the sha256 of each inline <script> (the
single file inlines the whole app) and of each inline event handler ('unsafe-hashes': the canvas's
oncontextmenu), wasm compilation ('wasm-unsafe-eval': Chromium asks for it for every
WebAssembly.instantiate, from a fetched file or from the single file's inlined bytes), styles only
by the hash of the shell's <style> block, images only the data: favicon, fetches only 'self' (the
served ropeviz.wasm; the single file hands its inlined wasm over as Module.wasmBinary and fetches
nothing). Exports are blob: downloads through <a download>, which no fetch directive
governs; the clipboard needs none either.

  python3 web/csp.py FILE.html   writes FILE's policy into its <meta http-equiv> ({{{ CSP }}}).
"""
import base64
import hashlib
import html
import re
import sys

PLACEHOLDER = "{{{ CSP }}}"
_script = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.S | re.I)
_style = re.compile(r"<style[^>]*>(.*?)</style>", re.S | re.I)
_handler = re.compile(r"\son[a-z]+=\"([^\"]*)\"", re.I)


def _sha(text):
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # what the HTML parser hands to CSP
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def policy(page):
    """The policy for this HTML text (the <meta> itself holds no script, so stamping keeps it stable)."""
    scripts = [_sha(s) for s in _script.findall(page)]
    handlers = [_sha(html.unescape(h)) for h in _handler.findall(page)]
    styles = [_sha(s) for s in _style.findall(page)]
    script_src = ["'self'", "'wasm-unsafe-eval'"] + scripts + (["'unsafe-hashes'"] + handlers if handlers else [])
    return "; ".join([
        "default-src 'none'",
        "script-src " + " ".join(dict.fromkeys(script_src)),
        "style-src " + (" ".join(dict.fromkeys(styles)) or "'none'"),
        "img-src data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
    ])


def stamp(path):
    with open(path, encoding="utf-8", newline="") as f:
        page = f.read()
    if PLACEHOLDER not in page:
        sys.exit(f"csp: {path} has no {PLACEHOLDER} to fill (web/shell.html's <meta http-equiv>)")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(page.replace(PLACEHOLDER, policy(page)))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        stamp(p)
