"""JSON Lines reading with line numbers, and atomic writes: the I/O every command shares."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line_number, object) for each non-blank line, read by the strict reader (`eval_kit.strictjson`):
    bad JSON, NaN, duplicate keys, deep nesting, huge lines and non-objects are BadInput naming the line."""
    from eval_kit.strictjson import iter_lines

    seen_any = False
    for number, obj in iter_lines(path):
        if not isinstance(obj, dict):
            raise BadInput(f"expected a JSON object, got {type(obj).__name__}", path=path, line=number)
        seen_any = True
        yield number, obj
    if not seen_any:
        raise BadInput("file is empty", path=path, fix="expected one JSON object per line")


def read_jsonl(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    return list(iter_jsonl(path))


def current_umask() -> int:
    """The process umask, read without changing it where Linux allows (`/proc/self/status`), else by the
    set-and-restore idiom."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_mode(*, folder: bool = False) -> int:
    """The mode `open()` / `mkdir()` would give a new file (0o666) or folder (0o777) under the umask:
    `tempfile.mkstemp` makes 0600 and `mkdtemp` 0700 whatever the umask, so whatever we create through them
    is chmod-ed to this before it is renamed into place (0644 / 0755 under the usual umask 022)."""
    return (0o777 if folder else 0o666) & ~current_umask()


# the end of every temp file name an atomic write uses: a name no person would choose, so that the clean-up after a
# killed command (forge run) removes only its own temp files, never a maintainer's `.draft.tmp`
TEMP_SUFFIX = ".hazardkit-tmp"


def atomic_write_bytes(path: str | Path, data: bytes, *, durable: bool = True) -> None:
    """Write via a temporary file in the same folder and rename, so readers never see half a file.

    A symbolic link at `path` is replaced, never written through (commands that must refuse one call
    `eval_kit.safe_paths.refuse_links` first).

    The file gets the mode a plain `open()` gives a new file (0o666 under the umask; also when it replaces
    a file written 0600 by an older version). `durable` also fsyncs before the rename (the file survives a
    power cut). Rebuildable outputs may skip it: on ext4 an fsync commits the journal, which first flushes
    every other file written lately."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = default_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), mode)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | Path, text: str, *, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def atomic_write_json(path: str | Path, obj: Any, *, durable: bool = True) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n", durable=durable)
