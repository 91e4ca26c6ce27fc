"""A forge run directory as MovSafeBench records: the input of `hazardkit publish movsafebench --input`.

Accepted jobs become edited rows (image = the run's content-addressed PNG, stored as produced); each source
image of the plan can become a `no_edit` row (image = the source file's bytes, unchanged). Row ids are
derived from job ids (hashes of inputs and layout config), so they are stable across re-runs and releases.
`source_benchmark` is the source manifest's `dataset`, carried through the plan and the job record; each
edited row keeps `object_box`, the box each edit's object occupies. Image paths are written relative to the
folder of records.jsonl (which `publish --input` resolves them against), so a run exported into itself
(`--out RUN_DIR`) can be moved or copied as one folder.

Beside records.jsonl the export writes `build.json`: what the card states about the build and cannot read
from the rows (the run's editor and checker settings, acceptance per scenario x category over every finished
job, rejected and failed included, the library versions and editor / checker revisions the rows were made
under: `environments`) and the image roots the records point into (the run folder, the sources'
folder), so `publish --input OUT` reads the images wherever the export left them, without `--image-root`.
It carries the sha256 of records.jsonl: edit the records and publish refuses the stale summary.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

SCOPES = ("edited", "no_edit", "all")
# the edit that defines the scenario; "near" objects only fill the other regions
_PRIMARY_ROLES = ("motion", "intrusion", "far")


def _primary_edit(edits: list[dict[str, Any]]) -> dict[str, Any] | None:
    for role in _PRIMARY_ROLES:
        for edit in edits:
            if edit.get("role") == role:
                return edit
    return edits[0] if edits else None


def _relative(path: Path, out_dir: Path | None) -> str:
    """`path` relative to the export folder (POSIX); absolute when no folder is given."""
    resolved = path.resolve()
    if out_dir is None:
        return str(resolved)
    return Path(os.path.relpath(resolved, out_dir.resolve())).as_posix()


def edited_record(record: dict[str, Any], run_dir: Path, out_dir: Path | None = None) -> dict[str, Any]:
    """One accepted job's record as a MovSafeBench record (image path relative to `out_dir` when given)."""
    edits = record.get("edits") or []
    primary = _primary_edit(edits)
    digest = record["image_sha256"]
    editor = record.get("editor") or {}
    checker = record.get("checker") or {}
    return {
        "id": f"msb-{record['job_id']}",
        "answer": record["ground_truth"],
        "scenario": record["scenario"],
        "category": record["category"],
        "source_benchmark": record["source_benchmark"],
        "source_id": record["source_id"],
        "agent": record["agent"],
        "image_path": _relative(run_dir / "images" / digest[:2] / f"{digest}.png", out_dir),
        "object_direction": primary.get("direction") if primary else None,
        "prompt": " | ".join(e["prompt"] for e in edits),
        "editor": editor.get("model_id") or editor.get("editor"),
        "editor_revision": editor.get("revision"),
        "checker": checker.get("model_id") or checker.get("checker"),
        "checker_revision": checker.get("revision") or _settings_revision(checker),
        "seed": int(record["seed"]) if record.get("seed") is not None else None,
        "job_id": record["job_id"],
        "source_sha256": record.get("source_sha256"),
        "pipeline_version": f"{record.get('config_version')}/{record.get('record_version')}",
        "object_box": [e.get("object_box") for e in edits] if all(e.get("object_box") for e in edits) else None,
    }


def _settings_revision(provenance: dict[str, Any]) -> str | None:
    """A checker without a model revision (the heuristic) is identified by its settings' digest."""
    import hashlib

    if not provenance:
        return None
    digest = hashlib.sha256(json.dumps(provenance, sort_keys=True).encode()).hexdigest()[:12]
    return f"settings-{digest}"


