#!/usr/bin/env python3
"""Draw the extension's icon, images/icon.png (128x128 RGBA), with the standard library only.

A chain of graph nodes on a dark rounded square; one link is broken (the graph break) and drawn in the
highlight colour. Shapes are sampled 4x4 per pixel for anti-aliasing. Run again after changing the drawing:
  python3 scripts/make_icon.py
"""
from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

SIZE = 128
SS = 4  # samples per pixel per axis
BG = (30, 32, 48)
FG = (240, 240, 245)
HOT = (238, 76, 44)  # PyTorch's orange-red

NODES = [(30, 96), (54, 58), (82, 72), (102, 32)]
LINKS = [(0, 1, FG), (2, 3, FG)]
BROKEN = (1, 2)  # drawn as two stubs with a gap
NODE_R = 10.5
LINE_W = 7.0


def seg_dist(px: float, py: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def inside_rounded(px: float, py: float, r: float = 26.0, m: float = 2.0) -> bool:
    lo, hi = m + r, SIZE - m - r
    cx = min(max(px, lo), hi)
    cy = min(max(py, lo), hi)
    return math.hypot(px - cx, py - cy) <= r


def shade(px: float, py: float) -> tuple[int, int, int, int] | None:
    """Colour of one sample point, or None outside the icon."""
    if not inside_rounded(px, py):
        return None
    for i, (x, y) in enumerate(NODES):
        if math.hypot(px - x, py - y) <= NODE_R:
            return (*(HOT if i in BROKEN else FG), 255)
    a, b = NODES[BROKEN[0]], NODES[BROKEN[1]]
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    ux, uy = (b[0] - a[0]), (b[1] - a[1])
    n = math.hypot(ux, uy)
    gap = 5.0
    stub1 = (mid[0] - ux / n * gap, mid[1] - uy / n * gap)
    stub2 = (mid[0] + ux / n * gap, mid[1] + uy / n * gap)
    if seg_dist(px, py, a, stub1) <= LINE_W / 2 or seg_dist(px, py, stub2, b) <= LINE_W / 2:
        return (*HOT, 255)
    for i, j, colour in LINKS:
        if seg_dist(px, py, NODES[i], NODES[j]) <= LINE_W / 2:
            return (*colour, 255)
    # a subtle vertical gradient on the background
    k = py / SIZE
    return (int(BG[0] + 14 * k), int(BG[1] + 14 * k), int(BG[2] + 22 * k), 255)


def render() -> bytes:
    rows = []
    for y in range(SIZE):
        row = bytearray([0])  # filter type 0
        for x in range(SIZE):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sy in range(SS):
                for sx in range(SS):
                    c = shade(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS)
                    if c is not None:
                        for k in range(3):
                            acc[k] += c[k] * c[3] / 255
                        acc[3] += c[3]
            n = SS * SS
            alpha = acc[3] / n
            if alpha > 0:
                rgb = [round(acc[k] / n * 255 / alpha) for k in range(3)]
            else:
                rgb = [0, 0, 0]
            row += bytes([*(min(255, v) for v in rgb), round(alpha)])
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main() -> int:
    out = Path(__file__).resolve().parent.parent / "images" / "icon.png"
    out.parent.mkdir(exist_ok=True)
    out.write_bytes(render())
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
