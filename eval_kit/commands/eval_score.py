"""`hazardkit score run RUNDIR`: re-parse a run's raw log with today's parser and score it, offline."""

from __future__ import annotations

import json
from pathlib import Path

import click

from eval_kit.errors import BadInput


def score_run_dir(run_dir: Path, *, n_bootstrap: int = 1000, seed: int = 0) -> dict:
    """The benchmark's JSON result for a run folder, plus model / run / backend for the leaderboard."""
    from eval_kit.jsonl import atomic_write_json
    from eval_kit.runners import harness, registry

    run_file = run_dir / harness.RUN_FILE
    if not run_file.exists():
        raise BadInput("not a run folder (no run.json)", path=run_dir, fix="pass the --out folder of `hazardkit eval`")
    try:
        info = json.loads(run_file.read_text(encoding="utf-8"))
        identity = info["identity"]
    except (ValueError, KeyError):
        raise BadInput("unreadable run.json", path=run_file) from None
    entry = registry.get(identity["benchmark"])
    task = registry.make_task(identity["benchmark"], data=info.get("data"), config=identity.get("config"),
                              dataset_revision=identity.get("dataset_revision"), variant=identity.get("variant"))
    predictions, _ = harness.write_submission(run_dir, identity, parse=task.parse, task=task)
    result = entry.score_run(task, predictions, n_bootstrap=n_bootstrap, seed=seed)
    label = identity["model"] + (f" [{identity['variant']}]" if entry.variants and identity.get("variant") else "")
    label += " (text-only)" if identity.get("text_only") and task.name != "saferelbench" else ""
    result.update({
        "model": label, "run": run_dir.resolve().name, "backend": identity["backend"],
        "text_only": bool(identity.get("text_only")), "variant": identity.get("variant"),
        "dataset_revision": identity.get("dataset_revision"), "benchmark_version": identity.get("benchmark_version"),
        "predictions": str(predictions),
    })
    atomic_write_json(run_dir / "scores.json", result)
    return result


@click.command("run")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result JSON (what `leaderboard add` takes).")
@click.option("--bootstrap", "n_bootstrap", default=1000, show_default=True, type=click.IntRange(100, 100000))
@click.option("--seed", default=0, show_default=True)
def score_run_command(run_dir: Path, as_json: bool, n_bootstrap: int, seed: int) -> None:
    """Score a `hazardkit eval` run folder from its raw log (re-parsed): movsafebench, bd-hazardvlm, saferelbench.

    Writes RUNDIR/predictions.jsonl (re-parsed) and RUNDIR/scores.json; --json prints the same JSON.
    """
    result = score_run_dir(run_dir, n_bootstrap=n_bootstrap, seed=seed)
    for partial in result.get("references_incomplete") or []:
        click.echo(f"warning: {partial['file']} is an INCOMPLETE reconstruction ({partial.get('reconstructed')} of "
                   f"{partial.get('expected')} images): these scores are not BD-HazardVLM scores", err=True)
    if as_json:
        click.echo(json.dumps(result))
        return
    from eval_kit.leaderboard.boards import board_for, lookup

    board = board_for(result["benchmark"])
    headline = lookup(result, board.headline)
    click.echo(f"{result['benchmark']} / {result['model']}: {board.headline_label} "
               f"{'-' if headline is None else f'{100 * headline:.1f}%'} on {result.get('num_samples')} samples"
               f"{' (partial run)' if result.get('partial') else ''}; full result in {run_dir / 'scores.json'}")
