"""The byte-moving parts of the shard writer: image files read straight into Arrow buffers, and a sha256
that follows a shard while it is written.

Why: publishing is mostly moving image bytes. The plain route (read each file into a Python `bytes`,
copy the rows into an Arrow table, write the Parquet file, then read it back to hash it) touches every
byte five times on one core. Here a file's bytes are read once, into the Arrow buffer that becomes the
column (`readinto`, in a background thread while the previous row group is written), and the shard's
sha256 is computed in another thread from the part of the file already written, so hashing overlaps
writing instead of following it. The bytes stored are exactly the file's bytes (no re-encoding).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

# Arrow's `binary` type has 32-bit offsets: one row group's image column must stay under 2 GiB
MAX_BINARY_BYTES = 2**31 - 1
HASH_CHUNK = 4 * 1024 * 1024


# image formats `publish` may embed: file name suffix -> magic bytes the file must start with
IMAGE_FORMATS: dict[str, tuple[bytes, ...]] = {
    ".png": (b"\x89PNG\r\n\x1a\n",), ".jpg": (b"\xff\xd8\xff",), ".jpeg": (b"\xff\xd8\xff",),
    ".webp": (b"RIFF",), ".bmp": (b"BM",),
}


@dataclass(frozen=True)
class ImageFile:
    """An image column value whose bytes are a file's bytes, stored as they are, read when the shard is written.

    `size` is taken when the row is made (so a shard's size bound is known without reading); a file
    that changed size, vanished or cannot be read by then is bad input naming `where`.
    """

    path: Path
    size: int
    where: str = ""

    @classmethod
    def at(cls, path: str | Path, where: str = "", field: str = "image_path", *,
           root: str | Path | Sequence[str | Path] | None = None) -> ImageFile:
        """Stat `path` now: a missing or unreadable file is bad input before anything is written.

        Only image files are published: the file must be a regular file whose name and first bytes are of
        a declared image format (IMAGE_FORMATS), and with `root` (the input folder, or several allowed
        folders: the input folder and the image roots a forge export recorded) it must lie inside one of
        them once symlinks are resolved, so a record cannot smuggle `/etc/passwd` or `../../x` into a shard.
        Whether the bytes decode is checked later, by `image_check` (publish decodes every image).
        """
        from eval_kit.safe_paths import resolve_inside

        prefix = f"{where}: " if where else ""
        path = Path(path)
        roots = [] if root is None else [root] if isinstance(root, (str, Path)) else list(root)
        fix = "keep the image where the records file says, or pass --image-root DIR"
        if roots:
            what = "the input folder" if len(roots) == 1 else "the input folder and the recorded image roots"
            resolved = resolve_inside(path, roots, where=where, field=field, what=what,
                                      fix="pass --image-root DIR naming a folder that holds the images, or keep "
                                          "them inside the records file's folder", missing_fix=fix)
        else:
            try:
                resolved = path.resolve(strict=True)
            except (OSError, RuntimeError, ValueError) as exc:  # missing, symlink loop, NUL in the name
                reason = getattr(exc, "strerror", None) or type(exc).__name__
                raise BadInput(f"{prefix}cannot read image ({reason})", path=path, field=field, fix=fix) from None
        try:
            info = resolved.stat()
        except OSError as exc:
            raise BadInput(f"{prefix}cannot read image ({exc.strerror})", path=path, field=field, fix=fix) from None
        if not stat.S_ISREG(info.st_mode):
            raise BadInput(f"{prefix}not a regular file", path=path, field=field)
        if resolved.suffix.lower() not in IMAGE_FORMATS:
            raise BadInput(f"{prefix}not an image file ({resolved.suffix or 'no extension'})", path=path, field=field,
                           fix=f"publish {', '.join(sorted(IMAGE_FORMATS))} files")
        with open(resolved, "rb") as handle:
            head = handle.read(16)
        if not any(head.startswith(magic) for magic in IMAGE_FORMATS[resolved.suffix.lower()]):
            raise BadInput(f"{prefix}the file's bytes are not a {resolved.suffix.lower()} image", path=path,
                           field=field)
        return cls(resolved, info.st_size, where)

    def as_struct(self) -> dict[str, Any]:
        """datasets' Image struct with the file's bytes (for paths that need the bytes in hand)."""
        return {"bytes": self.read_bytes(), "path": None}

    def read_bytes(self) -> bytes:
        """The whole file (for consumers that want bytes, and for the generic write path)."""
        buffer = bytearray(self.size)
        self.read_into(memoryview(buffer))
        return bytes(buffer)

    def read_into(self, target: memoryview) -> None:
        """Fill `target` (exactly `size` bytes) with the file; refuse a file whose size changed."""
        prefix = f"{self.where}: " if self.where else ""
        try:
            with open(self.path, "rb", buffering=0) as handle:
                filled = 0
                while filled < self.size:
                    n = handle.readinto(target[filled:])
                    if not n:
                        break
                    filled += n
                extra = handle.read(1)
        except OSError as exc:
            raise BadInput(f"{prefix}cannot read image ({exc.strerror})", path=self.path, field="image_path") from None
        if filled != self.size or extra:
            raise BadInput(f"{prefix}image changed size while publishing (was {self.size} bytes)", path=self.path,
                           field="image_path", fix="do not modify the input while it is published")


def image_struct_array(files: list[ImageFile | None], struct_type) -> Any:
    """The `{"bytes", "path"}` struct column of datasets' Image feature, with the files' bytes read
    directly into one Arrow buffer (no Python `bytes` per image, no copy into the table). `None` is a null."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    sizes = np.fromiter((0 if f is None else f.size for f in files), dtype=np.int64, count=len(files))
    offsets = np.zeros(len(files) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    total = int(offsets[-1])
    if total > MAX_BINARY_BYTES:
        raise BadInput(f"{len(files)} images hold {total} bytes, over Arrow's 2 GiB per binary column chunk",
                       fix="publish smaller images, or fewer rows per row group")
    data = pa.allocate_buffer(total)
    view = memoryview(data)
    for file, start, end in zip(files, offsets[:-1].tolist(), offsets[1:].tolist(), strict=True):
        if file is not None:
            file.read_into(view[start:end])
    view.release()
    valid = pa.array([f is not None for f in files], type=pa.bool_()) if None in files else None
    nulls = None if valid is None else valid.buffers()[1]
    bytes_field = struct_type.field("bytes")
    path_field = struct_type.field("path")
    bytes_array = pa.Array.from_buffers(bytes_field.type, len(files),
                                        [nulls, pa.py_buffer(offsets.astype(np.int32)), data])
    paths = pa.nulls(len(files), type=path_field.type)
    mask = None if valid is None else pc.invert(valid)
    return pa.StructArray.from_arrays([bytes_array, paths], fields=[bytes_field, path_field], mask=mask)


class FollowingHash:
    """sha256 of a file computed in a thread while the file is still being written.

    The writer calls `advance(n)` once the first n bytes are written (with write() calls that returned,
    so they are visible to reads of the same file) and `finish(size)` after closing; the thread reads and
    hashes up to the advertised offset into one reused buffer. Parquet writers only append, so bytes
    below the offset never change.
    """

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        self._digest = hashlib.sha256()
        self._limit = 0
        self._final: int | None = None
        self._error: BaseException | None = None
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="shard-sha256", daemon=True)
        self._thread.start()

    def advance(self, limit: int) -> None:
        with self._cond:
            self._limit = max(self._limit, limit)
            self._cond.notify()

    def finish(self, size: int) -> str:
        """Hash up to `size` (the closed file's length) and return the hex digest."""
        with self._cond:
            self._limit = max(self._limit, size)
            self._final = size
            self._cond.notify()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._digest.hexdigest()

    def abandon(self) -> None:
        """Stop without a digest (the shard is being thrown away)."""
        with self._cond:
            self._final = -1
            self._cond.notify()
        self._thread.join()

    def _run(self) -> None:
        buffer = bytearray(HASH_CHUNK)
        view = memoryview(buffer)
        done = 0
        try:
            fd = os.open(self._path, os.O_RDONLY)
        except OSError as exc:
            self._error = exc
            return
        try:
            while True:
                with self._cond:
                    while done >= self._limit and self._final is None:
                        self._cond.wait()
                    if self._final is not None and (self._final < 0 or done >= self._final):
                        return
                    limit = self._limit
                while done < limit:
                    n = os.preadv(fd, [view[: min(HASH_CHUNK, limit - done)]], done)
                    if n <= 0:
                        raise OSError(f"{self._path}: file shorter than the {limit} bytes written")
                    self._digest.update(view[:n])
                    done += n
        except BaseException as exc:  # handed to the writer's thread by finish()
            self._error = exc
        finally:
            os.close(fd)
