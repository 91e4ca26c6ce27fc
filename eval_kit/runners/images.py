"""Dataset images as the runner handles them: opened lazily, decoded off the request loop, bounded in size.

A task opens each image with `open_image`: only the header is read (size and format known, no pixels
decoded), so iterating samples costs almost nothing on the runner's main thread. The harness then decodes
(`decode`) or encodes (the openai backend's data URLs) images on a pool of threads ahead of need, so no
backend waits on image decoding. The source bytes stay attached to the lazy image (`source_bytes`), which
lets a server backend send a JPEG that needs no resizing as its own bytes.

An image whose content cannot be read (unknown format, truncated or corrupt data) or whose pixel count is
over `MAX_IMAGE_PIXELS` (a decompression bomb: a few KB of PNG that decode to gigabytes) is a per-sample
failure with its reason, never a crash: `open_image` returns an `UnreadableImage` in its place, and the
harness logs the sample as failed.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

# the largest image (width x height) the runner decodes: 40 MP is 120 MB of RGB, far above any benchmark image
# (the papers' sources are at most 1920x1280) and far below what a decompression bomb asks for
MAX_IMAGE_PIXELS = 40_000_000
# the largest image file read (an encoded image of a benchmark is a few MB at most)
MAX_IMAGE_FILE_BYTES = 256 * 2**20
# the lazy image's attribute holding the bytes it was opened from
_SOURCE = "hazardkit_source_bytes"


@dataclass(frozen=True)
class UnreadableImage:
    """Stands in for an image whose content cannot be used; `reason` is one line naming the sample."""

    reason: str


class ImageProblem(Exception):
    """Raised while preparing a sample whose image cannot be used; the harness turns it into a failure."""


def _too_large(width: int, height: int) -> str | None:
    if width * height > MAX_IMAGE_PIXELS:
        return (f"image of {width} x {height} pixels is over the {MAX_IMAGE_PIXELS:,}-pixel bound "
                "(a decompression bomb or a wrong file)")
    return None


def open_image(value: Any, base: Path | None, where: str, *, roots: list[Path] | None = None):
    """A lazily opened PIL image from a `datasets` Image cell ({bytes, path}), raw bytes or a file path.

    No cell, or a file that does not exist, is bad input (the dataset's layout is wrong: one line, exit 2);
    content that cannot be read is an `UnreadableImage` (that sample fails, the others are asked). A path is
    read relative to `base` and only inside `roots` (default: `base`), links resolved, with the check publish
    applies (`eval_kit.safe_paths`): a cell naming `/etc/passwd` or `../../x` never sends that file to a model
    server. With neither `base` nor `roots` a path cell is refused."""
    from PIL import Image, UnidentifiedImageError

    data: bytes | None = None
    path: str | None = None
    if isinstance(value, dict):
        data, path = value.get("bytes"), value.get("path")
    elif isinstance(value, bytes | bytearray):
        data = bytes(value)
    elif isinstance(value, str):
        path = value
    file: Path | None = None
    if not data:
        if not path:
            raise BadInput(f"{where}: no image", field="image", fix="every row needs an image (or run --text-only)")
        from eval_kit.safe_paths import resolve_inside

        file = Path(path) if base is None or Path(path).is_absolute() else base / path
        if not file.exists() and not file.is_symlink():
            raise BadInput(f"{where}: image file {str(file)!r} not found", field="image")
        allowed = roots if roots is not None else [base] if base is not None else []
        file = resolve_inside(file, allowed, where=where, field="image")
        if not file.is_file():
            raise BadInput(f"{where}: image file {str(file)!r} not found", field="image")
        size = file.stat().st_size
        if size > MAX_IMAGE_FILE_BYTES:
            return UnreadableImage(f"{where}: image file of {size:,} bytes is over the "
                                   f"{MAX_IMAGE_FILE_BYTES // 2**20} MiB bound")
        try:  # read whole: no file handle stays open while the image waits, and the bytes can travel as they are
            data = file.read_bytes()
        except OSError as exc:
            return UnreadableImage(f"{where}: unreadable image file ({_one_line(exc)})")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own, lower bound applies
            image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError, SyntaxError) as exc:
        return UnreadableImage(f"{where}: unreadable image ({_one_line(exc)})")
    problem = _too_large(image.width, image.height)
    if problem:
        image.close()
        return UnreadableImage(f"{where}: {problem}")
    setattr(image, _SOURCE, data)
    return image


def image_digest(image) -> str | None:
    """sha256 (16 hex) of the bytes an image was read from (or of its pixels, for a decoded image), so a
    request key changes when an image's content does: a replaced image is asked again, never answered from
    the log. None for an image that could not be read (its sample fails and is asked again anyway)."""
    import hashlib

    if isinstance(image, UnreadableImage):
        return None
    data = getattr(image, _SOURCE, None)
    if data is None and hasattr(image, "tobytes"):
        data = f"{image.mode} {image.size}".encode() + image.tobytes()
    if data is None:
        return None
    return hashlib.sha256(data).hexdigest()[:16]


def source_bytes(image) -> bytes | None:
    """The encoded bytes an image was opened from (a file's are read now), or None for a decoded image."""
    data = getattr(image, _SOURCE, None)
    if data is not None:
        return data
    filename = getattr(image, "filename", None)
    if filename and getattr(image, "format", None):
        try:
            return Path(filename).read_bytes()
        except OSError:
            return None
    return None


def decode(image):
    """A fully decoded RGB copy of a (lazy) PIL image; `ImageProblem` when its content cannot be decoded."""
    if isinstance(image, UnreadableImage):
        raise ImageProblem(image.reason)
    if not hasattr(image, "convert"):
        return image  # not a PIL image (an array a custom task made): the backend takes it as it is
    from PIL import Image

    problem = _too_large(image.width, image.height)
    if problem:
        raise ImageProblem(problem)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            rgb = image if image.mode == "RGB" else image.convert("RGB")
            rgb.load()
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as exc:
        raise ImageProblem(f"undecodable image ({_one_line(exc)})") from None
    return rgb


def decoded_images(images: list[Any]) -> list[Any]:
    """Every image of a request decoded (what batch backends get from the harness's prefetch)."""
    return [decode(image) for image in images]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
