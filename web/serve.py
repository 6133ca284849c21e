#!/usr/bin/env python3
"""Serves the web build on 127.0.0.1 for `make run`: refuses clearly when the port is taken."""
import argparse
import functools
import http.server
import os
import socket
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript", ".html": "text/html; charset=utf-8"}

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, default=8080)
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.root, "index.html")):
        sys.exit(f"serve: {args.root}/index.html is missing: build the web app first (make web)")
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port),
                                                 functools.partial(Handler, directory=args.root))
    except OSError as e:
        sys.exit(f"serve: port {args.port} on 127.0.0.1 is not available ({e.strerror}); "
                 f"choose another with PORT=8081 make run")
    print(f"ropeviz is served at http://127.0.0.1:{server.server_address[1]}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