def no_edit_record(job: dict[str, Any], plan_dir: Path, out_dir: Path | None = None) -> dict[str, Any]:
    """The unedited source image of a plan line as a `no_edit` record."""
    image = Path(job["image"])
    image = image if image.is_absolute() else plan_dir / image
    return {
        "id": f"msb-{job['source_benchmark']}-{job['source_id']}-no_edit",
        "answer": job["ground_truth"],
        "scenario": "no_edit",
        "category": None,
        "source_benchmark": job["source_benchmark"],
        "source_id": job["source_id"],
        "agent": job["agent"],
        "image_path": _relative(image, out_dir),
        "source_sha256": job["source_sha256"],
        "pipeline_version": job.get("config_version"),
    }


def run_records(run_dir: str | Path, scope: str = "edited", out_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """MovSafeBench records of a run: accepted jobs (`edited`), source images (`no_edit`) or both (`all`).

    Image paths are relative to `out_dir` (the folder records.jsonl goes to) when given, else absolute."""
    out = Path(out_dir) if out_dir is not None else None
    from builder.movsafebench.hazardforge.plan import read_plan
    from builder.movsafebench.hazardforge.runstore import RunStore

    if scope not in SCOPES:
        raise BadInput(f"unknown scope {scope!r}", fix=f"use one of {', '.join(SCOPES)}")
    run_dir = Path(run_dir)
    info_path = run_dir / "run.json"
    if not info_path.exists():
        raise BadInput("not a forge run directory (no run.json)", path=run_dir)
    records: list[dict[str, Any]] = []
    if scope in ("edited", "all"):
        records += [edited_record(r, run_dir, out) for r in RunStore(run_dir).records()
                    if r.get("status") == "accepted"]
    if scope in ("no_edit", "all"):
        from eval_kit.strictjson import read_json

        info = read_json(info_path)
        if not isinstance(info, dict) or not isinstance(info.get("plan"), str):
            raise BadInput("run.json names no plan file", path=info_path, field="plan")
        plan = Path(info["plan"])
        if not plan.is_file():
            raise BadInput(f"the run's plan {plan} is gone; no_edit rows need its source images", path=info_path,
                           field="--scope", fix="restore the plan file, or export with --scope edited")
        seen: set[tuple[str, str]] = set()
        for _, job in read_plan(plan):
            key = (job["source_benchmark"], job["source_id"])
            if key not in seen:
                seen.add(key)
                records.append(no_edit_record(job, plan.parent, out))
    return sorted(records, key=lambda r: r["id"])


def write_records(records: list[dict[str, Any]], out: str | Path) -> Path:
    """`out/records.jsonl`, written atomically; returns its path (build `records` with `out_dir=out`)."""
    from eval_kit.jsonl import atomic_write_text

    path = Path(out) / "records.jsonl"
    atomic_write_text(path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    return path


def acceptance_cells(run_dir: str | Path) -> dict[str, dict[str, dict[str, int]]]:
    """scenario -> category -> {accepted, rejected, failed}: every finished job of the run."""
    from builder.movsafebench.hazardforge.runstore import RECORD_STATUSES, RunStore

    cells: dict[str, dict[str, dict[str, int]]] = {}
    for record in RunStore(Path(run_dir)).records():
        status = record.get("status")
        if status not in RECORD_STATUSES or not record.get("scenario") or not record.get("category"):
            continue
        cell = cells.setdefault(record["scenario"], {}).setdefault(
            record["category"], dict.fromkeys(RECORD_STATUSES, 0))
        cell[status] += 1
    return {s: dict(sorted(c.items())) for s, c in sorted(cells.items())}


def environments(run_dir: str | Path, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How the exported edited rows were built: one entry per distinct set of library versions (`libraries`,
    as the forge worker recorded them; None for a record from a run older than that recording) and editor /
    checker revisions, with its row count, most rows first."""
    from builder.library_versions import environment_key
    from builder.movsafebench.hazardforge.runstore import RunStore

    exported = {r["job_id"]: r for r in records if r.get("scenario") != "no_edit" and r.get("job_id")}
    groups: dict[tuple, dict[str, Any]] = {}
    for job in RunStore(Path(run_dir)).records():
        row = exported.get(job.get("job_id"))
        if row is None or job.get("status") != "accepted":
            continue
        libraries = job.get("libraries")
        entry = {"libraries": dict(sorted(libraries.items())) if isinstance(libraries, dict) else None,
                 **{k: row.get(k) for k in ("editor", "editor_revision", "checker", "checker_revision")}}
        group = groups.setdefault(environment_key(entry), {**entry, "rows": 0})
        group["rows"] += 1
    return sorted(groups.values(), key=lambda g: (-g["rows"], json.dumps(g, sort_keys=True)))


def obstacle_counts(run_dir: Path) -> dict[str, Any]:
    """Placements kept off known obstacle boxes: `moved` (objects of the run's accepted jobs, the edited rows,
    whose mask the plan moved along its row, layout.avoid_obstacles), `skipped` (layouts the plan skipped because
    every column would cover an obstacle, from the plan's stats file; None when the plan left none), `sources`
    (sources with boxes)."""
    from builder.movsafebench.hazardforge.plan import plan_stats_path
    from builder.movsafebench.hazardforge.runstore import RunStore
    from eval_kit.strictjson import read_json

    moved = sum(1 for r in RunStore(run_dir).records() if r.get("status") == "accepted"
                for e in r.get("edits") or [] if (e.get("object_size") or {}).get("moved_from"))
    skipped = sources = None
    info = read_json(run_dir / "run.json")
    plan = info.get("plan") if isinstance(info, dict) else None
    if isinstance(plan, str) and plan_stats_path(plan).is_file():
        stats = read_json(plan_stats_path(plan))
        if isinstance(stats, dict):
            skipped, sources = stats.get("obstacle_skipped"), stats.get("obstacle_sources")
    return {"moved": moved, "skipped": skipped, "sources": sources}


def build_summary(run_dir: str | Path, records: list[dict[str, Any]], records_path: Path, scope: str
                  ) -> dict[str, Any]:
    """The build.json of an export (see the module docstring)."""
    import hashlib

    from builder.movsafebench.publisher import BUILD_FORMAT
    from eval_kit.strictjson import read_json

    run_dir = Path(run_dir)
    info = read_json(run_dir / "run.json")
    run = {k: info.get(k) for k in ("plan_sha256", "editor", "checker", "max_attempts", "jobs_in_plan")} \
        if isinstance(info, dict) else {}
    base = records_path.parent.resolve()
    images = [(base / r["image_path"]).resolve() for r in records if r.get("image_path")]
    run_root = run_dir.resolve()
    roots = {run_root}
    outside = sorted({p.parent for p in images if not p.is_relative_to(base) and not p.is_relative_to(run_root)})
    if outside:
        common = Path(os.path.commonpath([str(p) for p in outside]))
        # one folder holding every source image; never the file system's root (then each folder on its own)
        roots.update([common] if common.parent != common else outside)
    with open(records_path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return {"format": BUILD_FORMAT, "records_sha256": digest, "scope": scope, "records": len(records),
            "run": run, "acceptance": acceptance_cells(run_dir), "environments": environments(run_dir, records),
            "obstacles": obstacle_counts(run_dir),
            "image_roots": sorted(str(r) for r in roots)}


def export_run(run_dir: str | Path, out: str | Path, scope: str = "edited") -> tuple[Path, int]:
    """records.jsonl and build.json of a run in `out` (both atomic); returns (records path, rows)."""
    from builder.movsafebench.publisher import BUILD_FILENAME
    from eval_kit.jsonl import atomic_write_json
    from eval_kit.safe_paths import refuse_links

    refuse_links(out, "records.jsonl", BUILD_FILENAME)  # never written through a planted link
    records = run_records(run_dir, scope, out_dir=out)
    path = write_records(records, out)
    atomic_write_json(Path(out) / BUILD_FILENAME, build_summary(run_dir, records, path, scope))
    return path, len(records)
