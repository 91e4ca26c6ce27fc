"""`hazardkit reconstruct bd-hazardvlm`: rebuild BD-HazardVLM locally from a manifest and your source copies;
`hazardkit manifest bd-hazardvlm`: the maintainers' tool that makes that manifest (every image decoded in full)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from eval_kit.clikit import HazardkitGroup
from eval_kit.errors import BadInput


@click.group(cls=HazardkitGroup)
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
@click.option("--decode", is_flag=True,
              help="Decode every pixel of every image too (slower). Without it an image pinned by sha256 is checked "
                   "by size, hash, header, dimensions and end-of-image marker: the manifest tool decoded those "
                   "exact bytes in full when the manifest was made. Entries without sha256 are always decoded.")
@click.option("--demo", is_flag=True,
              help="Use the bundled demo manifest, annotations and synthetic images; writes config `demo`.")
def reconstruct_bd_hazardvlm(manifest: Path | None, annotations: Path | None, sources: tuple[str, ...], out: Path,
                             allow_missing: bool, max_pixels: int | None, workers: int | None, decode: bool,
                             demo: bool) -> None:
    """Verify every image's sha256 against the manifest, join the annotations and write local Parquet.

    Exits 2 listing every missing, tampered or unsafe file with its fix, unless --allow-missing; a partial
    result is marked incomplete in the report and in the Parquet metadata. Images are never published.
    A refused rebuild sets the previous Parquet aside (`*.parquet.unverified`); two reconstructions into one
    folder at once are refused (exit 2, naming the PID that holds it).
    """
    from builder.bd_hazardvlm import reconstruct as rec

    config = "reconstructed"
    if demo:
        config = "demo"
        manifest = manifest or rec.DEMO_DIR / "image_manifest.jsonl"
        annotations = annotations or rec.DEMO_DIR / "annotations.jsonl"
        sources = sources or tuple(f"{s}={rec.DEMO_DIR / 'sources' / s}" for s in ("rsud20k", "tfp_bd"))
    if manifest is None or annotations is None:
        raise BadInput("--manifest and --annotations are required", fix="or pass --demo for the bundled demo")
    pairs = _pairs(sources, "--source", "DIR", "/data/rsud20k")
    if not pairs:
        raise BadInput("no --source given", field="--source", fix="pass --source rsud20k=DIR --source tfp-bd=DIR")

    from rich.progress import Progress

    with Progress(transient=True, disable=not sys.stderr.isatty(), console=None) as progress:
        task = progress.add_task("checking images", total=None)
        report = rec.reconstruct(
            manifest, annotations, pairs, out, config=config, allow_missing=allow_missing,
            max_pixels=max_pixels or rec.DEFAULT_MAX_PIXELS, workers=workers, decode=decode,
            on_progress=lambda done, total: progress.update(task, completed=done, total=total),
        )
    report_path = rec.output_dir(out, config) / rec.REPORT_NAME
    if report.removed_leftovers:
        click.echo(f"removed {report.removed_leftovers} temp file(s) left by a killed reconstruction", err=True)
    for problem in report.problems:
        click.echo(f"problem: {problem.line()}", err=True)
    if report.complete:
        click.echo(f"reconstructed {report.reconstructed}/{report.expected} images in {report.seconds:.1f} s: "
                   f"{report.parquet} (report: {report_path})")
        return
    if not allow_missing:
        aside = (f"; the previous Parquet no longer verifies: set aside as {Path(report.set_aside).name}, "
                 f"scoring will not use it" if report.set_aside else "")
        raise BadInput(f"{len(report.problems)} of {report.expected} images missing or invalid (listed above){aside}; "
                       f"nothing written except the report {report_path}",
                       path=manifest, fix="fix the files, or pass --allow-missing for an incomplete build")
    click.echo(f"INCOMPLETE: reconstructed {report.reconstructed}/{report.expected} images: {report.parquet} "
               f"(marked complete=false; report: {report_path})", err=True)


def _pairs(items: tuple[str, ...], flag: str, what: str, example: str) -> dict[str, str]:
    """`NAME=VALUE` options -> {NAME: VALUE}; a malformed or repeated one is one line, exit 2."""
    pairs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise BadInput(f"{flag} {item!r} is not NAME={what}", field=flag, fix=f"e.g. {flag} rsud20k={example}")
        if name.lower().replace("-", "_") in {n.lower().replace("-", "_") for n in pairs}:
            raise BadInput(f"{flag} {name} given twice", field=flag, fix="give each source dataset once")
        pairs[name] = value
    return pairs


@click.group(cls=HazardkitGroup)
def manifest() -> None:
    """Make a benchmark's image manifest from the maintainers' copies of its source datasets."""


@manifest.command("bd-hazardvlm")
@click.option("--annotations", type=click.Path(path_type=Path), required=True,
              help="Annotation records (JSON Lines or Parquet): their source_dataset and source_path name the images.")
@click.option("--source", "sources", multiple=True, metavar="NAME=DIR",
              help="Root of a source dataset: rsud20k=DIR, tfp-bd=DIR (repeat).")
@click.option("--license", "licenses", multiple=True, metavar="NAME=TEXT",
              help="Licence of a source dataset's images as it states it, e.g. rsud20k='CC BY 4.0' (repeat).")
@click.option("--attribution", "attributions", multiple=True, metavar="NAME=TEXT",
              help="Attribution a source dataset asks for (repeat).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Manifest to write (JSON Lines, schema bd_hazardvlm_image_manifest).")
@click.option("--max-pixels", type=click.IntRange(min=1), default=None,
              help="Refuse images with more pixels than this. Default 40,000,000.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Parallel decodes (default: up to 4).")
def manifest_bd_hazardvlm(annotations: Path, sources: tuple[str, ...], licenses: tuple[str, ...],
                          attributions: tuple[str, ...], out: Path, max_pixels: int | None,
                          workers: int | None) -> None:
    """Decode every annotated image in full, then pin its bytes (sha256, size, dimensions) in the manifest.

    Each entry records `"decoded": true`. Users' `hazardkit reconstruct bd-hazardvlm` then checks their copies
    against these hashes at the speed of reading the files. Any image that is missing, escapes its root, is a
    decompression bomb or does not decode in full is listed and nothing is written (exit 2).
    """
    from builder.bd_hazardvlm.manifest import make_manifest

    def canonical(table: dict[str, str]) -> dict[str, str]:
        return {k.lower().replace("-", "_"): v for k, v in table.items()}

    pairs = _pairs(sources, "--source", "DIR", "/data/rsud20k")
    if not pairs:
        raise BadInput("no --source given", field="--source", fix="pass --source rsud20k=DIR --source tfp-bd=DIR")
    entries, problems = make_manifest(
        annotations, pairs, out, licenses=canonical(_pairs(licenses, "--license", "TEXT", "'CC BY 4.0'")),
        attributions=canonical(_pairs(attributions, "--attribution", "TEXT", "'RSUD20K authors'")),
        max_pixels=max_pixels, workers=workers)
    for problem in problems:
        click.echo(f"problem: {problem.line()}", err=True)
    if problems:
        raise BadInput(f"{len(problems)} of {len(entries) + len(problems)} images cannot be pinned (listed above); "
                       "no manifest written", path=annotations, fix="fix or replace those source files")
    click.echo(f"wrote {len(entries)} entries to {out} (every image decoded in full)")
