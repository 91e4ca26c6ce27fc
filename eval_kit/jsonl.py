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


def atomic_write_bytes(path: str | Path, data: bytes, *, durable: bool = True) -> None:
    """Write via a temporary file in the same folder and rename, so readers never see half a file.

    `durable` also fsyncs before the rename (the file survives a power cut). Rebuildable outputs may skip
    it: on ext4 an fsync commits the journal, which first flushes every other file written lately."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
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
