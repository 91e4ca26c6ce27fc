"""Hostile image files for the publish tests: each starts with valid PNG magic, so only decoding finds them."""

from __future__ import annotations

import io
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def huge_png(side: int = 30_000) -> bytes:
    """A 1-bit grey PNG of side x side pixels, all black: 30,000 x 30,000 compresses to about 109 KB."""
    row = b"\x00" + bytes((side + 7) // 8)  # filter byte + packed bits
    compressor = zlib.compressobj(9)
    parts = [compressor.compress(row * 1000) for _ in range(side // 1000)]
    parts.append(compressor.compress(row * (side % 1000)))
    parts.append(compressor.flush())
    ihdr = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", b"".join(parts)) + _chunk(b"IEND", b"")


def ztxt_bomb_png(inflated: int = 200 * 2**20) -> bytes:
    """A valid 16 x 16 PNG followed by a zTXt chunk that inflates to `inflated` bytes (200 MiB from ~200 KB)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), (90, 120, 60)).save(buffer, format="PNG")
    png = buffer.getvalue()
    compressor = zlib.compressobj(9)
    block = bytes(2**20)
    text = b"".join(compressor.compress(block) for _ in range(inflated // 2**20)) + compressor.flush()
    bomb = _chunk(b"zTXt", b"Comment\x00\x00" + text)
    end = png.rindex(b"IEND") - 4  # before the IEND chunk (its length field)
    return png[:end] + bomb + png[end:]


def undecodable_png() -> bytes:
    """PNG magic and a plausible start, then bytes that are no image."""
    return b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + bytes(range(256)) * 4
