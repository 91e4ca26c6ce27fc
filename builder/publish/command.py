"""`hazardkit publish BENCHMARK`: build a dataset folder's release and (with --push) upload and tag it."""

from __future__ import annotations

from pathlib import Path

import click

from builder.publish.shards import DEFAULT_MAX_SHARD_BYTES
from eval_kit.errors import BadInput


@click.command("publish")
@click.argument("benchmark")
@click.option("--version", "version", required=True, help="Semantic version of the release, X.Y.Z (tag vX.Y.Z).")
@click.option("--repo-id", default=None, help="Hub dataset repo ORG/NAME; needed for the push plan and --push.")
@click.option("--config", default="default", show_default=True,
              help="Config to (re)build: default, no_edit, demo, ... (demo builds from built-in demo scenes "
                   "when --input is not given). bd-hazardvlm: annotations, demo_annotations; saferelbench: demo.")
@click.option("--input", "input_path", type=click.Path(path_type=Path), default=None,
              help="Records JSON Lines file, or a folder holding records.jsonl (image paths relative to it). "
                   "bd-hazardvlm: a folder with annotations.jsonl and image_manifest.jsonl; saferelbench: "
                   "samples JSON Lines (or a folder of them).")
@click.option("--image-root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Folder image files may be read from (default: the --input records file's folder). Files "
                   "outside it, symlinks leading out of it and non-image files are refused.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Dataset folder to write (default: ./BENCHMARK, the repo's dataset folder).")
@click.option("--max-shard-mb", type=click.FloatRange(min=0.001), default=DEFAULT_MAX_SHARD_BYTES / 2**20,
              show_default=True, help="Upper bound of one Parquet shard, in MiB.")
@click.option("--notes", default=None, help="Release note for the changelog (default: what was published).")
@click.option("--date", default=None, help="Release date YYYY-MM-DD (default: today, UTC).")
@click.option("--build-info", type=click.Path(path_type=Path), default=None,
              help='JSON {"notes": "..."}: the maintainer\'s note for the card (marked as such). Models, revisions '
                   "and acceptance rates are computed from the rows and the forge export's build.json.")
@click.option("--image-format", type=click.Choice(["jpeg", "webp-lossless", "as-is"]), default="jpeg",
              show_default=True, help="How edited images (lossless PNG from forge run) are stored: high-quality "
                                      "JPEG, lossless WebP, or the bytes as produced. Recorded in the card.")
@click.option("--jpeg-quality", type=click.IntRange(1, 100), default=95, show_default=True,
              help="JPEG quality for --image-format jpeg (4:4:4, no chroma subsampling).")
@click.option("--max-image-pixels", type=click.IntRange(min=1), default=64_000_000, show_default=True,
              help="Largest image publish decodes; bigger ones (decompression bombs) are refused.")
@click.option("--allow-compositor", is_flag=True,
              help="MovSafeBench: confirm publishing CPU-compositor rows (synthetic sprites, for testing the "
                   "pipeline) under a config other than demo; recorded in the card.")
@click.option("--source-licence", "source_licences", multiple=True, metavar="NAME=TEXT",
              help="The licence of a source the publisher does not know, as you state it (e.g. "
                   "udacity=MIT); shown in the card. Repeatable.")
@click.option("--allow-source", "allowed_sources", multiple=True,
              help="Confirm that this source's licence allows redistributing its unedited images "
                   "(MovSafeBench: drivebench is allowed; sa_bench needs this flag). Repeatable.")
@click.option("--push", is_flag=True, help="Upload and tag on the Hub (default: dry run printing the plan).")
def publish_command(benchmark: str, version: str, repo_id: str | None, config: str, input_path: Path | None,
                    image_root: Path | None, out: Path | None, max_shard_mb: float, notes: str | None, date: str | None,
                    build_info: Path | None, image_format: str, jpeg_quality: int, max_image_pixels: int,
                    allow_compositor: bool, source_licences: tuple[str, ...], allowed_sources: tuple[str, ...],
                    push: bool) -> None:
    """Publish BENCHMARK's CONFIG as Parquet shards with its dataset card, croissant.json and release manifest.

    Always rebuilds the local dataset folder; without --push it only prints what would be uploaded.
    Refuses to push when the card or schema check fails or when tag vVERSION already exists on the Hub.
    """
    import datetime as dt

    from builder.publish.image_check import ImagePolicy
    from builder.publish.pipeline import load_build_info, parse_source_licences, publish

    if date is not None:
        try:
            dt.date.fromisoformat(date)
        except ValueError:
            raise BadInput(f"{date!r} is not a date", field="--date", fix="use YYYY-MM-DD") from None
    result = publish(
        benchmark, version=version, config=config, input_path=input_path, out=out, repo_id=repo_id, notes=notes,
        date=date, build_info=load_build_info(build_info), max_shard_bytes=int(max_shard_mb * 2**20), push=push,
        allowed_sources=allowed_sources, image_root=image_root,
        image_policy=ImagePolicy(image_format, jpeg_quality, max_image_pixels),
        confirmed=("compositor",) if allow_compositor else (), source_licences=parse_source_licences(source_licences),
        progress=True,
    )
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    rows = sum(s.num_rows for s in result.shards)
    click.echo(f"wrote {result.repo_dir}/data/{config}/: {rows} rows in {len(result.shards)} shard(s)")
    click.echo(f"wrote {result.repo_dir}/README.md, croissant.json, CHANGELOG.md, release-manifest.json "
               f"(version {version})")
    if result.ids_changed is not None:
        click.echo(f"ids of config {config}: {'CHANGED' if result.ids_changed else 'unchanged'} since the last release")
    if result.plan is not None:
        click.echo(result.plan.render())
    else:
        click.echo("no push plan: pass --repo-id ORG/NAME to see what would be uploaded")
    if result.problems:
        raise BadInput("card or schema check failed: " + "; ".join(result.problems),
                       fix="fix the data or the publisher before releasing")
    if push:
        click.echo(f"pushed {result.plan.repo_id} commit {result.commit} and tag {result.plan.tag}")
    elif result.plan is not None:
        click.echo("dry run: nothing uploaded (add --push to upload)")
