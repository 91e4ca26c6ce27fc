"""`hazardkit forge ...`: plan generation jobs, preview a layout, write synthetic sources.

Bad input (unreadable or zero-size image, unknown scenario or category, a ground truth the scenario does not
allow, malformed SOURCES or config) raises BadInput: one line on stderr and exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from builder.movsafebench.hazardforge.config import load_config
from eval_kit.clikit import HazardkitGroup
from eval_kit.errors import BadInput


class ChainOrderGroup(HazardkitGroup):
    """`forge --help` lists the subcommands in the order of the build chain, not alphabetically."""

    ORDER = ("synthetic", "plan", "preview", "run", "status", "export")

    def list_commands(self, ctx: click.Context) -> list[str]:
        rank = {name: i for i, name in enumerate(self.ORDER)}
        return sorted(super().list_commands(ctx), key=lambda name: (rank.get(name, len(rank)), name))


@click.group(cls=ChainOrderGroup)
def forge() -> None:
    """HazardForge, the MovSafeBench build chain. In order:

    \b
      1. hazardkit sources scan ...              one source manifest (images, safe action, ego hood)
      2. hazardkit forge plan SOURCES --out P    every generation job (layout, object, prompt)
      3. hazardkit forge run P --out RUN         edit, quality-check, retry; resumable
      4. hazardkit forge export RUN --out REC    the accepted images as MovSafeBench records
      5. hazardkit publish movsafebench --input REC --config NAME --version X.Y.Z

    `forge synthetic` makes demo sources, `forge preview` draws one layout, `forge status` follows a run.
    """


def _summary_table(counts: dict[str, dict[str, int]], title: str):
    from rich.table import Table

    from eval_kit.movsafebench.spec import CATEGORIES

    table = Table(title=title)
    table.add_column("Scenario")
    for category in CATEGORIES:
        table.add_column(category.capitalize(), justify="right")
    table.add_column("Total", justify="right")
    grand = 0
    for scenario, cells in counts.items():
        total = sum(cells.values())
        grand += total
        table.add_row(scenario.capitalize(), *(str(cells[c]) if c in cells else "-" for c in CATEGORIES), str(total))
    table.add_row("All", *(str(sum(cells.get(c, 0) for cells in counts.values())) for c in CATEGORIES), str(grand))
    return table


@forge.command("plan", short_help="2. every generation job for a source manifest")
@click.argument("sources", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="plan JSON Lines to write")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="layout config JSON (ForgeConfig keys)")
@click.option("--targets", help="subsample to target counts: `table2` (paper table 2) or a JSON file "
              "{scenario: {category: count}}")
@click.option("--subsample-seed", type=int, help="seed of the subsampling (default: the config's, 0)")
@click.option("--root", "roots", multiple=True, metavar="DATASET=DIR",
              help="folder the manifest's paths of DATASET are relative to (as for `sources verify`; repeat per "
                   "dataset); default: the manifest's folder")
@click.option("--detect-vp", is_flag=True, help="detect the vanishing point even when SOURCES gives one")
@click.option("--json", "as_json", is_flag=True, help="print the counts and stats as JSON instead of a table")
def plan_command(sources: Path, out: Path, config_path: Path | None, targets: str | None,
                 subsample_seed: int | None, roots: tuple[str, ...], detect_vp: bool, as_json: bool) -> None:
    """Enumerate every eligible generation job for the images of the source manifest SOURCES (what `hazardkit
    sources scan ...` and `forge synthetic` write: id, dataset, path, sha256, gt_action, agent[, ego_hood,
    ego_hood_override, vanishing_point]) and write them to --out, one job per line."""
    from rich.console import Console
    from rich.progress import track

    from builder.movsafebench.hazardforge.plan import build_plan, count_table, read_sources, write_plan_stats
    from builder.movsafebench.sources.common import parse_roots
    from eval_kit.jsonl import atomic_write_text

    config = load_config(config_path, targets, subsample_seed)
    items = read_sources(sources, parse_roots(roots))
    console = Console(stderr=True)

    def progress(seq):
        return track(seq, description="planning", console=console, disable=as_json or len(seq) < 2)

    jobs, stats = build_plan(items, config=config, plan_dir=out.parent, detect_vp=detect_vp,
                             sources_path=sources, progress=progress)
    from eval_kit.safe_paths import refuse_link

    refuse_link(out, what="the plan to write")  # never replace a link someone planted
    atomic_write_text(out, "".join(json.dumps(job, sort_keys=True) + "\n" for job in jobs))
    write_plan_stats(out, stats)  # what the plan skipped (e.g. objects that would cover an obstacle), for export
    counts = count_table(jobs)
    if as_json:
        click.echo(json.dumps({"out": str(out), "jobs": len(jobs), "stats": stats, "counts": counts}, indent=2))
        return
    wide = Console()
    wide.width = max(wide.width, 150)  # 15 columns: keep the table of paper-table-2 shape readable
    wide.print(_summary_table(counts, f"{len(jobs)} jobs from {stats['sources']} sources -> {out}"))
    click.echo(f"eligible before subsampling: {stats['eligible']}; skipped: {stats['skipped']}; vanishing point "
               f"fell back to the horizon prior: {stats['vp_fallbacks']}; ego hood visible: {stats['hoods']} "
               f"(detected now: {stats['hood_detected']}); sources with obstacle boxes: {stats['obstacle_sources']}, "
               f"layouts skipped as covering one: {stats['obstacle_skipped']}")
    for reason, n in stats["skipped_reasons"].items():
        click.echo(f"  skipped {reason}: {n}")
    for failed in stats["failed_sources"]:
        click.echo(f"failed source {failed['id']} (line {failed['line']}): {failed['reason']}", err=True)
    if "target_shortfall" in stats:
        click.echo(f"jobs missing to reach the target counts (too few eligible jobs): {stats['target_shortfall']}")


def _parse_vp(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise BadInput(f"--vp must be X,Y in pixels, got {text!r}", field="--vp") from None
    return x, y


@forge.command("preview", short_help="draw one layout's regions and masks over an image")
@click.argument("image", type=click.Path(path_type=Path))
@click.option("--scenario", required=True, help="static, motion, intrusion or distance")
@click.option("--gt", "ground_truth", required=True, help="ground-truth safe action: left, straight or right")
@click.option("--category", help="object category (default: the first the scenario allows)")
@click.option("--side", help="intrusion only: side the object enters from (default: the first allowed)")
@click.option("--vp", "vp_text", help="vanishing point X,Y in pixels (default: detect it)")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="layout config JSON")
@click.option("--out", "out", type=click.Path(path_type=Path),
              help="PNG to write (default: IMAGE.SCENARIO-GT.preview.png in the current folder)")
def preview_command(image: Path, scenario: str, ground_truth: str, category: str | None, side: str | None,
                    vp_text: str | None, config_path: Path | None, out: Path | None) -> None:
    """Draw the regions, vanishing point and masks of one layout over IMAGE and write a PNG."""
    import io

    from builder.movsafebench.hazardforge.config import ForgeConfig
    from builder.movsafebench.hazardforge.layout import build_layout, intrusion_sides
    from builder.movsafebench.hazardforge.plan import open_image
    from builder.movsafebench.hazardforge.preview import render_preview
    from builder.movsafebench.hazardforge.prompts import check_scenario
    from builder.movsafebench.hazardforge.vanishing import DetectorSettings, detect_vanishing_point
    from eval_kit.jsonl import atomic_write_bytes
    from eval_kit.movsafebench.spec import SCENARIO_CATEGORIES

    check_scenario(scenario, ground_truth, category)
    config = ForgeConfig.load(config_path) if config_path else ForgeConfig()
    category = category or SCENARIO_CATEGORIES[scenario][0]
    if scenario == "intrusion":
        allowed = intrusion_sides(ground_truth)
        side = side or allowed[0]
        if side not in allowed:
            raise BadInput(f"intrusion side {side!r} is not possible with ground truth {ground_truth!r}",
                           field="--side", fix=f"use {' or '.join(allowed)}: never the ground-truth side")
    vp = _parse_vp(vp_text)
    picture = open_image(image)
    note = ""
    if vp is None:
        found = detect_vanishing_point(picture, DetectorSettings(work_width=config.vp_work_width))
        vp = (found.x, found.y)
        note = f"vanishing point ({found.x:.1f}, {found.y:.1f}), confidence {found.confidence:.2f} [{found.method}]"
    layout = build_layout(scenario, ground_truth, category, picture.width, picture.height,
                          vanishing_point=vp, side=side, config=config)
    out = out or Path(f"{image.stem}.{scenario}-{ground_truth}.preview.png")
    buf = io.BytesIO()
    render_preview(picture, layout).save(buf, format="PNG")
    atomic_write_bytes(out, buf.getvalue())
    if note:
        click.echo(note)
    for edit in layout.edits:
        click.echo(f"{edit.role:9s} region {edit.region} box {list(edit.box)} canvas "
                   f"{edit.canvas_width}x{edit.canvas_height}  {edit.prompt}")
    click.echo(f"wrote {out}")


@forge.command("synthetic", short_help="demo sources: synthetic road scenes (stamped SYNTHETIC)")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("-n", "n", type=click.IntRange(min=1), default=20, show_default=True, help="number of scenes")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the first scene")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(["road", "sidewalk"]),
              help="scene kinds, alternating (default: both)")
@click.option("--width", type=click.IntRange(min=32), default=1600, show_default=True)
@click.option("--height", type=click.IntRange(min=32), default=900, show_default=True)
def synthetic_command(folder: Path, n: int, seed: int, kinds: tuple[str, ...], width: int, height: int) -> None:
    """Render N synthetic road/sidewalk scenes (known vanishing point and safe action) into FOLDER, with
    FOLDER/sources.jsonl for `hazardkit forge plan`. Demo/test data only, stamped SYNTHETIC."""
    from builder.movsafebench.sources.synthetic import KINDS, write_synthetic_sources
    from eval_kit.safe_paths import refuse_links

    refuse_links(folder, "images", "sources.jsonl", field="FOLDER")  # never written through a planted link
    path = write_synthetic_sources(folder, n, kinds=kinds or KINDS, seed=seed, width=width, height=height)
    click.echo(f"wrote {n} scenes and {path}")


from builder.movsafebench.hazardforge.run_commands import export_command, run_command, status_command  # noqa: E402

run_command.short_help = "3. edit, quality-check and retry every job of a plan (resumable)"
status_command.short_help = "progress and acceptance rates of a run"
export_command.short_help = "4. a run's accepted images as records for `hazardkit publish`"
forge.add_command(run_command)
forge.add_command(status_command)
forge.add_command(export_command)
