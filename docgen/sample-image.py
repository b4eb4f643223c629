#!/usr/bin/env python3
"""Writes docs/data/photo.png, the picture the README's and the histogram
page's commands read: a 320x240 RGB scene drawn here (a sky that fades,
a sun, two hills, a striped field, a checkered wall and some noise), so
that the filters have edges, texture and smooth parts to show, and the
histogram all three channels. Python's standard library only.

    python3 docgen/sample-image.py      (from the repository root)
"""
import math
import os
import random
import struct
import zlib

W, H = 320, 240
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pixel(x, y, rng):
    # Sky: blue fading to pale toward the horizon.
    t = y / (H * 0.6)
    r, g, b = 90 + 120 * t, 150 + 80 * t, 235 - 20 * t
    # Sun.
    if (x - 250) ** 2 + (y - 50) ** 2 < 26 ** 2:
        r, g, b = 255, 220, 90
    # Two hills.
    far = H * 0.62 - 40 * math.sin(x / 45.0)
    near = H * 0.72 - 30 * math.cos(x / 70.0 + 1)
    if y > far:
        r, g, b = 70, 120, 80
    if y > near:
        stripe = (x + 2 * y) // 9 % 2
        r, g, b = (120, 170, 60) if stripe else (95, 145, 45)
    # A checkered wall, lower left.
    if 20 <= x < 110 and 150 <= y < 225:
        r, g, b = (200, 60, 50) if (x // 10 + y // 10) % 2 else (235, 225, 210)
    n = rng.gauss(0, 6)
    return tuple(max(0, min(255, int(round(v + n)))) for v in (r, g, b))


def png(width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    rng = random.Random(2026)
    rows = []
    for y in range(H):
        row = []
        for x in range(W):
            row.extend(pixel(x, y, rng))
        rows.append(row)
    path = os.path.join(ROOT, "docs", "data", "photo.png")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(png(W, H, rows))
    os.replace(tmp, path)
    print("wrote", os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()
