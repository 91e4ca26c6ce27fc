"""The `hazardkit` console script: eval_kit's commands plus the build commands (forge, reconstruct, publish, demo)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from eval_kit.cli import HazardkitGroup, cli
from eval_kit.errors import BadInput


@cli.command()
def demo() -> None:
    """Run the main job end to end on embedded demo data (synthetic scenes, never the benchmark).

    Not complete yet: it prints the plan of what it will do.
    """
    steps = [
        "render synthetic road and sidewalk scenes with known vanishing point and safe action",
        "HazardForge: plan jobs, composite hazards with the CPU editor, quality-check them",
        "publish the `demo` configs of movsafebench/, bd_hazardvlm/ and saferelbench/",
        "load them with datasets.load_dataset and run the baseline models on all three benchmarks",
        "score the runs and render the leaderboard page",
    ]
    click.echo("hazardkit demo will:")
    for number, step in enumerate(steps, start=1):
        click.echo(f"  {number}. {step}")
    click.echo("Available now: `hazardkit score movsafebench` (see `hazardkit score movsafebench --help`).")


from builder.hazardforge.commands import forge  # noqa: E402  (HazardForge: plan, preview, synthetic)

cli.add_command(forge)
@cli.group()
def saferel() -> None:
    """SafeRelBench samples: self-validation before publishing."""


@saferel.command("validate")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--config", default=None, help="Dataset config when PATH is a dataset folder.")
def saferel_validate(path: Path | None, config: str | None) -> None:
    """Check every sample: schema, bddl parsing, and that its reference plan succeeds safely while the plan
    without each mitigation still succeeds but is unsafe. PATH defaults to manifests/saferelbench/.
    Exit 2 when any sample fails (the builder refuses to publish it)."""
    from builder.saferel_samples import DEMO_DIR, validate_samples
    from eval_kit.errors import BadInput
    from eval_kit.saferel.samples import load_samples

    target = path or DEMO_DIR
    checks = validate_samples(load_samples(target, config))
    for check in checks:
        details = "".join(f"\n     {problem}" for problem in check.problems)
        click.echo(f"{'ok  ' if check.ok else 'FAIL'} {check.sample_id}{details}")
    bad = [c.sample_id for c in checks if not c.ok]
    if bad:
        raise BadInput(f"{len(bad)} sample(s) fail self-validation: {', '.join(sorted(set(bad)))}", path=target)
    click.echo(f"{len(checks)} sample(s) valid")
@cli.group(cls=HazardkitGroup)
def reconstruct() -> None:
    """Rebuild a benchmark locally from its manifest and your own copies of the source datasets."""


@reconstruct.command("bd-hazardvlm")
@click.option("--manifest", type=click.Path(path_type=Path), help="Image manifest (JSON Lines).")
@click.option("--annotations", type=click.Path(path_type=Path), help="Annotation records (JSON Lines or Parquet).")
@click.option("--source", "sources", multiple=True, metavar="NAME=DIR",
              help="Root of your copy of a source dataset: rsud20k=DIR, tfp-bd=DIR (repeat).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("bd_hazardvlm"), show_default=True,
              help="Dataset folder; the Parquet and report go to OUT/reconstructed/ (OUT/data/demo/ with --demo).")
@click.option("--allow-missing", is_flag=True,
              help="Write the images that passed even when some are missing or wrong (marked incomplete).")
@click.option("--max-pixels", type=click.IntRange(min=1), default=None,
              help="Refuse images with more pixels than this (decompression bombs). Default 40,000,000.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Parallel file checks (default: up to 4).")
@click.option("--demo", is_flag=True,
              help="Use the bundled demo manifest, annotations and synthetic images; writes config `demo`.")
def reconstruct_bd_hazardvlm(manifest: Path | None, annotations: Path | None, sources: tuple[str, ...], out: Path,
                             allow_missing: bool, max_pixels: int | None, workers: int | None, demo: bool) -> None:
    """Verify every image's sha256 against the manifest, join the annotations and write local Parquet.

    Exits 2 listing every missing, tampered or unsafe file with its fix, unless --allow-missing; a partial
    result is marked incomplete in the report and in the Parquet metadata. Images are never published.
    """
    from builder import reconstruct as rec

    config = "reconstructed"
    if demo:
        config = "demo"
        manifest = manifest or rec.DEMO_DIR / "image_manifest.jsonl"
        annotations = annotations or rec.DEMO_DIR / "annotations.jsonl"
        sources = sources or tuple(f"{s}={rec.DEMO_DIR / 'sources' / s}" for s in ("rsud20k", "tfp_bd"))
    if manifest is None or annotations is None:
        raise BadInput("--manifest and --annotations are required", fix="or pass --demo for the bundled demo")
    pairs: dict[str, str] = {}
    for item in sources:
        name, sep, directory = item.partition("=")
        if not sep or not name or not directory:
            raise BadInput(f"--source {item!r} is not NAME=DIR", field="--source",
                           fix="e.g. --source rsud20k=/data/rsud20k")
        if name.lower().replace("-", "_") in {n.lower().replace("-", "_") for n in pairs}:
            raise BadInput(f"--source {name} given twice", field="--source", fix="give each source dataset once")
        pairs[name] = directory
    if not pairs:
        raise BadInput("no --source given", field="--source", fix="pass --source rsud20k=DIR --source tfp-bd=DIR")

    from rich.progress import Progress

    with Progress(transient=True, disable=not sys.stderr.isatty(), console=None) as progress:
        task = progress.add_task("checking images", total=None)
        report = rec.reconstruct(
            manifest, annotations, pairs, out, config=config, allow_missing=allow_missing,
            max_pixels=max_pixels or rec.DEFAULT_MAX_PIXELS, workers=workers,
            on_progress=lambda done, total: progress.update(task, completed=done, total=total),
        )
    report_path = rec.output_dir(out, config) / rec.REPORT_NAME
    for problem in report.problems:
        click.echo(f"problem: {problem.line()}", err=True)
    if report.complete:
        click.echo(f"reconstructed {report.reconstructed}/{report.expected} images in {report.seconds:.1f} s: "
                   f"{report.parquet} (report: {report_path})")
        return
    if not allow_missing:
        raise BadInput(f"{len(report.problems)} of {report.expected} images missing or invalid (listed above); "
                       f"nothing written except the report {report_path}",
                       path=manifest, fix="fix the files, or pass --allow-missing for an incomplete build")
    click.echo(f"INCOMPLETE: reconstructed {report.reconstructed}/{report.expected} images: {report.parquet} "
               f"(marked complete=false; report: {report_path})", err=True)
# Source adapters: `hazardkit sources scan|verify` (builder/sources/cli.py).
from builder.sources.cli import sources as _sources_group  # noqa: E402

cli.add_command(_sources_group)
def _register_publish() -> None:
    from builder.publish.command import publish_command

    cli.add_command(publish_command, "publish")


_register_publish()


def main(argv: list[str] | None = None) -> int:
    try:
        cli.main(args=argv, prog_name="hazardkit", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
