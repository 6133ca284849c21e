#!/usr/bin/env python3
"""`make run`'s server: serves the build with the wasm MIME type, and refuses a taken port clearly."""
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

here = Path(__file__).resolve().parent
root = here.parent.parent / "build" / "web"
serve = [sys.executable, str(here.parent.parent / "web" / "serve.py"), "--root", str(root)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    # A port held by someone else: a clear refusal, not a silent second server.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        r = subprocess.run(serve + ["--port", str(port)], capture_output=True, text=True, timeout=20)
        assert r.returncode != 0, "serve.py started on a taken port"
        assert f"port {port}" in r.stderr and "PORT=" in r.stderr, r.stderr

    port = free_port()
    server = subprocess.Popen(serve + ["--port", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line, line
        for _ in range(50):
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert 'id="a11y"' in page
        wasm = urllib.request.urlopen(f"http://127.0.0.1:{port}/ropeviz.wasm", timeout=5)
        assert wasm.headers["Content-Type"] == "application/wasm", wasm.headers["Content-Type"]
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("serve: 2 passed, 0 failed")


if __name__ == "__main__":
    main()
