"""Scoring a `hazardkit eval` run folder: re-parse its raw log with today's parser and score it, offline.

Samples whose last outcome is a failure (the server never answered) are scored as empty answers, i.e.
wrong, and reported: `failed` (their number) and `failed_ids` in the result.
"""

from __future__ import annotations

from pathlib import Path

from eval_kit.errors import BadInput


def score_run_dir(run_dir: Path, *, n_bootstrap: int = 1000, seed: int = 0) -> dict:
    """The benchmark's JSON result for a run folder, plus model / run / backend for the leaderboard."""
    from eval_kit import registry
    from eval_kit.jsonl import atomic_write_json
    from eval_kit.runners import harness

    run_file = run_dir / harness.RUN_FILE
    if not run_file.exists():
        raise BadInput("not a run folder (no run.json)", path=run_dir, fix="pass the --out folder of `hazardkit eval`")
    from eval_kit.strictjson import read_json

    info = read_json(run_file)
    identity = info.get("identity") if isinstance(info, dict) else None
    required = ("benchmark", "model", "backend")
    if not isinstance(identity, dict) or not all(isinstance(identity.get(k), str) for k in required):
        raise BadInput("run.json has no valid identity (benchmark, model, backend)", path=run_file,
                       fix="pass the --out folder of `hazardkit eval`, unmodified")
    if info.get("data") is not None and not isinstance(info.get("data"), str):
        raise BadInput("run.json: `data` must be a path string", path=run_file, field="data")
    entry = registry.get(identity["benchmark"])
    task = registry.make_task(identity["benchmark"], data=info.get("data"), config=identity.get("config"),
                              dataset_revision=identity.get("dataset_revision"), variant=identity.get("variant"))
    predictions, _ = harness.write_submission(run_dir, identity, parse=task.parse, task=task)
    failed = harness.failed_ids(run_dir)
    result = entry.part("score_run")(task, predictions, n_bootstrap=n_bootstrap, seed=seed)
    label = harness.run_display_name(run_dir, identity)  # the prompt variant is a column of its own, not a name
    label += " (text-only)" if identity.get("text_only") and entry.has_images else ""
    result.update({
        "model": label, "run": run_dir.resolve().name, "backend": identity["backend"],
        "text_only": bool(identity.get("text_only")), "variant": identity.get("variant"),
        "dataset_revision": identity.get("dataset_revision"), "benchmark_version": identity.get("benchmark_version"),
        "predictions": str(predictions), "failed": len(failed), "failed_ids": failed,
    })
    atomic_write_json(run_dir / "scores.json", result)
    return result

