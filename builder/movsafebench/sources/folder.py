"""Folder/JSONL adapter: any images of your own, listed in a JSON Lines index.

Each line: `{"id": ..., "path": "relative/to/root.jpg", "gt_action": "left|straight|right",
"agent": "vehicle|robot"}` (schema `movsafebench_source_folder`); other fields go to the record's `extra`.
Bad index lines are BadInput (the user wrote them); a missing or unreadable image is a Skipped entry.
"""

from __future__ import annotations

from pathlib import Path

from builder.movsafebench.sources.common import (
    ScanResult,
    Skipped,
    SourceRecord,
    detect_hood,
    image_problem,
    resolve_relative,
    sha256_file,
)
from eval_kit.errors import BadInput
from eval_kit.jsonl import iter_jsonl
from eval_kit.schemas import validate_or_raise

SCHEMA = "movsafebench_source_folder"
_CORE = ("id", "path", "gt_action", "agent")
_TOP_LEVEL = ("ego_hood_override", "vanishing_point", "obstacles")  # kept as manifest fields, not in `extra`


def scan(index: str | Path, root: str | Path | None = None, *, dataset: str = "folder",
         check_images: bool = True, detect_hoods: bool = False) -> ScanResult:
    """Records for every line of `index`; image paths are relative to `root` (default: the index's folder)."""
    index = Path(index)
    base = Path(root) if root is not None else index.parent
    result = ScanResult()
    seen: set[str] = set()
    for line, row in iter_jsonl(index):
        validate_or_raise(SCHEMA, row, path=index, line=line)
        if row["id"] in seen:
            raise BadInput(f"duplicate id {row['id']!r}", path=index, line=line, field="id", fix="ids must be unique")
        seen.add(row["id"])
        try:
            image = resolve_relative(base, row["path"])
        except BadInput as exc:
            raise BadInput(exc.detail, path=index, line=line, field="path") from None
        problem = image_problem(image) if check_images else (None if image.is_file() else "image file not found")
        if problem:
            result.skipped.append(Skipped(f"{index}:{line}", f"{problem}: {image}", problem))
            continue
        result.records.append(SourceRecord(
            id=row["id"], dataset=dataset, path=Path(row["path"]).as_posix(), sha256=sha256_file(image),
            gt_action=row["gt_action"], agent=row["agent"],
            extra={k: v for k, v in row.items() if k not in _CORE + _TOP_LEVEL},
            ego_hood=detect_hood(image) if detect_hoods else None,
            ego_hood_override=row.get("ego_hood_override"), vanishing_point=row.get("vanishing_point"),
            obstacles=row.get("obstacles"),
        ))
    return result
