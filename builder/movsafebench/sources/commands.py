"""`hazardkit sources ...`: scan a source benchmark into a manifest, and verify a manifest against local copies.

    hazardkit sources scan drivebench --questions drivebench-test.json --root /data/nuscenes --out m.jsonl
    hazardkit sources scan sa-bench --root /data/sa_bench --out m.jsonl
    hazardkit sources scan folder --index my_images.jsonl [--root DIR] --out m.jsonl
    hazardkit sources verify manifests/movsafebench/v1/sources.jsonl --root drivebench=/data/nuscenes ...

Every scan writes the one manifest format (schema movsafebench_source) that `hazardkit forge plan` reads, with
the same `--root DATASET=DIR` rule for where the images are.
"""

from __future__ import annotations

from pathlib import Path

import click

from builder.movsafebench.sources.common import ScanResult
from eval_kit.clikit import HazardkitGroup
from eval_kit.errors import BadInput


@click.group(cls=HazardkitGroup)
def sources() -> None:
    """Source images for MovSafeBench: scan adapters into a manifest (id, dataset, path, sha256, gt_action,
    agent) and verify a manifest against your local copies of the source datasets."""


def _report(result: ScanResult, out: Path, show_skipped: int, root: Path | None = None) -> None:
    """Write the manifest and say what was skipped; `-v N` lists up to N skipped inputs with their reason,
    also (first of all) when nothing was usable, which is when a user needs the list most."""
    from collections import Counter

    from builder.movsafebench.sources.manifest import write_manifest

    def list_skipped() -> None:
        for skipped in result.skipped[:show_skipped]:
            click.echo(f"  skipped {skipped.where}: {skipped.reason}", err=not result.records)
        if len(result.skipped) > show_skipped:
            more = len(result.skipped) - show_skipped
            click.echo(f"  ({more} more skipped input(s) not listed: -v {len(result.skipped)} lists them all)",
                       err=not result.records)

    kinds = Counter(s.key for s in result.skipped)
    detail = f" ({'; '.join(f'{k}: {n}' for k, n in sorted(kinds.items()))})" if kinds else ""
    if not result.records:
        list_skipped()
        raise BadInput(f"no usable source images found; skipped {len(result.skipped)}{detail}",
                       fix="check the paths; -v N lists N skipped inputs with their reason")
    count = write_manifest(result.records, out, root=root)
    hoods = sum(1 for r in result.records if r.ego_hood and r.ego_hood["top"] < r.ego_hood["height"])
    click.echo(f"wrote {count} sources to {out}; skipped {len(result.skipped)}{detail}; "
               f"ego hood visible in {hoods}")
    unsure = [r.id for r in result.records if r.ego_hood and r.ego_hood.get("certain") is False]
    if unsure:  # the detector's evidence was mixed: placement keeps above its conservative `bound`
        click.echo(f"ego hood unsure in {len(unsure)} (objects stay above the conservative bound; look at them and "
                   f"set ego_hood_override where it costs too much ground): {', '.join(unsure[:10])}"
                   + (" ..." if len(unsure) > 10 else ""))
    list_skipped()


def _no_link(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Refuse a symbolic link at --out before the scan starts (it would be replaced by the manifest)."""
    from eval_kit.safe_paths import refuse_link

    if value is not None:
        refuse_link(value, what="the manifest to write")
    return value


_OUT = click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, callback=_no_link,
                    help="manifest to write (JSON Lines, schema movsafebench_source)")
_SHOW = click.option("-v", "--show-skipped", type=int, default=0, show_default=True,
                     help="list up to this many skipped inputs with their reason")
_HOOD = click.option("--hood/--no-hood", "hood", default=True, show_default=True,
                     help="detect each image's ego hood (first row of the car's own body) into the manifest")


@sources.group(cls=HazardkitGroup)
def scan() -> None:
    """Read a source benchmark in its own format and write a manifest of usable images."""


@scan.command("drivebench")
@click.option("--questions", type=click.Path(path_type=Path), required=True,
              help="DriveBench question file (drive-bench/arena drivebench-test.json)")
@click.option("--root", type=click.Path(path_type=Path), required=True, help="nuScenes root (holds samples/)")
@_OUT
@_SHOW
@_HOOD
def scan_drivebench(questions: Path, root: Path, out: Path, show_skipped: int, hood: bool) -> None:
    """Behaviour questions -> safe direction; CAM_FRONT images."""
    from builder.movsafebench.sources import drivebench

    _report(drivebench.scan(questions, root, detect_hoods=hood), out, show_skipped, root)


@scan.command("sa-bench")
@click.option("--root", type=click.Path(path_type=Path), required=True, help="folder of images + same-name XML")
@_OUT
@_SHOW
@_HOOD
def scan_sa_bench(root: Path, out: Path, show_skipped: int, hood: bool) -> None:
    """goal_position.x third -> safe direction (our assumption, see the dataset card)."""
    from builder.movsafebench.sources import sa_bench

    _report(sa_bench.scan(root, detect_hoods=hood), out, show_skipped, root)


@scan.command("folder")
@click.option("--index", type=click.Path(path_type=Path), required=True,
              help="JSON Lines of {id, path, gt_action, agent} (schema movsafebench_source_folder)")
@click.option("--root", type=click.Path(path_type=Path), default=None, help="image root (default: index folder)")
@click.option("--dataset", default="folder", show_default=True,
              help="the source benchmark's name (an identifier, e.g. udacity): it becomes the rows' "
                   "source_benchmark in the published dataset; `publish` refuses the placeholder `folder`")
@_OUT
@_SHOW
@_HOOD
def scan_folder(index: Path, root: Path | None, dataset: str, out: Path, show_skipped: int, hood: bool) -> None:
    """Your own images listed in a JSON Lines index."""
    from builder.movsafebench.sources import folder
    from eval_kit.movsafebench.spec import is_source_benchmark

    if not is_source_benchmark(dataset):
        raise BadInput(f"--dataset {dataset!r} is not a source identifier", field="--dataset",
                       fix="lower-case letters, digits and _ (2-40 characters, starting with a letter), e.g. udacity")
    _report(folder.scan(index, root, dataset=dataset, detect_hoods=hood), out, show_skipped,
            root if root is not None else index.parent)


@sources.command("verify")
@click.argument("manifest", type=click.Path(path_type=Path))
@click.option("--root", "roots", multiple=True, metavar="DATASET=DIR",
              help="local folder of a dataset, e.g. drivebench=/data/nuscenes (repeat per dataset); default: the "
                   "root each manifest row recorded at scan time")
def verify(manifest: Path, roots: tuple[str, ...]) -> None:
    """Check every image of MANIFEST exists, decodes and matches its sha256. Exit 2 when any does not."""
    from builder.movsafebench.sources.common import parse_roots
    from builder.movsafebench.sources.manifest import read_manifest, verify_manifest

    mapping = parse_roots(roots)
    records = read_manifest(manifest)
    problems = verify_manifest(records, mapping)
    for problem in problems:
        click.echo(f"{problem.id}: {problem.reason}")
    if problems:
        raise BadInput(f"{len(problems)} of {len(records)} source images are unusable (listed above)",
                       path=manifest, fix="restore the files from the original dataset release")
    click.echo(f"all {len(records)} source images present and identical")
