#!/usr/bin/env python3
"""Checks a desktop screenshot is a real picture of the app: right size, not blank, and whether the
error colour (the learned table's IndexError box) is on screen. Standard library only."""
import argparse
import struct
import sys
import zlib

ERROR_RGB = (255, 82, 82)  # theme::error in src/app/ui/theme.hpp


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, chunks, idat = 8, {}, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IDAT":
            idat += body
        chunks.setdefault(kind, body)
        pos += 12 + length
    width, height, depth, ctype = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    if depth != 8 or ctype not in (2, 6):
        sys.exit(f"{path}: expected 8-bit RGB/RGBA, got depth {depth} colour type {ctype}")
    bpp = 4 if ctype == 6 else 3
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("png")
    ap.add_argument("--size", required=True, help="WxH expected")
    ap.add_argument("--error", choices=["shown", "absent"], required=True)
    args = ap.parse_args()
    width, height, bpp, rows = read_png(args.png)
    want = tuple(int(v) for v in args.size.split("x"))
    if (width, height) != want:
        sys.exit(f"FAIL {args.png}: size {width}x{height}, expected {args.size}")
    colours, background, error_pixels, total = set(), rows[0][0:3], 0, 0
    differing = 0
    for row in rows[::2]:
        for x in range(0, width * bpp, bpp * 2):
            px = row[x:x + 3]
            colours.add(px)
            total += 1
            differing += px != background
            error_pixels += tuple(px) == ERROR_RGB
    share = differing / total
    print(f"{args.png}: {width}x{height}, {len(colours)} colours, {share:.1%} non-background, "
          f"{error_pixels} error-coloured samples")
    if len(colours) < 16 or share < 0.03:
        sys.exit(f"FAIL {args.png}: looks blank")
    if args.error == "shown" and error_pixels == 0:
        sys.exit(f"FAIL {args.png}: the IndexError box is not on screen")
    if args.error == "absent" and error_pixels > 0:
        sys.exit(f"FAIL {args.png}: error colour on screen although the position is inside the table")
    print("ok")


if __name__ == "__main__":
    main()
