"""The generation plan: every eligible job (scenario x category x side) for a list of source images.

A job is one edited image to produce. `hazardkit forge plan SOURCES --out plan.jsonl` reads a source manifest
(schema `movsafebench_source`: what every `hazardkit sources scan` adapter and `forge synthetic` write), opens
every image (size, sha256 checked against the manifest, vanishing point, ego hood), builds each job's layout
and writes one JSON line per job (schema `forge_plan_job`). Manifest paths are relative to their dataset's
root (`--root DATASET=DIR`, default: the manifest's folder), with the same rule as every adapter: no
absolute paths, no `..`. The run engine rebuilds the masks of a line with
`layout_from_plan_line(line, image_size)`; nothing else is needed.

Job ids are the first 20 hex digits of sha256 over the job's inputs (source id and image hash, ground truth,
scenario, category, side) and the layout config (version and parameters): re-planning the same inputs gives
the same ids, changing any of them gives new ones. The editor seed is derived from the id.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.movsafebench.hazardforge.config import ForgeConfig
from builder.movsafebench.hazardforge.ego_hood import placement_top
from builder.movsafebench.hazardforge.layout import (
    COVERS_OBSTACLE,
    IneligibleLayout,
    Layout,
    build_layout,
    job_variants,
)
from builder.movsafebench.hazardforge.vanishing import VanishingPoint
from eval_kit.errors import BadInput
from eval_kit.movsafebench.spec import EDITED_SCENARIOS, SCENARIO_CATEGORIES, SCENARIO_GROUND_TRUTHS

SOURCE_SCHEMA = "movsafebench_source"
PLAN_SCHEMA = "forge_plan_job"


@dataclass(frozen=True)
class SourceItem:
    """One source image with its ground truth, as read from a SOURCES line."""

    id: str
    path: Path
    ground_truth: str
    agent: str
    source_benchmark: str
    vanishing_point: tuple[float, float] | None = None
    line: int | None = None
    sha256: str | None = None
    hood_top: int | None = None  # override or stored detection from the manifest; None: detect at plan time
    hood_source: str | None = None  # "override" or "manifest"
    hood_certain: bool = True  # False: the scan-time detector was unsure and hood_top is its conservative bound
    obstacles: tuple[tuple[int, int, int, int], ...] = ()  # known obstacle boxes [x0, y0, x1, y1) (manifest)


@dataclass(frozen=True)
class ImageInfo:
    width: int
    height: int
    sha256: str


def read_sources(path: str | Path, roots: dict[str, str | Path] | None = None) -> list[SourceItem]:
    """Validate a source manifest (schema `movsafebench_source`); ids must be unique.

    Each path is joined to its dataset's root (`roots[dataset]`, else the root the scan recorded in the
    row, else the manifest's folder) with the adapters' rule (relative, POSIX, no `..`: `resolve_relative`).
    A missing image is bad input naming `--root DATASET=DIR`."""
    from builder.movsafebench.sources.common import resolve_relative, root_fix
    from eval_kit.jsonl import iter_jsonl
    from eval_kit.schemas import validate_or_raise

    path = Path(path)
    roots = dict(roots or {})
    items: list[SourceItem] = []
    seen: dict[str, int] = {}
    for number, obj in iter_jsonl(path):
        if isinstance(obj, dict) and "ground_truth" in obj and "gt_action" not in obj:
            raise BadInput("this is the old forge_source format (ground_truth, source_benchmark)", path=path,
                           line=number, field="ground_truth",
                           fix="write a source manifest with `hazardkit sources scan` or `hazardkit forge synthetic`")
        validate_or_raise(SOURCE_SCHEMA, obj, path=path, line=number)
        if obj["id"] in seen:
            raise BadInput(f"duplicate id {obj['id']!r} (first on line {seen[obj['id']]})", path=path, line=number,
                           field="id", fix="source ids must be unique")
        seen[obj["id"]] = number
        recorded = obj.get("root")
        root = Path(roots[obj["dataset"]]) if obj["dataset"] in roots else Path(recorded or path.parent)
        try:
            image = resolve_relative(root, obj["path"])
        except BadInput as exc:
            raise BadInput(exc.detail, path=path, line=number, field="path") from None
        if not image.is_file():
            raise BadInput(f"image not found: {image}", path=path, line=number, field="path",
                           fix=root_fix(obj["dataset"], None if obj["dataset"] in roots else recorded))
        vp = obj.get("vanishing_point")
        hood, hood_source = None, None
        if obj.get("ego_hood_override") is not None:
            hood, hood_source = int(obj["ego_hood_override"]), "override"
        elif isinstance(obj.get("ego_hood"), dict):
            hood, hood_source = placement_top(obj["ego_hood"], int(obj["ego_hood"]["top"])), "manifest"
        items.append(SourceItem(
            id=obj["id"], path=image, ground_truth=obj["gt_action"], agent=obj["agent"],
            source_benchmark=obj["dataset"],
            vanishing_point=(float(vp["x"]), float(vp["y"])) if vp else None, line=number, sha256=obj["sha256"],
            hood_top=hood, hood_source=hood_source,
            hood_certain=hood_source != "manifest" or obj["ego_hood"].get("certain", True) is not False,
            obstacles=tuple(tuple(int(v) for v in box) for box in obj.get("obstacles") or ()),
        ))
    return items


def open_image(path: str | Path, *, where: str | Path | None = None, line: int | None = None):
    """Open an image as RGB; unreadable, missing or zero-size files are BadInput naming the file.

    An image over `MAX_SOURCE_PIXELS` is `ImageTooLarge` (a BadInput), found from its header before decoding."""
    from PIL import UnidentifiedImageError

    from builder.movsafebench.sources.common import ImageTooLarge, open_image_checked

    path = Path(path)
    field = "path" if where is not None else None  # the SOURCES field, when the image came from one
    try:
        with open_image_checked(path) as img:
            img.load()
            image = img.convert("RGB")
    except ImageTooLarge as exc:
        raise ImageTooLarge(exc.detail, path=where or path, line=line, field=field, fix=exc.fix) from None
    except FileNotFoundError:
        raise BadInput(f"image not found: {path}", path=where or path, line=line, field=field) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise BadInput(f"cannot read image {path} ({type(exc).__name__}: {exc})", path=where or path, line=line,
                       field=field, fix="give a PNG or JPEG file") from None
    if image.width == 0 or image.height == 0:
        raise BadInput(f"image {path} has zero size", path=where or path, line=line, field=field)
    return image


def job_id_of(source_id: str, source_sha256: str, ground_truth: str, scenario: str, category: str,
              side: str | None, config: ForgeConfig) -> str:
    key = {
        "source_id": source_id, "source_sha256": source_sha256, "ground_truth": ground_truth,
        "scenario": scenario, "category": category, "side": side, "config": config.fingerprint(),
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()[:20]


def seed_of(job_id: str) -> int:
    return int(job_id[:8], 16) & 0x7FFFFFFF


def plan_line(
    source: SourceItem, info: ImageInfo, vp: VanishingPoint, layout: Layout, config: ForgeConfig, image_ref: str,
    hood: dict[str, Any] | None = None,
) -> dict[str, Any]:
    job_id = job_id_of(source.id, info.sha256, layout.ground_truth, layout.scenario, layout.category,
                       layout.side, config)
    data = layout.to_dict()
    return {
        "job_id": job_id,
        "seed": seed_of(job_id),
        "config_version": config.version,
        "source_id": source.id,
        "source_benchmark": source.source_benchmark,
        "agent": source.agent,
        "image": image_ref,
        "source_sha256": info.sha256,
        "width": info.width,
        "height": info.height,
        "ground_truth": layout.ground_truth,
        "scenario": layout.scenario,
        "category": layout.category,
        "side": layout.side,
        "vanishing_point": vp.to_dict(),
        "ego_hood": hood or {"top": info.height, "source": "none"},
        "params": data["params"],
        "edits": data["edits"],
    }


def layouts_for_source(
    ground_truth: str, width: int, height: int, vanishing_point: tuple[float, float] | None, config: ForgeConfig,
    scenarios: Iterable[str] = EDITED_SCENARIOS, *, agent: str = "vehicle", hood_top: int | None = None,
    reasons: dict[str, int] | None = None, obstacles: Iterable[Iterable[int]] = (),
) -> tuple[list[Layout], int]:
    """Every eligible layout of one source image, and how many were skipped as ineligible.

    `reasons`, when given, counts the skipped jobs by "scenario/category: reason". `obstacles`: the source's known
    obstacle boxes, kept clear (layout.avoid_obstacles)."""
    boxes = [list(b) for b in obstacles]
    layouts: list[Layout] = []
    skipped = 0
    for scenario in scenarios:
        if ground_truth not in SCENARIO_GROUND_TRUTHS[scenario]:
            continue
        for category in SCENARIO_CATEGORIES[scenario]:
            for side in job_variants(scenario, ground_truth):
                try:
                    layouts.append(build_layout(scenario, ground_truth, category, width, height,
                                                vanishing_point=vanishing_point, side=side, config=config,
                                                agent=agent, hood_top=hood_top, obstacles=boxes))
                except IneligibleLayout as exc:
                    skipped += 1
                    if reasons is not None:
                        key = f"{scenario}/{category}: {exc.reason}"
                        reasons[key] = reasons.get(key, 0) + 1
    return layouts, skipped


def subsample(jobs: list[dict[str, Any]], targets: dict[str, dict[str, int]], seed: int) -> list[dict[str, Any]]:
    """Keep at most targets[scenario][category] jobs per cell, chosen by a seeded hash (stable, order-free)."""
    def rank(job: dict[str, Any]) -> str:
        return hashlib.sha256(f"{seed}:{job['job_id']}".encode()).hexdigest()

    cells: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for job in jobs:
        cells.setdefault((job["scenario"], job["category"]), []).append(job)
    keep: set[str] = set()
    for (scenario, category), members in cells.items():
        n = targets.get(scenario, {}).get(category, 0)
        keep.update(job["job_id"] for job in sorted(members, key=rank)[:n])
    return [job for job in jobs if job["job_id"] in keep]


def build_plan(
    sources: list[SourceItem],
    *,
    config: ForgeConfig | None = None,
    plan_dir: str | Path = ".",
    detect_vp: bool = False,
    sources_path: str | Path | None = None,
    progress: Callable[[Iterable[SourceItem]], Iterator[SourceItem]] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """(plan lines, stats) for the sources.

    A source image over the pixel limit (`sources.common.MAX_SOURCE_PIXELS`) fails alone: it is left out and
    listed in stats `failed_sources` ({id, line, reason}); every other source is planned.

    stats: sources, eligible (jobs before subsampling), skipped (layouts the image could not host) and
    skipped_reasons ("scenario/category: reason" -> count, e.g. "distance/cat: far object too small"),
    obstacle_sources (sources with known obstacle boxes), obstacle_skipped (layouts skipped because every column
    would put an object over one: reason "object would cover an obstacle"), vp_fallbacks (horizon prior used),
    hoods (sources with a visible ego hood; hood_detected: detected here because the manifest had none) and,
    with target counts, target_shortfall (jobs missing to reach the targets).
    """
    from builder.movsafebench.hazardforge.ego_hood import detect_ego_hood
    from builder.movsafebench.hazardforge.vanishing import DetectorSettings, detect_vanishing_point
    from builder.movsafebench.sources.common import ImageTooLarge

    config = config or ForgeConfig()
    settings = DetectorSettings(work_width=config.vp_work_width)
    jobs: list[dict[str, Any]] = []
    stats: dict[str, Any] = {"sources": 0, "eligible": 0, "skipped": 0, "skipped_reasons": {}, "vp_fallbacks": 0,
                             "hoods": 0, "hood_detected": 0, "failed_sources": [], "obstacle_sources": 0}
    for source in (progress(sources) if progress else sources):
        try:
            image = open_image(source.path, where=sources_path, line=source.line)
        except ImageTooLarge as exc:
            stats["failed_sources"].append({"id": source.id, "line": source.line, "reason": exc.detail})
            continue
        sha = hashlib.sha256(Path(source.path).read_bytes()).hexdigest()
        if source.sha256 is not None and sha != source.sha256:
            raise BadInput(f"checksum mismatch for {source.path}: manifest {source.sha256[:12]}..., file "
                           f"{sha[:12]}...", path=sources_path, line=source.line, field="sha256",
                           fix="restore the original file or scan the sources again")
        info = ImageInfo(image.width, image.height, sha)
        if source.vanishing_point is not None and not detect_vp:
            vp = VanishingPoint(source.vanishing_point[0], source.vanishing_point[1], 1.0, "source")
        else:
            vp = detect_vanishing_point(image, settings)
            stats["vp_fallbacks"] += vp.method == "horizon_prior"
        if source.hood_top is not None:
            hood = {"top": min(source.hood_top, info.height), "source": source.hood_source}
            if not source.hood_certain:
                hood["certain"] = False
        else:
            found = detect_ego_hood(image, vanishing_point=(vp.x, vp.y) if vp.method != "horizon_prior" else None)
            hood = {"top": found.placement_top, "source": "detected"}  # unsure: the conservative bound
            if not found.certain:
                hood["certain"] = False
            stats["hood_detected"] += 1
        stats["hoods"] += hood["top"] < info.height
        layouts, skipped = layouts_for_source(source.ground_truth, info.width, info.height, (vp.x, vp.y), config,
                                              agent=source.agent, hood_top=hood["top"],
                                              reasons=stats["skipped_reasons"], obstacles=source.obstacles)
        stats["obstacle_sources"] += bool(source.obstacles)
        image_ref = os.path.relpath(Path(source.path).resolve(), Path(plan_dir).resolve())
        jobs.extend(plan_line(source, info, vp, layout, config, image_ref, hood) for layout in layouts)
        stats["sources"] += 1
        stats["skipped"] += skipped
    stats["skipped_reasons"] = dict(sorted(stats["skipped_reasons"].items()))
    stats["obstacle_skipped"] = sum(n for k, n in stats["skipped_reasons"].items() if k.endswith(COVERS_OBSTACLE))
    stats["eligible"] = len(jobs)
    if config.target_counts is not None:
        available = count_table(jobs)
        stats["target_shortfall"] = sum(
            max(0, n - available.get(scenario, {}).get(category, 0))
            for scenario, cells in config.target_counts.items() for category, n in cells.items()
        )
        jobs = subsample(jobs, config.target_counts, config.subsample_seed)
    return jobs, stats


def plan_stats_path(plan: str | Path) -> Path:
    """Where `write_plan_stats` keeps a plan's statistics: beside it, `<plan stem>.stats.json`."""
    plan = Path(plan)
    return plan.with_name(plan.stem + ".stats.json")


