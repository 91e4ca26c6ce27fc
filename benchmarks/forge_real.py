"""HazardForge on real road photographs (the shared Udacity set): placement, size and acceptance, measured.

Runs the whole CPU pipeline on `../shared/real/roads/` (or --real DIR): a folder index of the photos ->
`sources.folder.scan` with hood detection (what `hazardkit sources scan folder` does) -> `forge plan` logic
with vanishing-point detection -> `forge run` logic with the compositor and the heuristic checker. Ground
truths cycle left / straight / right over the photos (a label only; it decides which scenarios a photo gets).
Prints, against the hand references in `vp_reference.json` and `labels.json`:
- vanishing point error, median and p90, % of the image diagonal (targets <= 0.6 % and <= 1.5 %); baseline in
  the same run: the horizon prior (W/2, H/2);
- ego hood top error per photo, % of H (target: within 2 % on every photo);
- share of inserted objects whose base row lies on the ground: below the reference horizon and above the
  reference hood top (target 100 %), the share overlapping a labelled obstacle box (more than 10 % of the
  object's box area) and the share over one by the plan's criterion (> 30 % of the smaller box), with the plan's
  moved objects and skipped layouts;
- the implied real height of every inserted object (its box height x camera height / (box bottom - reference
  vanishing point row)) over its category's real height: median, worst ratios, share within 0.5-2x;
- accepted share per scenario x category (target: distance >= 50 % in every category), and the plan's
  skipped-job reasons;
and writes a contact sheet PNG (original | one edit per scenario, object boxes green, reference hood line red,
reference vanishing point as a cross) to --sheet.

Beside the shared photos it measures the same on synthetic renders of two other camera rigs with known truth
(`synthetic.RIGS`: "wide", 1242 x 375 KITTI-like, and "tall", 1920 x 1280, both with a hood; vanishing point,
hood top and obstacle boxes exact), each group reported on its own with its own contact sheet. Obstacle boxes
(labels.json, the synthetic barriers) go into the source manifest, so the plan keeps objects off them; the
overlap figure is "more than 30 % of the smaller box" (layout.obstacle_overlap), the plan's own criterion.
`--no-obstacles` plans without the boxes: the "before" figure.

When the shared photos are absent (a clone without ../shared beside it) it says so in one line and measures the
synthetic rig "shared" (1280 x 720, no hood) in their place, so that the script always measures something.

Usage: nice .venv/bin/python benchmarks/forge_real.py [--real DIR] [--per-cell 6] [--sheet FILE] [--work DIR]
                                                    [--rig-scenes 12] [--no-obstacles] [--quick]
`--quick`: 3 photos and 2 scenes per rig, 1 job per cell (CI).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GTS = ("left", "straight", "right")


def find_real(explicit: str | None) -> Path | None:
    candidates = [Path(explicit)] if explicit else [ROOT.parent / "shared" / "real" / "roads",
                                                    ROOT.parent.parent / "shared" / "real" / "roads"]
    for path in candidates:
        if (path / "labels.json").is_file() and (path / "vp_reference.json").is_file():
            return path
    return None


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", help="folder of the real photos with labels.json and vp_reference.json")
    parser.add_argument("--per-cell", type=int, default=6, help="jobs kept per scenario x category")
    parser.add_argument("--sheet", default=str(ROOT / "out" / "forge_real" / "contact_sheet.png"))
    parser.add_argument("--work", help="work folder (default: a temporary one)")
    parser.add_argument("--groups", default="shared,wide,tall",
                        help="which groups to measure: shared (the photos or their stand-in), wide, tall")
    parser.add_argument("--rig-scenes", type=int, default=12, help="synthetic scenes per other camera rig")
    parser.add_argument("--no-obstacles", action="store_true",
                        help="plan without the labelled obstacle boxes (the 'before' figure)")
    parser.add_argument("--quick", action="store_true",
                        help="3 photos, 2 scenes per rig, 1 job per scenario x category")
    args = parser.parse_args()
    if args.quick:
        args.per_cell, args.rig_scenes = 1, 2

    real = find_real(args.real)
    work_root = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="forge_real_"))
    work_root.mkdir(parents=True, exist_ok=True)
    sheet = Path(args.sheet)
    wanted = set(args.groups.split(","))
    if real is None and "shared" in wanted:
        print("note: real photos absent (looked for ../shared/real/roads with labels.json and vp_reference.json "
              "next to the checkout; pass --real DIR): measuring synthetic 'shared'-rig scenes in their place")
    for key in ("shared", "wide", "tall"):
        if key not in wanted:
            continue
        if key == "shared":
            label = "shared photos" if real is not None else "synthetic shared rig (fallback)"
            folder_path = real if real is not None else synthetic_folder("shared", work_root / "rig_shared",
                                                                         args.rig_scenes)
            group_sheet = sheet
        else:
            label = f"synthetic {key} rig"
            folder_path = synthetic_folder(key, work_root / f"rig_{key}", args.rig_scenes)
            group_sheet = sheet.with_name(f"{sheet.stem}_{key}{sheet.suffix}")
        measure(label, folder_path, work_root / f"work_{key}", args, group_sheet,
                quick_photos=args.quick and key == "shared")
    return 0


def synthetic_folder(rig: str, folder: Path, n: int) -> Path:
    """`n` road scenes of camera rig `rig` as JPEGs with labels.json / vp_reference.json in the shared photos'
    format (exact truth: vanishing point, hood top, obstacle boxes)."""
    from builder.movsafebench.sources.synthetic import render_rig_scene

    folder.mkdir(parents=True, exist_ok=True)
    labels, vp_ref = {}, {}
    for seed in range(n):
        scene = render_rig_scene(rig, seed)
        name = f"{rig}_{seed:03d}.jpg"
        scene.image.save(folder / name, quality=92)
        w, h = scene.image.size
        labels[name] = {"W": w, "H": h, "hood_top": int(scene.hood_top), "obstacles": scene.obstacles}
        vp_ref[name] = {"W": w, "H": h, "vp": [round(v, 2) for v in scene.vanishing_point]}
    (folder / "labels.json").write_text(json.dumps(labels, indent=1))
    (folder / "vp_reference.json").write_text(json.dumps(vp_ref, indent=1))
    return folder


def measure(label: str, real: Path, work: Path, args: argparse.Namespace, sheet: Path, *,
            quick_photos: bool) -> None:
    """The whole CPU pipeline on one folder of photos with hand (or synthetic) references; prints its figures."""
    work.mkdir(parents=True, exist_ok=True)
    labels = json.loads((real / "labels.json").read_text())
    vp_ref = json.loads((real / "vp_reference.json").read_text())
    names = sorted(labels)
    if quick_photos:
        names = list(dict.fromkeys([names[0], names[len(names) // 2], names[-1]]))  # fewer than 3: each once
    print(f"\n=== {label}: {real} ({len(names)} photos); work folder {work}")

    from builder.movsafebench.hazardforge.config import ForgeConfig
    from builder.movsafebench.hazardforge.job import WorkerSpec
    from builder.movsafebench.hazardforge.layout import obstacle_overlap
    from builder.movsafebench.hazardforge.plan import build_plan, read_sources
    from builder.movsafebench.hazardforge.run import run_jobs
    from builder.movsafebench.hazardforge.runstore import RunStore
    from builder.movsafebench.sources import folder
    from builder.movsafebench.sources.manifest import write_manifest
    from eval_kit.movsafebench.spec import EDITED_SCENARIOS, SCENARIO_CATEGORIES

    # 1. sources scan folder (with hood detection) -> manifest in the photo folder's terms; the labelled
    # obstacle boxes ride along (a source's known boxes), unless --no-obstacles
    index = work / "index.jsonl"
    index.write_text("".join(json.dumps({"id": Path(n).stem, "path": n, "gt_action": GTS[i % 3], "agent": "vehicle",
                                         **({"obstacles": labels[n]["obstacles"]}
                                            if labels[n]["obstacles"] and not args.no_obstacles else {})})
                             + "\n" for i, n in enumerate(names)))
    t0 = time.perf_counter()
    scan = folder.scan(index, real, dataset="drivebench", detect_hoods=True)
    scan_s = time.perf_counter() - t0
    manifest = work / "sources.jsonl"
    write_manifest(scan.records, manifest)
    # 2. forge plan with detected vanishing points
    targets = {s: dict.fromkeys(SCENARIO_CATEGORIES[s], args.per_cell) for s in EDITED_SCENARIOS}
    config = ForgeConfig(target_counts=targets)
    items = read_sources(manifest, {"drivebench": real})
    t0 = time.perf_counter()
    jobs, stats = build_plan(items, config=config, plan_dir=work, detect_vp=True, sources_path=manifest)
    plan_s = time.perf_counter() - t0
    plan = work / "plan.jsonl"
    plan.write_text("".join(json.dumps(j, sort_keys=True) + "\n" for j in jobs))
    # 3. forge run: compositor + heuristic checker
    import hashlib

    worker = WorkerSpec(plan_dir=str(work.resolve()), editor="compositor", checker="heuristic")
    store = RunStore(work / "run")
    store.init(worker.run_info(plan, hashlib.sha256(plan.read_bytes()).hexdigest(), len(jobs)))
    t0 = time.perf_counter()
    summary = run_jobs(jobs, store, worker, progress=False)
    run_s = time.perf_counter() - t0
    records = list(store.records())
    print(f"scan {scan_s:.1f} s ({len(scan.records)} sources), plan {plan_s:.1f} s ({len(jobs)} jobs, "
          f"{stats['eligible']} eligible before subsampling, {stats['skipped']} skipped), run {run_s:.1f} s "
          f"({dict(summary.statuses)})")

    # --- vanishing point -------------------------------------------------------------------------------------
    vp_of: dict[str, tuple[float, float]] = {}
    for job in jobs:
        vp_of[job["source_id"]] = (job["vanishing_point"]["x"], job["vanishing_point"]["y"])
    errors, prior = [], []
    for name in names:
        ref = vp_ref[name]
        diag = float(np.hypot(ref["W"], ref["H"]))
        x, y = vp_of[Path(name).stem]
        errors.append(100 * float(np.hypot(x - ref["vp"][0], y - ref["vp"][1])) / diag)
        prior.append(100 * float(np.hypot(ref["W"] / 2 - ref["vp"][0], ref["H"] / 2 - ref["vp"][1])) / diag)
    print(f"\nvanishing point error ({label}), % of diagonal: median {statistics.median(errors):.2f}, "
          f"p90 {pct(errors, 90):.2f}, max {max(errors):.2f} (targets <= 0.6 / <= 1.5); horizon-prior baseline median "
          f"{statistics.median(prior):.2f}, p90 {pct(prior, 90):.2f}")

    # --- ego hood --------------------------------------------------------------------------------------------
    hood_of = {r.id: r.ego_hood for r in scan.records}
    from builder.movsafebench.hazardforge.ego_hood import placement_top

    print("\nego hood top (rows): reference / detected / placement bound (unsure: the detector's conservative row) "
          "/ error of the detected top and of the bound, % of H (+ = below the reference: on the hood)")
    hood_errors, bound_errors = [], []
    for name in names:
        found = hood_of[Path(name).stem]
        ref, got, height = labels[name]["hood_top"], found["top"], labels[name]["H"]
        bound = placement_top(found, height)
        err, berr = 100 * (got - ref) / height, 100 * (bound - ref) / height
        hood_errors.append(abs(err))
        bound_errors.append(berr)
        note = f"  unsure: {found.get('reason')}" if found.get("certain") is False else ""
        print(f"  {name:32s} {ref:4d} {got:4d} {bound:4d} {err:+6.2f} {berr:+6.2f}{note}")
    print(f"  worst |error| of the detected top {max(hood_errors):.2f} % of H (target <= 2); within 2 %: "
          f"{sum(e <= 2 for e in hood_errors)}/{len(hood_errors)}; unsure "
          f"{sum(hood_of[Path(n).stem].get('certain') is False for n in names)}; placement bound below the "
          f"reference by more than 0.5 % of H: {sum(e > 0.5 for e in bound_errors)} (worst {max(bound_errors):+.2f})")

    # --- placement, overlap, implied height ------------------------------------------------------------------
    on_ground = above_hood = below_horizon = overlapping = total = on_hood = covering = moved = 0
    ratios: dict[str, list[float]] = defaultdict(list)
    free_known = free_yes = 0
    for rec in records:
        if rec["status"] != "accepted":
            continue
        name = f"{rec['source_id']}.jpg"
        ref_vp_y, hood_ref = vp_ref[name]["vp"][1], labels[name]["hood_top"]
        obstacles = labels[name]["obstacles"]
        for edit in rec["edits"]:
            box = edit.get("object_box")
            if not box:
                continue
            total += 1
            x0, y0, x1, y1 = box
            base = y1 - 1
            above_hood += base < hood_ref
            on_hood += base >= hood_ref  # the object stands on the ego car (reference hood top; H: none)
            below_horizon += base > ref_vp_y
            on_ground += ref_vp_y < base < hood_ref
            area = max(1, (x1 - x0) * (y1 - y0))
            if any(max(0, min(x1, b[2]) - max(x0, b[0])) * max(0, min(y1, b[3]) - max(y0, b[1])) > 0.1 * area
                   for b in obstacles):
                overlapping += 1
            covering += any(obstacle_overlap(box, b) > 0.3 for b in obstacles)
            moved += bool((edit.get("object_size") or {}).get("moved_from"))
            size = edit.get("object_size") or {}
            cam = size.get("camera_height_m", 1.5)
            if base > ref_vp_y and size and not (edit["canvas"]["pad_side"] and (x0 == 0 or x1 >= rec["width"])):
                implied = (y1 - y0) * cam / (y1 - ref_vp_y)
                ratios[edit["category"]].append(implied / size["real_height_m"])
            placement = edit.get("placement") or {}
            if placement.get("free") is not None:
                free_known += 1
                free_yes += bool(placement["free"])
    flat = [r for v in ratios.values() for r in v]
    print(f"\ninserted objects (accepted edits with a box): {total}")
    if total:
        print(f"  base on the ground (below the reference horizon and above the reference hood): {on_ground}/{total} "
              f"= {100 * on_ground / total:.1f} % (above hood {above_hood}, below horizon {below_horizon})")
        print(f"  objects on the hood (base at or below the reference hood top): {on_hood}/{total} (target 0)")
        print(f"  overlapping a labelled obstacle (> 10 % of the object's box): {overlapping}/{total} = "
              f"{100 * overlapping / total:.1f} %")
        print(f"  over a labelled obstacle by the plan's criterion (> 30 % of the smaller box): {covering}/{total} "
              f"({'obstacle boxes NOT given to the plan' if args.no_obstacles else 'boxes given to the plan'}); "
              f"moved along their row: {moved}; layouts skipped as covering one: {stats['obstacle_skipped']}")
        print(f"  free-space footprint found: {free_yes}/{free_known} placements that had an occupancy map")
    if flat:
        within = sum(0.5 <= r <= 2 for r in flat)
        print(f"  implied real height / category height (reference VP, {len(flat)} objects not cut by the border): "
              f"median {statistics.median(flat):.2f}, min {min(flat):.2f}, max {max(flat):.2f}, within 0.5-2x "
              f"{within}/{len(flat)}")
        print("  per category: " + ", ".join(f"{c} {statistics.median(v):.2f} [{min(v):.2f}-{max(v):.2f}]"
                                            for c, v in sorted(ratios.items())))

    # --- acceptance ------------------------------------------------------------------------------------------
    cells: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for rec in records:
        cell = cells[rec["scenario"]][rec["category"]]
        cell[0] += rec["status"] == "accepted"
        cell[1] += 1
    print("\naccepted / jobs per scenario x category")
    for scenario in EDITED_SCENARIOS:
        row = cells.get(scenario, {})
        print(f"  {scenario:9s} " + "  ".join(f"{c} {a}/{n}" for c, (a, n) in sorted(row.items())))
    dist = cells.get("distance", {})
    short = [c for c, (a, n) in dist.items() if n and a / n < 0.5]
    print(f"  distance categories below 50 % accepted: {short or 'none'}; categories with no distance job: "
          f"{sorted(set(SCENARIO_CATEGORIES['distance']) - set(dist)) or 'none'}")
    print("  plan skipped: " + (", ".join(f"{k} {v}" for k, v in stats["skipped_reasons"].items()) or "none"))
    rejected = defaultdict(int)
    for rec in records:
        if rec["status"] != "accepted":
            last = [e for e in rec.get("edits", []) if not e.get("accepted")]
            verdict = last[-1]["attempts"][-1]["verdict"] if last and last[-1].get("attempts") else {}
            rejected[f"{rec['scenario']}: {rec['status']} {verdict.get('completeness')}/{verdict.get('direction')}"
                     if verdict else f"{rec['scenario']}: {rec['status']} {rec.get('reason')}"] += 1
    if rejected:
        print("  not accepted: " + ", ".join(f"{k} x{v}" for k, v in sorted(rejected.items())))

    contact_sheet(real, names, labels, vp_ref, records, store.root, sheet,
                  {n: placement_top(hood_of[Path(n).stem], labels[n]["H"]) for n in names})
    print(f"\ncontact sheet ({label}): {sheet}")


def contact_sheet(real: Path, names: list[str], labels: dict, vp_ref: dict, records: list[dict], run_dir: Path,
                  out: Path, bounds: dict[str, int], thumb_w: int = 400) -> None:
    """One row per photo: the original (reference hood line red, the plan's hood bound dashed orange, reference
    VP cross) and one accepted edit per scenario (object boxes green)."""
    from PIL import Image, ImageDraw

    by_source: dict[str, dict[str, dict]] = defaultdict(dict)
    for rec in sorted(records, key=lambda r: r["job_id"]):
        if rec["status"] == "accepted":
            by_source[rec["source_id"]].setdefault(rec["scenario"], rec)
    scenarios = ("static", "motion", "intrusion", "distance")
    first = labels[names[0]]
    thumb_h = round(thumb_w * first["H"] / first["W"])
    sheet = Image.new("RGB", (thumb_w * 5, thumb_h * len(names)), (30, 30, 30))
    for row, name in enumerate(names):
        stem = Path(name).stem
        with Image.open(real / name) as img:
            original = img.convert("RGB")
        scale = thumb_w / original.width
        tiles = [(original, None)]
        for scenario in scenarios:
            rec = by_source[stem].get(scenario)
            if rec is None:
                tiles.append((None, None))
                continue
            digest = rec["image_sha256"]
            stored = next((run_dir / "images" / digest[:2]).glob(f"{digest}.*"))  # whatever format the run stores
            with Image.open(stored) as img:
                tiles.append((img.convert("RGB"), rec))
        for col, (img, rec) in enumerate(tiles):
            if img is None:
                continue
            small = img.resize((thumb_w, round(img.height * scale)))
            draw = ImageDraw.Draw(small)
            hood = labels[name]["hood_top"] * scale
            draw.line([(0, hood), (thumb_w, hood)], fill=(255, 0, 0), width=1)
            bound = bounds[name] * scale
            for x in range(0, thumb_w, 12):
                draw.line([(x, bound - 2), (x + 6, bound - 2)], fill=(255, 150, 0), width=1)
            vx, vy = (v * scale for v in vp_ref[name]["vp"])
            draw.line([(vx - 6, vy), (vx + 6, vy)], fill=(255, 255, 0))
            draw.line([(vx, vy - 6), (vx, vy + 6)], fill=(255, 255, 0))
            if rec is not None:
                for edit in rec["edits"]:
                    if edit.get("object_box"):
                        x0, y0, x1, y1 = (v * scale for v in edit["object_box"])
                        draw.rectangle([x0, y0, x1, y1], outline=(0, 255, 0))
                draw.text((4, 4), f"{rec['scenario']} {rec['category']} gt={rec['ground_truth']}", fill=(255, 255, 0))
            else:
                draw.text((4, 4), name, fill=(255, 255, 0))
            sheet.paste(small, (col * thumb_w, row * thumb_h))
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)


if __name__ == "__main__":
    sys.exit(main())
