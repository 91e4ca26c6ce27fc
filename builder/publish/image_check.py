"""Every image a release ships is decoded once, within a pixel limit, and (by choice) stored smaller.

Why: a file that only starts with the right 16 bytes of magic can still be a 30,000 x 30,000 PNG that
compresses to 109 KB, a PNG whose zTXt chunk inflates to gigabytes, or bytes that do not decode at all;
published, such a file reaches every user's `load_dataset`. So `publish` opens each image with Pillow,
refuses it from its header when it has more than `MAX_IMAGE_PIXELS` pixels, refuses a decompression
bomb in its text chunks (Pillow's own `MAX_TEXT_CHUNK` guard) and refuses anything that does not fully
decode, each with one line naming the row.

The same pass stores the images a publisher marks as re-encodable (MovSafeBench: the edited images, which
HazardForge writes as lossless PNG) in the chosen format: high-quality JPEG by default (`jpeg`, quality 95,
no chroma subsampling), lossless WebP (`webp-lossless`), or the bytes as produced (`as-is`). Images that
are already in a lossy format (a JPEG source) are never re-encoded. What was stored is counted per group
and format, with the bytes before and after, for the dataset card.

Decoding and encoding run in a small thread pool (Pillow releases the GIL), rows keep their order.
"""

from __future__ import annotations

import io
import warnings
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from eval_kit.errors import BadInput

# 8000 x 8000: the same bound HazardForge applies to its sources (a 48 MP photo passes)
MAX_IMAGE_PIXELS = 64_000_000
STORAGE_CHOICES = ("jpeg", "webp-lossless", "as-is")
DEFAULT_STORAGE = "jpeg"
DEFAULT_JPEG_QUALITY = 95
ALLOWED_FORMATS = ("PNG", "JPEG", "WEBP", "BMP")
LOSSLESS_FORMATS = ("PNG", "BMP")  # what a re-encoding may replace (WebP may be lossy: left as it is)


@dataclass(frozen=True)
class ImagePolicy:
    """How images are checked and stored: the storage choice, JPEG quality and the pixel limit."""

    storage: str = DEFAULT_STORAGE
    jpeg_quality: int = DEFAULT_JPEG_QUALITY
    max_pixels: int = MAX_IMAGE_PIXELS

    def __post_init__(self) -> None:
        if self.storage not in STORAGE_CHOICES:
            raise BadInput(f"unknown image storage {self.storage!r}", field="--image-format",
                           fix=f"use one of: {', '.join(STORAGE_CHOICES)}")
        if not 1 <= int(self.jpeg_quality) <= 100:
            raise BadInput(f"JPEG quality {self.jpeg_quality} is not in 1..100", field="--jpeg-quality")

    def describe(self) -> str:
        """The choice in words, for the card."""
        if self.storage == "jpeg":
            return f"JPEG, quality {self.jpeg_quality}, no chroma subsampling (4:4:4)"
        if self.storage == "webp-lossless":
            return "lossless WebP"
        return "the bytes as the pipeline produced them (no re-encoding)"


@dataclass
class StorageReport:
    """What one publish stored: per group (e.g. edited / no_edit), the stored formats and bytes."""

    policy: ImagePolicy
    formats: dict[str, Counter] = field(default_factory=dict)  # group -> stored format -> rows
    bytes_in: Counter = field(default_factory=Counter)  # group -> bytes given
    bytes_out: Counter = field(default_factory=Counter)  # group -> bytes stored
    reencoded: Counter = field(default_factory=Counter)  # group -> rows re-encoded

    def add(self, group: str, fmt: str, size_in: int, size_out: int, reencoded: bool) -> None:
        self.formats.setdefault(group, Counter())[fmt] += 1
        self.bytes_in[group] += size_in
        self.bytes_out[group] += size_out
        self.reencoded[group] += int(reencoded)

    def to_dict(self) -> dict[str, Any]:
        return {
            "storage": self.policy.storage, "jpeg_quality": self.policy.jpeg_quality,
            "max_pixels": self.policy.max_pixels, "description": self.policy.describe(),
            "groups": {g: {"formats": dict(sorted(c.items())), "rows": sum(c.values()),
                           "bytes_in": self.bytes_in[g], "bytes_out": self.bytes_out[g],
                           "reencoded": self.reencoded[g]} for g, c in sorted(self.formats.items())},
        }


