"""The run directory of a HazardForge run: content-addressed images plus one provenance record per job.

Layout (everything written atomically: temp file in the same folder, fsync, rename):

    RUNDIR/run.json                      what the run was started with (plan hash, editor, checker)
    RUNDIR/images/<aa>/<sha256>.png      output images, named by the sha256 of their bytes
    RUNDIR/jobs/<aa>/<job_id>.json       the job's record; its presence means the job is finished
    RUNDIR/timings/<aa>/<job_id>.json    wall times of the job (kept apart so records are reproducible)

A job is finished exactly when its record exists, and the record is written after its image, so a
crash at any point leaves either a finished job or a job that is redone from scratch. Records hold
only deterministic content (inputs' hashes, model ids, prompt, mask, seed, verdicts), so an
interrupted and resumed run produces byte-for-byte the same records and images as an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.folder_lock import folder_lock
from eval_kit.jsonl import TEMP_SUFFIX, atomic_write_bytes, atomic_write_text
from eval_kit.safe_paths import refuse_links
from eval_kit.strictjson import read_json

RECORD_STATUSES = ("accepted", "rejected", "failed")


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


@dataclass(frozen=True)
class RunStore:
    """Paths and atomic writes of one run directory."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    # ---- paths -------------------------------------------------------------------------------
    def record_path(self, job_id: str) -> Path:
        return self.root / "jobs" / job_id[:2] / f"{job_id}.json"

    def timing_path(self, job_id: str) -> Path:
        return self.root / "timings" / job_id[:2] / f"{job_id}.json"

    def image_path(self, sha256: str) -> Path:
        return self.root / "images" / sha256[:2] / f"{sha256}.png"

    # ---- state -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, command: str = "forge run") -> Iterator[None]:
        """Hold the run directory's advisory lock (`eval_kit.folder_lock`): a second run into the same folder
        exits 2 naming the PID that holds it, so it can never delete the first one's in-flight temp files.
        A lock left by a killed run does not block (the kernel drops it with its process)."""
        refuse_links(self.root)  # the run directory is wholly ours: a link anywhere in it is planted
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise BadInput("is not a folder (a file is in the way of the run directory)", path=self.root,
                           field="--out", fix="pass --out a folder (it is created when missing)") from None
        except (OSError, ValueError) as exc:
            raise BadInput(f"cannot create the run directory ({getattr(exc, 'strerror', None) or exc})",
                           path=self.root, field="--out") from None
        with folder_lock(self.root, command):
            yield

    def init(self, run_info: dict[str, Any]) -> None:
        """Create the folder; refuse to mix runs (a different plan or editor in the same folder)."""
        self.root.mkdir(parents=True, exist_ok=True)
        info_path = self.root / "run.json"
        if info_path.exists():
            existing = read_json(info_path)
            if not isinstance(existing, dict):
                raise BadInput("run.json is not a JSON object", path=info_path,
                               fix="use a new --out folder (this one holds no forge run)")
            keys = ("plan_sha256", "editor", "checker", "max_attempts")
            changed = [k for k in keys if existing.get(k) != run_info.get(k)]
            if changed:
                raise BadInput(
                    f"this run directory was started with a different {', '.join(changed)}",
                    path=info_path,
                    fix="resume with the same plan and settings, or use a new --out folder",
                )
            return
        atomic_write_text(info_path, _canonical(run_info))

    def clean_partial(self) -> int:
        """Remove temp files left by a crash mid-write (`.<name>.<random>.hazardkit-tmp`, a name no person
        would choose; a maintainer's `.draft.tmp` is kept); returns how many were removed."""
        removed = 0
        for tmp in self.root.rglob(f".*{TEMP_SUFFIX}"):
            if tmp.is_file() and not tmp.is_symlink():
                tmp.unlink(missing_ok=True)
                removed += 1
        return removed

    def is_done(self, job_id: str) -> bool:
        path = self.record_path(job_id)
        if not path.exists():
            return False
        try:
            record = read_json(path)
        except (BadInput, OSError):
            return False  # damaged: the job is redone
        if not isinstance(record, dict):
            return False
        image = record.get("image_sha256")
        return image is None or self.image_path(image).exists()

    def write_result(self, job_id: str, record: dict[str, Any], image_png: bytes | None,
                     timings: dict[str, float] | None = None) -> None:
        """Write the image (if any), then the record: the record's arrival marks the job finished."""
        record = dict(record)
        if image_png is not None:
            digest = hashlib.sha256(image_png).hexdigest()
            path = self.image_path(digest)
            if not path.exists():
                atomic_write_bytes(path, image_png)
            record["image_sha256"] = digest
        else:
            record["image_sha256"] = None
        if timings is not None:
            atomic_write_text(self.timing_path(job_id), _canonical(timings))
        atomic_write_text(self.record_path(job_id), _canonical(record))

    def records(self) -> Iterator[dict[str, Any]]:
        """Every finished job's record (unreadable ones are skipped: they are redone on resume)."""
        return _json_objects(self.root / "jobs")

    def timings(self) -> Iterator[dict[str, Any]]:
        return _json_objects(self.root / "timings")


def _json_objects(folder: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of every `*.json` under `folder`, in path order; unreadable files are skipped."""
    if not folder.exists():
        return
    for path in sorted(folder.rglob("*.json")):
        try:
            obj = read_json(path)
        except (BadInput, OSError):
            continue
        if isinstance(obj, dict):
            yield obj


def run_status(run_dir: Path) -> dict[str, Any]:
    """Progress and acceptance per scenario x category, from the records in a run directory."""
    info_path = run_dir / "run.json"
    if not info_path.exists():
        raise BadInput("not a forge run directory (no run.json)", path=run_dir)
    info = read_json(info_path)
    if not isinstance(info, dict):
        raise BadInput("run.json is not a JSON object", path=info_path)
    cells: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    totals: Counter = Counter()
    failures = []
    for record in RunStore(run_dir).records():
        status = record.get("status", "failed")
        cells[record.get("scenario") or "?"][record.get("category") or "?"][status] += 1
        totals[status] += 1
        if status == "failed":
            failures.append({"job_id": record.get("job_id"), "reason": record.get("reason")})
    done = sum(totals.values())
    return {
        "run_dir": str(run_dir), "jobs_in_plan": info.get("jobs_in_plan"), "finished": done,
        "statuses": dict(totals),
        "acceptance_rate": (totals["accepted"] / (totals["accepted"] + totals["rejected"]))
        if totals["accepted"] + totals["rejected"] else None,
        "cells": {s: {c: dict(v) for c, v in cats.items()} for s, cats in cells.items()},
        "failures": failures,
    }
