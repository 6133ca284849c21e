#!/usr/bin/env python3
"""No line of the repository's code (C++, Python, JavaScript, CMake, shell, HTML, shaders) passes 120 columns."""
import os
import pathlib
import subprocess
import sys

LIMIT = 120
ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])

SUFFIXES = (".cpp", ".hpp", ".h", ".c", ".py", ".mjs", ".js", ".cmake", ".sh", ".html", ".glsl", ".vert", ".frag",
            ".wgsl")
NAMES = ("CMakeLists.txt", "Makefile")
EXCLUDED_PREFIXES = ("tests/fixtures/", "web/models/")
EXCLUDED_DIRS = {"node_modules", "build", "__pycache__", ".git"}
# Where git is not there: these folders and top-level files.
WALKED = ("src", "tests", "web", "shaders")
TOP_LEVEL = ("CMakeLists.txt", "Makefile", "setup.sh")

# (path, how the line starts): lines that cannot be wrapped, each with its reason.
EXCEPTIONS = {
    # ropeviz-cli lab-export rewrites this line whole with the run's options (src/core/lab/lab_torch.cpp finds the
    # one line that starts with "DEFAULTS = " and ends with its marker), and the default run's must equal it.
    ("src/core/lab/ropeviz_lab.py", "DEFAULTS = {"),
}


def wanted(rel):
    parts = rel.split("/")
    if rel.endswith(".md") or rel.startswith(EXCLUDED_PREFIXES) or EXCLUDED_DIRS.intersection(parts[:-1]):
        return False
    return parts[-1] in NAMES or parts[-1].endswith(SUFFIXES)


def listed_by_git():
    try:
        p = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    return [f for f in p.stdout.decode("utf-8", "surrogateescape").split("\0") if f]


def walked():
    files = [name for name in TOP_LEVEL if (ROOT / name).is_file()]
    for top in WALKED:
        for dirpath, dirnames, filenames in os.walk(ROOT / top):
            dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED_DIRS)
            rel_dir = pathlib.Path(dirpath).relative_to(ROOT).as_posix()
            files += [rel_dir + "/" + name for name in sorted(filenames)]
    return files


def main():
    listed = listed_by_git()
    source = "git ls-files"
    if listed is None:
        listed, source = walked(), "a walk of " + ", ".join(WALKED + TOP_LEVEL)
    files = sorted(f for f in set(listed) if wanted(f) and (ROOT / f).is_file())
    long_lines = lines = 0
    for rel in files:
        text = (ROOT / rel).read_bytes().decode("utf-8", "replace")  # columns are characters, not bytes
        for n, line in enumerate(text.split("\n"), 1):
            line = line.rstrip("\r")
            lines += 1
            if len(line) > LIMIT and not any(rel == path and line.startswith(start) for path, start in EXCEPTIONS):
                print("%s:%d: %d columns" % (rel, n, len(line)))
                long_lines += 1
    print("line_length: %d files (from %s), %d lines checked; %d over %d columns" %
          (len(files), source, lines, long_lines, LIMIT))
    return 1 if long_lines or not files else 0


if __name__ == "__main__":
    sys.exit(main())
