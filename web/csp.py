#!/usr/bin/env python3
"""The page's Content-Security-Policy, in one place: `make run`'s header and the <meta> of the built pages.

Only the page's own code runs: script from 'self' plus the sha256 of each inline <script> and of
the app's code the single file packs with its wasm (data-code-sha256: web/unpack.js runs it as an
inline script) and of each inline event handler ('unsafe-hashes': the canvas's
oncontextmenu), wasm compilation ('wasm-unsafe-eval': Chromium asks for it for every
WebAssembly.instantiate, from a fetched file or from the single file's inlined bytes), styles only
by the hash of the shell's <style> block, images only the data: favicon, fetches only 'self' (the
served ropeviz.wasm; the single file hands its inlined wasm over as Module.wasmBinary and fetches
nothing) and the Hugging Face Hub's hosts, which the page asks only when the user presses fetch.
Exports are blob: downloads through <a download>, which no fetch directive governs; the clipboard
needs none either. Workers (the lab's runs, one per method and seed): the served page's own
ropeviz.js ('self'), or for the single file, which has no file of its own to name, only a blob: URL of the code it
already runs (web/page.js); no other worker either way.

  python3 web/csp.py FILE.html   writes FILE's policy into its <meta http-equiv> ({{{ CSP }}}).
"""
import base64
import codecs
import hashlib
import html
import re
import sys

PLACEHOLDER = "{{{ CSP }}}"
# fetches: the served ropeviz.wasm, and the Hugging Face Hub when the user asks for a model by repo id
# (docs/real-weights.md): huggingface.co's resolve URLs redirect to a file host under hf.co
# (cas-bridge.xethub.hf.co, cdn-lfs*.hf.co)
HUB_HOSTS = ["'self'", "https://huggingface.co", "https://*.hf.co"]
# inline code only: not a <script src>, nor a data block that never runs (a type other than a classic script's or a
# module's: the single file's packed wasm, the UI shader's text)
_script = re.compile(r"<script(?![^>]*\ssrc=)(?![^>]*\stype=\"(?!(?:text/javascript|module)\"))[^>]*>(.*?)</script>",
                     re.S | re.I)
_style = re.compile(r"<style[^>]*>(.*?)</style>", re.S | re.I)
_handler = re.compile(r"\son[a-z]+=\"([^\"]*)\"", re.I)
# code the page runs from its packed data (web/single_file.py: the app's script, which web/unpack.js inserts)
_packed_code = re.compile(r"<script[^>]*\sdata-code-sha256=\"([A-Za-z0-9+/=]+)\"", re.I)


def _sha(text):
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # what the HTML parser hands to CSP
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def policy(page):
    """The policy for this HTML text (the <meta> itself holds no script, so stamping keeps it stable)."""
    scripts = [_sha(s) for s in _script.findall(page)] + [f"'sha256-{h}'" for h in _packed_code.findall(page)]
    handlers = [_sha(html.unescape(h)) for h in _handler.findall(page)]
    styles = [_sha(s) for s in _style.findall(page)]
    script_src = ["'self'", "'wasm-unsafe-eval'"] + scripts + (["'unsafe-hashes'"] + handlers if handlers else [])
    return "; ".join([
        "default-src 'none'",
        "script-src " + " ".join(dict.fromkeys(script_src)),
        "style-src " + (" ".join(dict.fromkeys(styles)) or "'none'"),
        "img-src data:",
        "connect-src " + " ".join(HUB_HOSTS),
        "worker-src " + ("blob:" if _packed_code.search(page) else "'self'"),
        "base-uri 'none'",
        "form-action 'none'",
    ])


def _windows_1252(error):
    """The browser's windows-1252: the five bytes Python's cp1252 leaves undefined are U+0081.. themselves."""
    return chr(error.object[error.start]), error.start + 1


codecs.register_error("whatwg", _windows_1252)


def charset(data):
    """The charset a built page declares: the single file is windows-1252 (web/single_file.py), index.html UTF-8."""
    return "windows-1252" if b'<meta charset="windows-1252">' in data[:1024] else "utf-8"


def text(data):
    """A built page's bytes as the browser decodes them, which is the text its hashes are taken over."""
    return data.decode("cp1252", "whatwg") if charset(data) == "windows-1252" else data.decode("utf-8")


def stamp(path):
    with open(path, "rb") as f:
        data = f.read()
    page = text(data)
    if PLACEHOLDER not in page:
        sys.exit(f"csp: {path} has no {PLACEHOLDER} to fill (web/shell.html's <meta http-equiv>)")
    with open(path, "wb") as f:
        f.write(data.replace(PLACEHOLDER.encode(), policy(page).encode("ascii"), 1))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        stamp(p)
