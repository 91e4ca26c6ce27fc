"""The MovSafeBench `demo` config, built by the real pipeline on synthetic scenes (never the benchmark).

synthetic road / sidewalk scenes -> plan (subsampled) -> CPU compositing editor -> heuristic quality check
-> run directory -> records (edited + no_edit). Every row says `source_benchmark: synthetic`. Re-running
reuses finished jobs (the run directory is resumable), so `make demo-data` is cheap the second time.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from eval_kit.movsafebench import spec

DEMO_SCENES = 8
DEMO_SIZE = (640, 360)
DEMO_PER_CELL = 2  # jobs kept per scenario x category cell


def demo_targets(per_cell: int = DEMO_PER_CELL) -> dict[str, dict[str, int]]:
    return {s: dict.fromkeys(spec.SCENARIO_CATEGORIES[s], per_cell) for s in spec.EDITED_SCENARIOS}


def build_demo(work_dir: str | Path, *, scenes: int = DEMO_SCENES, seed: int = 0, size: tuple[int, int] = DEMO_SIZE,
               per_cell: int = DEMO_PER_CELL, progress: bool = False) -> dict[str, Any]:
    """Run the demo pipeline into `work_dir`; returns paths and counts (records.jsonl is the publish input)."""
    from builder.movsafebench.hazardforge.config import ForgeConfig
    from builder.movsafebench.hazardforge.export import export_run
    from builder.movsafebench.hazardforge.job import WorkerSpec
    from builder.movsafebench.hazardforge.plan import build_plan, plan_stats_path, read_sources, write_plan_stats
    from builder.movsafebench.hazardforge.run import run_jobs
    from builder.movsafebench.hazardforge.runstore import RunStore
    from builder.movsafebench.sources.synthetic import write_synthetic_sources
    from eval_kit.jsonl import atomic_write_text
    from eval_kit.safe_paths import remove_tree

    work = Path(work_dir)
    sources = write_synthetic_sources(work / "scenes", scenes, seed=seed, width=size[0], height=size[1])
    config = ForgeConfig(target_counts=demo_targets(per_cell), subsample_seed=seed)
    jobs, stats = build_plan(read_sources(sources), config=config, plan_dir=work, sources_path=sources)
    plan = work / "plan.jsonl"
    text = "".join(json.dumps(job, sort_keys=True) + "\n" for job in jobs)
    if not plan.exists() or plan.read_text(encoding="utf-8") != text:
        atomic_write_text(plan, text)
    if not plan_stats_path(plan).exists() or json.loads(plan_stats_path(plan).read_text(encoding="utf-8")) != stats:
        write_plan_stats(plan, stats)
    worker = WorkerSpec(plan_dir=str(work.resolve()), editor="compositor", checker="heuristic")
    store = RunStore(work / "run")
    digest = hashlib.sha256(plan.read_bytes()).hexdigest()
    info = store.root / "run.json"
    from builder.library_versions import library_versions
    from builder.movsafebench.hazardforge.editors.compositor import CompositingEditor

    # the cache is reused only when made by this compositor under these library versions (the card states them)
    revision = CompositingEditor().provenance()["revision"] + "\n" + json.dumps(library_versions(), sort_keys=True)
    marker = work / "compositor_revision"
    stale = not marker.exists() or marker.read_text(encoding="utf-8") != revision
    if info.exists() and (stale or _plan_sha256(info) != digest):
        remove_tree(store.root, work)  # our own cache, built for other demo settings or compositor: start afresh
    atomic_write_text(marker, revision)
    with store.locked("demo"):
        store.init(worker.run_info(plan, digest, len(jobs)))
        summary = run_jobs(jobs, store, worker, progress=progress)
    path, rows = export_run(store.root, work, "all")
    return {"records": path, "run_dir": store.root, "plan": plan, "jobs": len(jobs), "plan_stats": stats,
            "run": summary.as_dict(), "rows": rows}


def _plan_sha256(info: Path) -> str | None:
    """The plan hash a cached demo run recorded (None when its run.json is unreadable: start afresh)."""
    from eval_kit.errors import BadInput
    from eval_kit.strictjson import read_json

    try:
        data = read_json(info)
    except BadInput:
        return None
    return data.get("plan_sha256") if isinstance(data, dict) else None
