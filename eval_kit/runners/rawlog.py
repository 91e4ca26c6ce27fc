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
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput


def request_key(*, dataset_revision: str, prompt: str, n_images: int, model: str, backend: str,
                settings: dict[str, Any], variant: str | None = None) -> str:
    """16 hex digits of sha256 over the request's identity (canonical JSON)."""
    identity = {"dataset_revision": dataset_revision, "prompt": prompt, "n_images": n_images, "model": model,
                "backend": backend, "settings": settings, "variant": variant}
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
        self._handle = self.path.open("ab")

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good_end = 0
        lines = data.split(b"\n")
        # every element but the last ended with a newline; the last is b"" or an unterminated (torn) tail
        for number, raw in enumerate(lines[:-1], start=1):
            try:
                record = json.loads(raw)
                if not isinstance(record, dict) or "id" not in record or "key" not in record:
                    raise ValueError("not a raw-log record")
            except ValueError:
                if number == len(lines) - 1 and not lines[-1]:
                    break  # a damaged final line: treat like a torn one
                raise BadInput("corrupt raw log line (not written by a crash at the end)", path=self.path,
                               line=number, fix="restore the log or start a new --out folder") from None
            self.records.append(record)
            if not is_failure(record):
                self.done[(record["id"], record["key"])] = record
            good_end += len(raw) + 1
        if good_end < len(data):
            self.torn_bytes = len(data) - good_end
            with self.path.open("r+b") as handle:
                handle.truncate(good_end)
                handle.flush()
                os.fsync(handle.fileno())

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        """Write the records as lines and flush them to the OS; fsync once `sync_every` lines are pending."""
        records = list(records)
        blob = b"".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8") + b"\n"
            for r in records
        )
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


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Records of a raw log, read-only (a torn last line is ignored, not cut)."""
    path = Path(path)
    if not path.exists():
        raise BadInput("raw log not found", path=path, fix="pass the --out folder of a `hazardkit eval` run")
    records = []
    lines = path.read_bytes().split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            if number == len(lines):
                break  # torn tail of a crashed run
            raise BadInput("corrupt raw log line", path=path, line=number) from None
        records.append(record)
    return records
