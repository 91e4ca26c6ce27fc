"""The append-only raw log of a run: one JSON line per sample outcome, written as soon as it is known.

An answer is `{"id", "key", "index", "response", "prediction", ...}` where `key` hashes everything that
decides the answer (dataset revision, prompt, model, backend settings) and `index` is the sample's place in
the dataset (submissions follow it, whatever order answers arrived in). A failure is `{"id", "key", "index",
"error", "attempts"}`: it does not count as done, so the next run asks that sample again. Each line is
flushed to the OS when written (a killed process loses nothing) and fsync'd every `sync_every` lines.
A crash can leave at most one torn last line; it is cut off on reopening, and its sample is asked again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.strictjson import MAX_LINE_BYTES

_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_text(text: str) -> tuple[str, str | None]:
    """(text, None) for valid Unicode; else (text with each lone UTF-16 surrogate as U+FFFD, the exact text).

    A server may send any code point JSON can escape, including lone surrogates (`"\\ud800"`) that no UTF-8
    file can hold. The first value is what is parsed and shown; the second, when there is one, is the exact
    text as an ASCII JSON string literal (`json.loads` gives it back), so nothing a server sent is lost."""
    if text.isascii() or not _SURROGATE.search(text):
        return text, None
    return _SURROGATE.sub("\ufffd", text), json.dumps(text, ensure_ascii=True)


def _scrub(value: Any) -> Any:
    """Any string in a record with lone surrogates replaced (the last defence: a record always encodes)."""
    if isinstance(value, str):
        return storable_text(value)[0]
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def encode_record(record: dict[str, Any]) -> bytes:
    """One raw-log line (with its newline), UTF-8 whatever the record's strings hold."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return encode_record(_scrub(record))


