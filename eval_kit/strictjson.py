"""The one strict JSON reader behind every JSON and JSON Lines input (submissions, references, metadata,
run files, results, manifests, configs).

Python's `json` accepts things a scorer must not: NaN / Infinity, 1e999 (read as infinity), duplicate keys
(the last one silently wins), nesting deep enough to exhaust the stack, integers of thousands of digits, lone
UTF-16 surrogates that cannot be written back as UTF-8. Files are opened only when they are regular files
(a FIFO would block forever, `/dev/zero` never ends), a JSON Lines line is read up to `MAX_LINE_BYTES` and a
JSON document up to `MAX_DOCUMENT_BYTES`. Everything refused is `BadInput` (exit 2) naming file and line.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

MAX_DEPTH = 64  # containers inside containers; every format we read needs fewer than 10
MAX_LINE_BYTES = 16 * 2**20  # one JSON Lines line (a raw model response may be long, never this long)
MAX_DOCUMENT_BYTES = 64 * 2**20  # one JSON file (metadata, run.json, results, configs)
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Refused(ValueError):
    """Raised inside the decoder hooks; turned into BadInput with the file and line."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _Refused(f"duplicate key {excerpt(duplicate)} (JSON objects need unique keys)")
    return obj


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number JSON allows (use null or a finite number)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{excerpt(text)} is out of range for a number")
    return value


def excerpt(value: Any, limit: int = 40) -> str:
    """A short, printable rendering of a value for an error line (never the whole 50 MB id)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _check_tree(obj: Any) -> None:
    """Depth bound and no lone surrogates, without recursion."""
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if depth >= MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels")
            for key, value in node.items():
                if not key.isascii() and _SURROGATE.search(key):
                    raise _Refused("a key holds a lone UTF-16 surrogate (not valid Unicode)")
                stack.append((value, depth + 1))
        elif isinstance(node, list):
            if depth >= MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels")
            stack.extend((value, depth + 1) for value in node)
        elif isinstance(node, str) and not node.isascii() and _SURROGATE.search(node):
            raise _Refused("a string holds a lone UTF-16 surrogate (not valid Unicode)")


def loads(text: str | bytes, *, path: str | Path | None = None, line: int | None = None) -> Any:
    """Parse one JSON value strictly; any refusal is BadInput naming `path` and `line`."""
    try:
        obj = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float)
        _check_tree(obj)
        return obj
    except json.JSONDecodeError as exc:
        raise BadInput(f"malformed JSON ({exc.msg} at column {exc.colno})", path=path, line=line,
                       fix="each line must be one JSON object" if line is not None else None) from None
    except _Refused as exc:
        raise BadInput(str(exc), path=path, line=line) from None
    except RecursionError:
        raise BadInput(f"nested deeper than {MAX_DEPTH} levels", path=path, line=line) from None
    except UnicodeDecodeError:
        raise BadInput("not UTF-8 text", path=path, line=line, fix="save it as UTF-8") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise BadInput(f"unreadable number ({str(exc)[:80]})", path=path, line=line) from None


def open_regular(path: str | Path):
    """A binary handle on a regular file; a missing file, folder, FIFO, device or link loop is BadInput."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never blocks, even on a FIFO
    except FileNotFoundError:
        raise BadInput("file not found", path=path) from None
    except IsADirectoryError:
        raise BadInput("expected a file, got a directory", path=path) from None
    except (OSError, ValueError) as exc:  # permission, symlink loop, a NUL in the name
        raise BadInput(f"cannot open ({getattr(exc, 'strerror', None) or exc})", path=path) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode) else \
            "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file"
        raise BadInput(f"expected a regular file, got {kind}", path=path)
    return os.fdopen(fd, "rb")


def read_json(path: str | Path, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """One JSON document from a regular file of at most `max_bytes`."""
    with open_regular(path) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise BadInput(f"file is larger than {max_bytes // 2**20} MiB", path=path)
    if not data.strip():
        raise BadInput("file is empty", path=path, fix="expected one JSON object")
    return loads(data, path=path)


def iter_lines(path: str | Path, *, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of a JSON Lines file, parsed strictly."""
    with open_regular(path) as handle:
        number = 0
        while True:
            raw = handle.readline(max_line_bytes + 1)
            if not raw:
                return
            number += 1
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                raise BadInput(f"line longer than {max_line_bytes // 2**20} MiB", path=path, line=number,
                               fix="one JSON object per line")
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise BadInput("line is not UTF-8 text", path=path, line=number,
                               fix="save it as UTF-8 JSON Lines") from None
            yield number, loads(text, path=path, line=number)
