#!/usr/bin/env python3
"""Writes the UI font's characters as the subsetter's list (U+0020-007E,U+00B0-00B3,...): \
ASCII and every other character
in the given sources, literal or as a UTF-8 \\x escape in a string. The subset holds the glyphs the app's texts use
and no more (comments can only add a few), and a new text's character is in it with no list to keep.

  python3 font_chars.py OUT.txt SOURCE...
"""
import re
import sys

_ESCAPED = re.compile(r"(?:\\x[0-9A-Fa-f]{2})+")


def characters(text):
    found = {ord(c) for c in text if ord(c) > 0x7E}
    for run in _ESCAPED.findall(text):
        try:
            found |= {ord(c) for c in bytes.fromhex(run.replace("\\x", "")).decode("utf-8") if ord(c) > 0x7E}
        except UnicodeDecodeError:
            pass  # bytes, not a character
    return found


def ranges(points):
    out, points = [], sorted(points)
    start = prev = points[0]
    for p in points[1:] + [None]:
        if p is not None and p == prev + 1:
            prev = p
            continue
        out.append(f"U+{start:04X}-{prev:04X}")  # first-last pairs, as embed_font.cmake reads them
        if p is not None:
            start = prev = p
    return ",".join(out)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    points = set(range(0x20, 0x7F))
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            points |= characters(f.read())
    # U+FFFD and the C1 controls are no glyphs to draw
    points = {p for p in points if p != 0xFFFD and not 0x80 <= p <= 0x9F}
    text = ranges(points) + "\n"
    try:
        with open(sys.argv[1], encoding="ascii") as f:
            if f.read() == text:
                sys.exit(0)  # unchanged: the font is not rebuilt (Ninja restats custom commands' outputs)
    except FileNotFoundError:
        pass
    with open(sys.argv[1], "w", encoding="ascii") as f:
        f.write(text)
