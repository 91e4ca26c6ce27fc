"""Every submission the app receives: its file, sha256, time, user, outcome; and the per-user limits.

Layout under the app's data folder:
  submissions/<id>/upload.jsonl|upload.zip   the uploaded bytes, kept for rescoring
  submissions/<id>/record.json               who, when, what, sha256, status, outcome (written atomically)
  submissions/<id>/row.json                  the results-table row, once scored
A submission's status is one of: processing, invalid, failed, pending (scored, awaiting approval),
published (its row is in results.parquet), rejected. "processing" and "pending" count as pending for the
one-pending-submission-per-user rule.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_bytes, atomic_write_json

STATUSES = ("processing", "invalid", "failed", "pending", "published", "rejected")
PENDING = ("processing", "pending")  # statuses that block the user's next submission (processing: unless cut short)
_ID = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{8}")
RECORD = "record.json"
STALE_PROCESSING = dt.timedelta(minutes=15)
ROW = "row.json"


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def cut_short(record: dict[str, Any], at: dt.datetime | None = None) -> bool:
    """A record still "processing" long after it arrived: the app stopped while scoring it."""
    received = dt.datetime.fromisoformat(record["received_at"])
    return record.get("status") == "processing" and (at or now()) - received > STALE_PROCESSING


def check_id(submission_id: str) -> str:
    """A submission id as the store makes them; anything else (a path, free text) is bad input."""
    if not isinstance(submission_id, str) or not _ID.fullmatch(submission_id):
        raise BadInput(f"{str(submission_id)[:40]!r} is not a submission id", field="SUBMISSION",
                       fix="ids look like 20261201T120000Z-0a1b2c3d (see `hazardkit leaderboard submissions`)")
    return submission_id


class SubmissionStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def folder(self, submission_id: str) -> Path:
        return self.root / check_id(submission_id)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """One writer at a time for check-then-create (the per-user rules) and status changes."""
        import fcntl

        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def records(self) -> list[dict[str, Any]]:
        """Every readable record, oldest first."""
        found = []
        if not self.root.is_dir():
            return found
        for folder in sorted(self.root.iterdir()):
            record = folder / RECORD
            if _ID.fullmatch(folder.name) and record.is_file():
                try:
                    found.append(json.loads(record.read_text(encoding="utf-8")))
                except ValueError:
                    continue
        return found

    def get(self, submission_id: str) -> dict[str, Any]:
        record = self.folder(submission_id) / RECORD
        if not record.is_file():
            raise BadInput(f"no submission {submission_id}", path=self.root, field="SUBMISSION")
        return json.loads(record.read_text(encoding="utf-8"))

    def save(self, record: dict[str, Any]) -> None:
        atomic_write_json(self.folder(record["id"]) / RECORD, record)

    def update(self, submission_id: str, **changes: Any) -> dict[str, Any]:
        record = {**self.get(submission_id), **changes}
        self.save(record)
        return record

    def limit_problem(self, user: str, daily_limit: int, at: dt.datetime | None = None) -> str | None:
        """Why `user` may not submit now (a pending submission, or the daily limit reached), else None."""
        at = at or now()
        mine = [r for r in self.records() if r.get("user") == user]
        pending = [r for r in mine if r.get("status") == "pending" or (
            r.get("status") == "processing" and not cut_short(r, at))]
        if pending:
            return (f"you already have a pending submission ({pending[-1]['id']}, {pending[-1]['status']}): "
                    "wait until it is scored or reviewed")
        since = at - dt.timedelta(days=1)
        recent = [r for r in mine if dt.datetime.fromisoformat(r["received_at"]) > since]
        if len(recent) >= daily_limit:
            return f"daily limit reached ({daily_limit} submissions in 24 hours): try again later"
        return None

    def create(self, *, user: str, benchmark: str, model: str, link: str | None, backend: str | None,
               filename: str, data: bytes, kind: str, daily_limit: int) -> dict[str, Any]:
        """Store the upload and its record (status processing) if the user's limits allow; BadInput if not."""
        import hashlib

        with self.lock():
            problem = self.limit_problem(user, daily_limit)
            if problem:
                raise BadInput(problem, field="user")
            received = now()
            submission_id = f"{received.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(4)}"
            record = {"id": submission_id, "user": user, "benchmark": benchmark, "model": model, "link": link,
                      "backend": backend, "filename": filename, "kind": kind,
                      "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                      "received_at": received.isoformat(timespec="seconds"), "status": "processing",
                      "outcome": "", "history": []}
            atomic_write_bytes(self.folder(submission_id) / f"upload.{kind}", data)
            self.save(record)
        return record

    def upload_path(self, record: dict[str, Any]) -> Path:
        return self.folder(record["id"]) / f"upload.{record['kind']}"

    def save_row(self, submission_id: str, row: dict[str, Any]) -> None:
        atomic_write_json(self.folder(submission_id) / ROW, row)

    def row(self, submission_id: str) -> dict[str, Any] | None:
        path = self.folder(submission_id) / ROW
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
