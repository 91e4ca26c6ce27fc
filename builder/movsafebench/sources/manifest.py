"""The manifest of chosen sources (`manifests/movsafebench/<version>/sources.jsonl`): write, read, verify, open.

Each line is one `SourceRecord` (schema `movsafebench_source`): id, dataset, path relative to that dataset's
root, sha256, gt_action, agent (+ `extra`). The images are not redistributed: a maintainer points `roots`
(dataset name -> local folder) at their own copies and every image is checked against its sha256 before use,
so a rebuilt benchmark provably starts from the same pixels.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.movsafebench.sources.common import (
    SourceRecord,
    image_problem,
    open_image_checked,
    resolve_relative,
    sha256_file,
)
from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_text, iter_jsonl
from eval_kit.schemas import validate_or_raise

SCHEMA = "movsafebench_source"


@dataclass(frozen=True)
class ManifestProblem:
    """A manifest entry whose image cannot be used, and why (missing, checksum mismatch, corrupt)."""

    id: str
    reason: str


def write_manifest(records: Iterable[SourceRecord], path: str | Path, *, root: str | Path | None = None) -> int:
    """Write records sorted by id, atomically; duplicate ids are BadInput. Returns the number written.

    `root` (the folder the scan read, made absolute) is recorded in every row that has none, so `forge plan`
    and `sources verify` find the images without a second --root wherever the manifest is written."""
    rows = [r.to_manifest_row() for r in records]
    if root is not None:
        absolute = str(Path(root).resolve())
        for row in rows:
            row.setdefault("root", absolute)
    ids = [r["id"] for r in rows]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise BadInput(f"duplicate source ids {dupes[:5]}", path=path, fix="ids must be unique across datasets")
    for row in rows:
        validate_or_raise(SCHEMA, row, path=path)
    rows.sort(key=lambda r: r["id"])
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows)
    atomic_write_text(path, text)
    return len(rows)


def read_manifest(path: str | Path) -> list[SourceRecord]:
    """Parse and validate every line; BadInput names the line and field of the first problem."""
    records: list[SourceRecord] = []
    seen: set[str] = set()
    for line, row in iter_jsonl(path):
        validate_or_raise(SCHEMA, row, path=path, line=line)
        if row["id"] in seen:
            raise BadInput(f"duplicate id {row['id']!r}", path=path, line=line, field="id")
        seen.add(row["id"])
        records.append(SourceRecord(id=row["id"], dataset=row["dataset"], path=row["path"], sha256=row["sha256"],
                                    gt_action=row["gt_action"], agent=row["agent"], extra=row.get("extra", {}),
                                    ego_hood=row.get("ego_hood"), ego_hood_override=row.get("ego_hood_override"),
                                    vanishing_point=row.get("vanishing_point"), root=row.get("root")))
    return records


def _root_for(record: SourceRecord, roots: Mapping[str, str | Path]) -> Path:
    """--root DATASET=DIR when given, else the root the scan recorded in the row."""
    if record.dataset in roots:
        return Path(roots[record.dataset])
    if record.root is not None:
        return Path(record.root)
    raise BadInput(f"no root folder given for dataset {record.dataset!r} (the manifest records none)",
                   fix=f"pass --root {record.dataset}=/path/to/its/images")


def check_record(record: SourceRecord, roots: Mapping[str, str | Path], *, decode: bool = True) -> str | None:
    """Why this record's image is unusable (missing / checksum mismatch / corrupt), or None when it is fine."""
    image = record.resolve(_root_for(record, roots))
    if not image.is_file():
        return f"source file missing: {image} (pass --root {record.dataset}=DIR if the images moved)"
    actual = sha256_file(image)
    if actual != record.sha256:
        return f"checksum mismatch for {image}: manifest {record.sha256[:12]}..., file {actual[:12]}..."
    if decode and (problem := image_problem(image)):
        return f"{problem}: {image}"
    return None


def verify_manifest(records: Iterable[SourceRecord], roots: Mapping[str, str | Path], *,
                    decode: bool = True) -> list[ManifestProblem]:
    """Check every record; returns the problems (empty list = all images present and identical)."""
    problems = []
    for record in records:
        reason = check_record(record, roots, decode=decode)
        if reason:
            problems.append(ManifestProblem(record.id, reason))
    return problems


def open_source_image(record: SourceRecord, roots: Mapping[str, str | Path]) -> Any:
    """The verified source image as PIL RGB; BadInput with the reason when it is missing, altered or corrupt.

    The run engine calls this per job: a BadInput fails only that job, with `str(exc)` as the recorded reason.
    """

    reason = check_record(record, roots)
    if reason:
        raise BadInput(reason, field=f"source {record.id}")
    with open_image_checked(resolve_relative(_root_for(record, roots), record.path)) as img:
        return img.convert("RGB")


def source_provenance(record: SourceRecord) -> dict[str, Any]:
    """The fields a job's provenance record keeps about its input."""
    return {"source_id": record.id, "dataset": record.dataset, "path": record.path, "sha256": record.sha256,
            "gt_action": record.gt_action, "agent": record.agent}