def _open_log(path: Path, flags: int) -> int:
    """A descriptor on the log itself, never through a symbolic or hard link someone else planted there."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        if os.path.islink(path):
            raise BadInput("the raw log is a symbolic link (hazardkit never makes one)", path=path,
                           fix="remove the link, or use a new --out folder") from None
        raise BadInput(f"cannot open the raw log ({exc.strerror or exc})", path=path) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        what = "a hard link to another file" if stat.S_ISREG(info.st_mode) else \
            "a FIFO, not a regular file" if stat.S_ISFIFO(info.st_mode) else \
            "a device, not a regular file" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else \
            "not a regular file"
        raise BadInput(f"the raw log is {what}", path=path, fix="remove it, or use a new --out folder")
    os.set_blocking(fd, True)
    return fd


def request_key(*, dataset_revision: str, prompt: str, n_images: int, model: str, backend: str,
                settings: dict[str, Any], variant: str | None = None,
                image_digests: list[str | None] | None = None) -> str:
    """16 hex digits of sha256 over the request's identity (canonical JSON).

    `image_digests`: the content hashes of the sample's images (`images.image_digest`), so an answer is
    resumed only for the very images it was given, whatever the dataset revision says (a `--dataset-revision`
    tag, or BD-HazardVLM's annotations revision with an `--images` folder)."""
    identity = {"dataset_revision": dataset_revision, "prompt": prompt, "n_images": n_images, "model": model,
                "backend": backend, "settings": settings, "variant": variant}
    if image_digests:
        identity["images"] = image_digests
    blob = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def is_failure(record: dict[str, Any]) -> bool:
    """A failure record (the sample got no answer in that run)."""
    return "error" in record


class RawLog:
    """Open (creating or repairing) a raw log; `done` maps (id, key) to the answered record."""

    def __init__(self, path: str | Path, *, sync_every: int = 1) -> None:
        self.path = Path(path)
        self.sync_every = max(1, sync_every)
        self._unsynced = 0
        self.records: list[dict[str, Any]] = []
        self.done: dict[tuple[str, str], dict[str, Any]] = {}
        self.torn_bytes = 0
        self._load()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = os.fdopen(_open_log(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab")

    def _load(self) -> None:
        """Read the log with the strict reader (bounded lines, depth, no NaN or duplicate keys, regular file
        only), cut off a torn last line; anything else unreadable is bad input naming the line."""
        if not os.path.lexists(self.path):
            return
        fd = _open_log(self.path, os.O_RDWR)
        with os.fdopen(fd, "r+b") as handle:
            good_end = 0
            number = 0
            while True:
                raw = handle.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                number += 1
                if not raw.endswith(b"\n"):
                    if len(raw) > MAX_LINE_BYTES:
                        raise BadInput(f"raw log line longer than {MAX_LINE_BYTES // 2**20} MiB", path=self.path,
                                       line=number, fix="restore the log or start a new --out folder")
                    break  # an unterminated tail: torn by a crash
                record = _record(raw, self.path, number, last=not handle.peek(1))
                if record is None:
                    break  # a damaged final line: treat like a torn one
                self.records.append(record)
                if not is_failure(record):
                    self.done[(record["id"], record["key"])] = record
                good_end += len(raw)
            size = os.fstat(handle.fileno()).st_size
            if good_end < size:
                self.torn_bytes = size - good_end
                handle.truncate(good_end)
                handle.flush()
                os.fsync(handle.fileno())

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        """Write the records as lines and flush them to the OS; fsync once `sync_every` lines are pending."""
        records = list(records)
        blob = b"".join(encode_record(r) for r in records)
        if not blob:
            return
        self._handle.write(blob)
        self._handle.flush()
        self._unsynced += len(records)
        if self._unsynced >= self.sync_every:
            self.sync()
        for r in records:
            self.records.append(r)
            if not is_failure(r):
                self.done[(r["id"], r["key"])] = r

    def sync(self) -> None:
        """fsync what was written: on disk even after a power cut."""
        if self._unsynced:
            os.fsync(self._handle.fileno())
            self._unsynced = 0

    def latest(self) -> dict[str, dict[str, Any]]:
        """The last record of each id, in first-seen order (what a submission is built from)."""
        out: dict[str, dict[str, Any]] = {}
        for r in self.records:
            out[r["id"]] = r
        return out

    def close(self) -> None:
        if not self._handle.closed:
            self.sync()
            self._handle.close()


def _record(raw: bytes, path: Path, number: int, *, last: bool) -> dict[str, Any] | None:
    """One raw-log line read strictly; None for a damaged LAST line (a crash), bad input for any other."""
    from eval_kit.strictjson import loads

    try:
        record = loads(raw, path=path, line=number)
        if not isinstance(record, dict) or not isinstance(record.get("id"), str) or \
                not isinstance(record.get("key"), str):
            raise BadInput("not a raw-log record (an object with string id and key)", path=path, line=number)
    except BadInput as exc:
        if last:
            return None
        raise BadInput(f"corrupt raw log line ({exc.detail})", path=path, line=number,
                       fix="restore the log or start a new --out folder") from None
    problem = _field_problem(record)
    if problem:  # a whole, well-formed line with wrong types is no torn tail: refused wherever it is
        raise BadInput(f"corrupt raw log line ({problem})", path=path, line=number,
                       fix="restore the log or start a new --out folder")
    return record


# fields a raw-log record may carry and the JSON types each must have (what the harness writes)
_TEXT_FIELDS = ("response", "response_exact", "first_response", "first_response_exact", "error", "variant")


def _field_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a record's field types (None when nothing): an edited or foreign log must be refused
    in one line, not crash a resume or write a submission that fails validation."""
    index = record.get("index")
    if "index" in record and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
        return f"index must be a whole number >= 0, not {json.dumps(index)[:40]}"
    for name in _TEXT_FIELDS:
        if name in record and not isinstance(record[name], str) and not (name == "variant" and record[name] is None):
            return f"{name} must be a string, not {type(record[name]).__name__}"
    attempts = record.get("attempts")
    if "attempts" in record and (not isinstance(attempts, int) or isinstance(attempts, bool)):
        return f"attempts must be a whole number, not {type(attempts).__name__}"
    if "usage" in record and not isinstance(record["usage"], dict):
        return f"usage must be an object, not {type(record['usage']).__name__}"
    return None


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Records of a raw log, read-only with the strict reader (a torn or damaged last line is ignored, not cut).

    Only a regular file is read (a FIFO, a device or a link to one is bad input); lines are bounded by
    `MAX_LINE_BYTES`, nesting by the strict reader's depth bound."""
    from eval_kit.strictjson import open_regular

    path = Path(path)
    if not os.path.lexists(path):
        raise BadInput("raw log not found", path=path, fix="pass the --out folder of a `hazardkit eval` run")
    if os.path.islink(path):
        raise BadInput("the raw log is a symbolic link (hazardkit never makes one)", path=path,
                       fix="pass the --out folder of a `hazardkit eval` run, unmodified")
    records = []
    with open_regular(path) as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if not raw.endswith(b"\n") and len(raw) > MAX_LINE_BYTES:
                raise BadInput(f"raw log line longer than {MAX_LINE_BYTES // 2**20} MiB", path=path, line=number)
            if not raw.strip():
                continue
            record = _record(raw, path, number, last=not handle.peek(1))
            if record is None:
                break  # torn tail of a crashed run
            records.append(record)
    return records
