#!/usr/bin/env python3
"""Serves the web app for `make run`: only its four files and the demo models beside them (models/, which Run it's
buttons read by range requests), GET/HEAD, with a Content-Security-Policy.

Whatever else lies in --root (the CMake build directory: CMakeCache.txt, build.ninja,
compile_commands.json with absolute paths) is never served: a request path must equal one of
DELIVERABLES exactly, so `..`, %2e%2e, absolute paths and every other name are a plain 404.
Binds 127.0.0.1 unless --host is given; refuses clearly when the port is taken.
"""
import argparse
import http.server
import os
import re
import sys

import csp

DELIVERABLES = {"/": "index.html", "/index.html": "index.html", "/ropeviz.js": "ropeviz.js",
                "/ropeviz.wasm": "ropeviz.wasm", "/ropeviz.html": "ropeviz.html"}
TYPES = {".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json",
         ".safetensors": "application/octet-stream", ".txt": "text/plain; charset=utf-8"}
# The demo models (the web build copies web/models): each folder's config.json and model.safetensors, and the text.
for _model in ("gpt2-bytes", "llama-bytes", "llama-bytes-pi4"):
    for _file in ("config.json", "model.safetensors"):
        DELIVERABLES[f"/models/{_model}/{_file}"] = f"models/{_model}/{_file}"
DELIVERABLES["/models/heldout.txt"] = "models/heldout.txt"
RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


class Handler(http.server.BaseHTTPRequestHandler):
    root = "."
    server_version = "ropeviz"
    sys_version = ""

    def do_GET(self):
        self._serve(body=True)

    def do_HEAD(self):
        self._serve(body=False)

    def __getattr__(self, name):
        # Every other method (POST, PUT, DELETE, OPTIONS, anything): 405, not the default 501.
        if name.startswith("do_"):
            return self._not_allowed
        raise AttributeError(name)

    def _not_allowed(self):
        self._reply(405, b"method not allowed\n", "text/plain; charset=utf-8", body=True, allow=True)

    def _serve(self, body):
        name = DELIVERABLES.get(self.path.split("?", 1)[0].split("#", 1)[0])
        data = None
        if name:
            try:
                with open(os.path.join(self.root, name), "rb") as f:
                    data = f.read()
            except OSError:
                pass
        if data is None:
            return self._reply(404, b"not found\n", "text/plain; charset=utf-8", body)
        ctype = TYPES.get(os.path.splitext(name)[1])
        if name.endswith(".html"):  # the charset the page declares (the single file is windows-1252)
            self._reply(200, data, "text/html; charset=" + csp.charset(data), body, policy=csp.policy(csp.text(data)))
        elif name.startswith("models/") and self.headers.get("Range"):
            self._range(data, ctype, body)
        else:
            self._reply(200, data, ctype, body)

    def _range(self, data, ctype, body):
        """One range, as the page's reads ask (bytes=A-B or A-): 206 with Content-Range; past the end, 416."""
        m = RANGE.match(self.headers.get("Range", "").strip())
        size = len(data)
        if not m or int(m.group(1)) >= size:
            return self._reply(416, b"", ctype, body, extra={"Content-Range": f"bytes */{size}"})
        lo = int(m.group(1))
        hi = min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
        if hi < lo:
            return self._reply(416, b"", ctype, body, extra={"Content-Range": f"bytes */{size}"})
        self._reply(206, data[lo:hi + 1], ctype, body, extra={"Content-Range": f"bytes {lo}-{hi}/{size}"})

    def _reply(self, code, data, ctype, body, policy="default-src 'none'", allow=False, extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", policy + "; frame-ancestors 'none'")
        self.send_header("Referrer-Policy", "no-referrer")
        if allow:
            self.send_header("Allow", "GET, HEAD")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, fmt, *args):
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help="the web build (only its deliverables are served)")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.root, "index.html")):
        sys.exit(f"serve: {args.root}/index.html is missing: build the web app first (make web)")
    Handler.root = os.path.abspath(args.root)
    try:
        server = http.server.ThreadingHTTPServer((args.host, args.port), Handler)
    except OSError as e:
        sys.exit(f"serve: port {args.port} on {args.host} is not available ({e.strerror}); "
                 f"choose another with PORT=8081 make run")
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"ropeviz is served at http://{host}:{server.server_address[1]}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
