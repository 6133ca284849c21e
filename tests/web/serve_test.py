#!/usr/bin/env python3
"""`make run`'s server: serves only the app's four files (wasm MIME type, nosniff, CSP) and the demo models by range
(Run it's buttons), GET/HEAD only, refuses a taken port clearly. Prints each probe's status and key headers."""
import http.client
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


def request(port, method, path):
    # http.client sends the path exactly as written (no normalisation of .. or %2e).
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
    c.putheader("Content-Length", "0")
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    c.close()
    h = {k: r.getheader(k) for k in ("Content-Type", "X-Content-Type-Options", "Content-Security-Policy", "Allow")}
    print(f"  {method} {path} -> {r.status} " + "; ".join(f"{k}: {v}" for k, v in h.items() if v
                                                        and k != "Content-Security-Policy")
          + (f"; CSP: {h['Content-Security-Policy'][:60]}..." if h["Content-Security-Policy"] else ""))
    return r.status, h, body


def probes(port):
    # The deliverables: 200 with their type, nosniff and a policy that allows only the page's own code.
    types = {"/": "text/html; charset=utf-8", "/index.html": "text/html; charset=utf-8",
             "/ropeviz.js": "text/javascript", "/ropeviz.wasm": "application/wasm",
             "/ropeviz.html": "text/html; charset=windows-1252", "/index.html?x=1": "text/html; charset=utf-8"}
    for path, ctype in types.items():
        for method in ("GET", "HEAD"):
            status, h, body = request(port, method, path)
            assert status == 200, (method, path, status)
            assert h["Content-Type"] == ctype, (path, h)
            assert h["X-Content-Type-Options"] == "nosniff", (path, h)
            policy = h["Content-Security-Policy"]
            assert policy.startswith("default-src 'none'"), policy
            # no wildcard but the Hub's file hosts under hf.co (docs/real-weights.md)
            assert "unsafe-inline" not in policy and "'unsafe-eval'" not in policy, policy
            assert "*" not in policy.replace("https://*.hf.co", ""), policy
            assert (body == b"") == (method == "HEAD"), (method, path)
            if ctype.startswith("text/html"):
                assert ("script-src 'self' 'wasm-unsafe-eval' " in policy and
                        "connect-src 'self' https://huggingface.co https://*.hf.co;" in policy), policy
                # the lab's Web Workers: index.html starts its own ropeviz.js, the single file a blob: of its code
                workers = "worker-src blob:;" if "windows-1252" in ctype else "worker-src 'self';"
                assert workers in policy and policy.count("worker-src") == 1, policy
            else:
                # ropeviz.js, also as a worker's script, runs under nothing more: the page hands it the compiled wasm
                assert policy == "default-src 'none'; frame-ancestors 'none'", (path, policy)
    # The build directory's other files, traversal in every spelling, absolute paths: 404.
    for path in ["/CMakeCache.txt", "/build.ninja", "/compile_commands.json", "/cmake_install.cmake",
                 "/librv_imgui.a", "/single/ropeviz.html", "/CMakeFiles/", "/src/", "/include-links/",
                 "/../CMakeLists.txt", "/../../README.md", "/%2e%2e/%2e%2e/README.md", "/%2E%2E/web/serve.py",
                 "/..%2fCMakeCache.txt", "/./CMakeCache.txt", "/./index.html", "//etc/passwd", "/etc/passwd",
                 "http://127.0.0.1/CMakeCache.txt", "/index.html/", "/INDEX.HTML", "/ropeviz.js.map", "/%69ndex.html"]:
        status, h, body = request(port, "GET", path)
        assert status == 404, (path, status)
        assert h["X-Content-Type-Options"] == "nosniff", (path, h)
        assert b"CMAKE" not in body and b"ninja" not in body, path
    # The demo models beside the page, read by range as the page reads them; other names under models/: 404.
    size = (root / "models" / "llama-bytes" / "model.safetensors").stat().st_size
    for rng, code, content_range, length in [("bytes=0-7", 206, f"bytes 0-7/{size}", 8),
                                             (f"bytes={size - 4}-", 206, f"bytes {size - 4}-{size - 1}/{size}", 4),
                                             (f"bytes=0-{size + 100}", 206, f"bytes 0-{size - 1}/{size}", size),
                                             (f"bytes={size}-", 416, f"bytes */{size}", 0)]:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/models/llama-bytes/model.safetensors", headers={"Range": rng})
        r = c.getresponse()
        body = r.read()
        c.close()
        print(f"  GET models/llama-bytes/model.safetensors Range {rng} -> {r.status} {r.getheader('Content-Range')}")
        assert (r.status, r.getheader("Content-Range"), len(body)) == (code, content_range, length), rng
    status, h, body = request(port, "GET", "/models/llama-bytes/config.json")
    assert status == 200 and h["Content-Type"] == "application/json" and b"max_position_embeddings" in body
    for path in ["/models/", "/models/llama-bytes/", "/models/other/config.json", "/models/../CMakeCache.txt",
                 "/models/llama-bytes/../../CMakeCache.txt", "/models/llama-bytes/model.safetensors.index.json"]:
        assert request(port, "GET", path)[0] == 404, path
    # Any other method: 405 naming the allowed ones.
    for method in ("POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"):
        status, h, _ = request(port, method, "/index.html")
        assert status == 405 and h["Allow"] == "GET, HEAD", (method, status, h)


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
        probes(port)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("serve: 3 passed, 0 failed")


if __name__ == "__main__":
    main()
