"""`hazardkit forge run` and `hazardkit forge status`: execute a plan into a run directory and inspect it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from builder.movsafebench.hazardforge.job import CHECKERS, EDITORS, WorkerSpec
from builder.movsafebench.hazardforge.plan import read_plan_file
from builder.movsafebench.hazardforge.runstore import run_status
from eval_kit.errors import BadInput
from eval_kit.movsafebench import spec
from eval_kit.textreport import pct


@click.command("run")
@click.argument("plan", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), required=True,
              help="Run directory (created; re-running the same command resumes it).")
@click.option("--editor", type=click.Choice(EDITORS), default="compositor", show_default=True,
              help="compositor: CPU sprite compositing (demo, no GPU); the others are diffusers inpainting pipelines.")
@click.option("--editor-model", help="diffusers pipeline folder or Hub id (for flux-fill, flux-kontext, "
                                     "qwen-image-edit).")
@click.option("--editor-revision", help="Model revision (commit or tag) recorded in provenance.")
@click.option("--dtype", default="bfloat16", show_default=True, help="torch dtype of the editor.")
@click.option("--device", default="cuda", show_default=True, help="torch device of the editor.")
@click.option("--steps", type=click.IntRange(min=1), help="Denoising steps (default: the editor's).")
@click.option("--guidance", type=float, help="Guidance scale (default: the editor's).")
@click.option("--max-area", type=click.IntRange(min=256), default=1024 * 1024, show_default=True,
              help="Largest working area in pixels (sides are multiples of 16).")
@click.option("--sprites", type=click.Path(path_type=Path), help="Folder of <category>*.png cut-outs for the "
                                                                 "compositor (default: procedural sprites).")
@click.option("--checker", type=click.Choice(CHECKERS), default="heuristic", show_default=True,
              help="Quality check: vlm (paper 3.2.5, Qwen3-VL by default) or a cheap heuristic for the compositor.")
@click.option("--checker-model", help="VLM folder or Hub id for --checker vlm.")
@click.option("--checker-revision", help="VLM revision recorded in provenance.")
@click.option("--checker-device", help="device_map of the VLM (default: transformers' choice).")
@click.option("--max-retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="A rejected edit is retried with a new derived seed this many times.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: this process; ray: Ray actors, one editor each (same outputs).")
@click.option("--ray-address", help="HOST:PORT of a running Ray cluster's head (default: start a local one); "
                                    "checked first: no cluster there is one line within 30 s.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Ray actors.")
@click.option("--gpus-per-worker", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="GPUs each Ray actor reserves (1 on a GPU cluster).")
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N jobs of the plan.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def run_command(plan: Path, out: Path, editor: str, editor_model: str | None, editor_revision: str | None,
                dtype: str, device: str, steps: int | None, guidance: float | None, max_area: int,
                sprites: Path | None, checker: str, checker_model: str | None, checker_revision: str | None,
                checker_device: str | None, max_retries: int, engine: str, ray_address: str | None, workers: int,
                gpus_per_worker: float, limit: int | None, no_progress: bool) -> None:
    """Run PLAN (from `forge plan`) into a run directory: edit, quality-check, retry, record provenance.

    Outputs are content-addressed images and one record per job, written atomically. Re-running the same
    command skips finished jobs and redoes half-written ones. A job that cannot run (missing or tampered
    source, corrupt or too large image, model that does not load) is recorded as failed with its reason; the
    run goes on. The run directory is locked while the run lasts: a second run into it exits 2 naming the PID.
    """
    from builder.movsafebench.hazardforge.run import run_jobs
    from builder.movsafebench.hazardforge.runstore import RunStore

    if sprites is not None and not sprites.is_dir():
        raise BadInput("sprite folder not found", path=sprites)
    jobs, digest = read_plan_file(plan, limit)
    if engine == "ray" and ray_address:
        from builder.movsafebench.hazardforge.ray_engine import check_ray_address

        check_ray_address(ray_address)  # before anything else: a wrong address is one line within 30 s
    worker = WorkerSpec(
        plan_dir=str(plan.resolve().parent), editor=editor, editor_model=editor_model,
        editor_revision=editor_revision, dtype=dtype, device=device, steps=steps, guidance=guidance,
        max_area=max_area, sprites=str(sprites) if sprites else None, checker=checker, checker_model=checker_model,
        checker_revision=checker_revision, checker_device=checker_device, max_retries=max_retries,
    )
    store = RunStore(out)
    with store.locked("forge run"):  # a second run into --out exits 2 naming this process
        store.init(worker.run_info(plan, digest, len(jobs)))
        summary = run_jobs(jobs, store, worker, engine=engine, progress=not no_progress, ray_address=ray_address,
                           num_workers=workers, gpus_per_worker=gpus_per_worker, ray_address_checked=True)
    s = summary.as_dict()
    click.echo(f"{s['total']} jobs: {s['already_done']} already done, {s['processed']} run now "
               f"({', '.join(f'{k} {v}' for k, v in sorted(s['statuses'].items())) or 'none'}) in {s['seconds']} s")
    if s["lost_jobs"]:
        click.echo(f"  {s['lost_jobs']} job attempts lost their Ray worker or node and ran again on another")
    for failure in s["failures"][:20]:
        click.echo(f"  failed {failure['job_id']}: {failure['reason']}")
    if len(s["failures"]) > 20:
        click.echo(f"  ... and {len(s['failures']) - 20} more failures (see `hazardkit forge status {out}`)")
    click.echo(f"run directory: {out}")


@click.command("status")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def status_command(run_dir: Path, as_json: bool) -> None:
    """Progress and acceptance rates per scenario x category of a run directory, and its failures."""
    status = run_status(run_dir)
    if as_json:
        click.echo(json.dumps(status))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{status['finished']} of {status['jobs_in_plan']} jobs finished: accepted / finished "
                        f"(acceptance among checked: {_percent(status['acceptance_rate'])})")
    table.add_column("scenario")
    categories = [c for c in spec.CATEGORIES if any(c in cats for cats in status["cells"].values())]
    for category in categories:
        table.add_column(category, justify="right")
    for scenario in spec.EDITED_SCENARIOS:
        cats = status["cells"].get(scenario)
        if not cats:
            continue
        row = []
        for category in categories:
            counts = cats.get(category)
            row.append(f"{counts.get('accepted', 0)}/{sum(counts.values())}" if counts else "-")
        table.add_row(scenario, *row)
    Console(width=200).print(table)
    click.echo("statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(status["statuses"].items())))
    for failure in status["failures"][:20]:
        click.echo(f"  failed {failure['job_id']}: {failure['reason']}")


@click.command("export")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), required=True,
              help="Folder for records.jsonl (then: hazardkit publish movsafebench --input FOLDER).")
@click.option("--scope", type=click.Choice(["edited", "no_edit", "all"]), default="edited", show_default=True,
              help="edited: accepted jobs; no_edit: the plan's unedited source images; all: both.")
def export_command(run_dir: Path, out: Path, scope: str) -> None:
    """Write a run's accepted jobs (and/or source images) as MovSafeBench records for `hazardkit publish`.

    Image paths in records.jsonl are relative to --out (e.g. `images/ab/ab....png` with --out RUN_DIR).
    build.json beside it holds the run's acceptance per scenario x category and the image roots, so
    `hazardkit publish movsafebench --input OUT` publishes the folder as it is."""
    from builder.movsafebench.hazardforge.export import export_run

    path, count = export_run(run_dir, out, scope)
    click.echo(f"wrote {count} records to {path} and {path.parent / 'build.json'}")


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{pct(value)}%"