def write_plan_stats(plan: str | Path, stats: dict[str, Any]) -> Path:
    """Write the plan's statistics beside it (atomically), so that an export can state what the plan skipped
    (jobs never run leave no record in the run)."""
    from eval_kit.jsonl import atomic_write_text

    path = plan_stats_path(plan)
    atomic_write_text(path, json.dumps(stats, sort_keys=True, indent=1) + "\n")
    return path


def count_table(jobs: Iterable[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """scenario -> category -> number of jobs (the shape of paper table 2; categories a scenario lacks absent)."""
    table = {s: dict.fromkeys(SCENARIO_CATEGORIES[s], 0) for s in EDITED_SCENARIOS}
    for job in jobs:
        table[job["scenario"]][job["category"]] += 1
    return table


def read_plan(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, job) from a plan file, each validated against the `forge_plan_job` schema."""
    from eval_kit.jsonl import iter_jsonl
    from eval_kit.schemas import validate_or_raise

    for number, obj in iter_jsonl(path):
        validate_or_raise(PLAN_SCHEMA, obj, path=path, line=number)
        yield number, obj


def layout_from_plan_line(line: dict[str, Any], image_size: tuple[int, int] | None = None) -> Layout:
    """Rebuild a job's layout (edits with `.mask()`) from its plan line; checks the image size (W, H) if given.

    The line is validated against the `forge_plan_job` schema first, so a damaged line is BadInput, not a crash.
    """
    from eval_kit.schemas import validate_or_raise

    validate_or_raise(PLAN_SCHEMA, line)
    return Layout.from_dict(line, image_size=image_size)


def read_plan_file(plan: Path, limit: int | None = None) -> tuple[list[dict[str, Any]], str]:
    """The plan's jobs (the first `limit`) and the sha256 of the plan file, which a run records."""

    if not plan.is_file():
        raise BadInput("plan file not found", path=plan, fix="make one with `hazardkit forge plan`")
    from eval_kit.strictjson import open_regular

    with open_regular(plan) as handle:  # a FIFO or device is bad input, never a hang
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    jobs = [job for _, job in read_plan(plan)]
    return (jobs[:limit] if limit else jobs), digest