def value_bytes(value: Any) -> bytes | None:
    """The encoded bytes of an image value: an `ImageFile`, an Image struct dict or bytes."""
    from builder.publish.shard_io import ImageFile

    if isinstance(value, ImageFile):
        return value.read_bytes()
    if isinstance(value, dict):
        data = value.get("bytes")
        return bytes(data) if data is not None else None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return None


def decode_checked(data: bytes, where: str, max_pixels: int = MAX_IMAGE_PIXELS):
    """The fully decoded Pillow image of `data`; BadInput naming `where` for a bomb, an image over
    `max_pixels` (found from the header, before any pixel is decoded), or bytes that do not decode."""
    from PIL import Image, UnidentifiedImageError

    prefix = f"{where}: " if where else ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            width, height = image.size
            if width * height > max_pixels:
                raise BadInput(f"{prefix}image is {width}x{height} pixels, over the publish limit of "
                               f"{max_pixels:,} (a decompression bomb?)", field="image",
                               fix="leave the row out or downscale its image")
            if image.format not in ALLOWED_FORMATS:
                raise BadInput(f"{prefix}image format {image.format} is not one of {', '.join(ALLOWED_FORMATS)}",
                               field="image")
            image.load()  # every pixel (and a PNG's text chunks after the image data)
    except BadInput:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise BadInput(f"{prefix}image refused as a decompression bomb ({exc})", field="image",
                       fix="leave the row out or downscale its image") from None
    except ValueError as exc:  # Pillow: "Decompressed data too large" for a zTXt/iTXt/iCCP bomb
        raise BadInput(f"{prefix}image refused: {exc} (a decompression bomb?)", field="image",
                       fix="leave the row out or save the image again without the oversized chunk") from None
    except (UnidentifiedImageError, OSError, SyntaxError, EOFError) as exc:
        raise BadInput(f"{prefix}image does not decode ({type(exc).__name__}: {exc})", field="image",
                       fix="leave the row out or replace its image with one that opens") from None
    return image


def encode(image, storage: str, quality: int) -> tuple[bytes, str]:
    """(bytes, format name) of `image` stored as `storage` (`jpeg` or `webp-lossless`)."""
    buffer = io.BytesIO()
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    if storage == "jpeg":
        rgb.save(buffer, format="JPEG", quality=int(quality), subsampling=0, optimize=True)
        return buffer.getvalue(), "JPEG"
    rgb.save(buffer, format="WEBP", lossless=True, quality=100, method=4)
    return buffer.getvalue(), "WEBP"


def _store_one(value: Any, where: str, group: str, reencode: bool, policy: ImagePolicy
               ) -> tuple[Any, str, int, int, bool]:
    from builder.publish.shard_io import ImageFile

    data = value_bytes(value)
    if data is None:
        return value, "none", 0, 0, False
    if isinstance(value, ImageFile) and value.where:  # "records.jsonl line 7 (id 'x')": names the input line
        where = value.where
    image = decode_checked(data, where, policy.max_pixels)
    fmt = image.format
    if reencode and policy.storage != "as-is" and fmt in LOSSLESS_FORMATS:
        new, new_fmt = encode(image, policy.storage, policy.jpeg_quality)
        return {"bytes": new, "path": None}, new_fmt, len(data), len(new), True
    return value, fmt, len(data), len(data), False


def checked_images(rows: Iterable[dict[str, Any]], policy: ImagePolicy, report: StorageReport, *,
                   image_column: str = "image", group: Callable[[dict[str, Any]], str] = lambda row: "all",
                   reencode: Callable[[dict[str, Any]], bool] = lambda row: False,
                   where: Callable[[dict[str, Any]], str] = lambda row: f"id {row.get('id')!r}",
                   workers: int = 2) -> Iterator[dict[str, Any]]:
    """Rows with every image decoded within the limit and stored by `policy`, in order; the first bad
    image is BadInput naming its row. A small window of rows is decoded ahead in `workers` threads."""
    window = max(2, 2 * workers)
    pending: deque[tuple[dict[str, Any], str, Future]] = deque()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="publish-decode") as pool:
        def drain_one() -> dict[str, Any]:
            row, grp, future = pending.popleft()
            value, fmt, size_in, size_out, changed = future.result()
            report.add(grp, fmt, size_in, size_out, changed)
            if changed:
                row = {**row, image_column: value}
            return row

        try:
            for row in rows:
                value = row.get(image_column)
                grp = group(row)
                pending.append((row, grp, pool.submit(_store_one, value, where(row), grp, reencode(row), policy)))
                if len(pending) >= window:
                    yield drain_one()
            while pending:
                yield drain_one()
        finally:
            for _, _, future in pending:
                future.cancel()
