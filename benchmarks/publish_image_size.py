"""Bytes per edited image in a MovSafeBench release, against the source photo's, for each image storage.

Builds a small HazardForge run on real road photos (`../shared/real/roads/`, or --real DIR; synthetic scenes
when absent) through the documented chain (`sources scan folder` -> `forge plan` -> `forge run` with the
CPU compositor -> `forge export --scope all`), then publishes the same export three times:
`--image-format as-is` (the run's lossless PNG: the size before this change), `jpeg` (the new default,
quality 95, 4:4:4) and `webp-lossless`. Prints, per storage: bytes per edited image and its ratio to the
mean source file, the Parquet size of the config, and for the lossy JPEG the PSNR against the lossless
image over the whole frame and inside the inserted objects' boxes (what matters for the question).

Usage: nice .venv/bin/python benchmarks/publish_image_size.py [--real DIR] [--per-cell 2] [--photos 14] [--quick]
(--quick: one photo, two static edits: a smoke run of the same figures, not a measurement.)
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
GTS = ("left", "straight", "right")
STORAGES = ("as-is", "jpeg", "webp-lossless")


def cli(*args: object) -> str:
    from click.testing import CliRunner

    from builder.cli import cli as hazardkit

    result = CliRunner().invoke(hazardkit, [str(a) for a in args])
    if result.exit_code != 0:
        raise SystemExit(f"hazardkit {' '.join(str(a) for a in args[:3])} failed: {result.output}")
    return result.output


def photos(real: str | None, work: Path, n: int) -> tuple[Path, list[Path], str]:
    folder = Path(real) if real else ROOT.parent / "shared" / "real" / "roads"
    files = sorted(p for p in folder.glob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")) if \
        folder.is_dir() else []
    if files:
        return folder, files[:n], f"real photos in {folder}"
    looked = folder
    cli("forge", "synthetic", work / "synthetic", "-n", str(n), "--width", "1280", "--height", "720")
    folder = work / "synthetic" / "images"  # `forge synthetic` writes its PNGs there, beside sources.jsonl
    files = sorted(folder.glob("*.png"))
    if not files:
        raise SystemExit(f"hazardkit forge synthetic wrote no PNG into {folder}")
    print(f"note: real road photos absent (looked for {looked}; pass --real DIR); using synthetic scenes instead")
    return folder, files, "synthetic scenes (no real photos found)"


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", help="folder of road photos (default ../shared/real/roads)")
    parser.add_argument("--photos", type=int, default=14)
    parser.add_argument("--per-cell", type=int, default=2, help="jobs kept per scenario x category")
    parser.add_argument("--quick", action="store_true", help="1 photo, 2 static jobs (seconds, for CI)")
    args = parser.parse_args()
    if args.quick:
        args.photos, args.per_cell = 1, 1
    from PIL import Image

    from eval_kit.movsafebench import spec

    work = Path(tempfile.mkdtemp(prefix="publish_image_size_"))
    folder, files, what = photos(args.real, work, args.photos)
    index = work / "index.jsonl"
    index.write_text("".join(json.dumps({"id": f"p{i:03d}", "path": f.name, "gt_action": GTS[i % 3],
                                         "agent": "vehicle"}) + "\n" for i, f in enumerate(files)))
    targets = ({"static": {"cone": 1, "human": 1}} if args.quick else
               {s: dict.fromkeys(spec.SCENARIO_CATEGORIES[s], args.per_cell) for s in spec.EDITED_SCENARIOS})
    (work / "targets.json").write_text(json.dumps(targets))
    cli("sources", "scan", "folder", "--index", index, "--root", folder, "--dataset", "udacity",
        "--out", work / "manifest" / "sources.jsonl")
    cli("forge", "plan", work / "manifest" / "sources.jsonl", "--out", work / "plan.jsonl",
        "--targets", work / "targets.json", "--json")
    cli("forge", "run", work / "plan.jsonl", "--out", work / "run", "--no-progress")
    cli("forge", "export", work / "run", "--out", work / "records", "--scope", "all")
    records = [json.loads(x) for x in (work / "records" / "records.jsonl").read_text().splitlines()]
    edited = [r for r in records if r["scenario"] != "no_edit"]
    base = work / "records"
    source_size = {r["source_id"]: (base / r["image_path"]).stat().st_size for r in records
                   if r["scenario"] == "no_edit"}
    mean_source = statistics.mean(source_size[r["source_id"]] for r in edited)
    print(f"{what}: {len(files)} photos, {len(edited)} edited images (compositor), "
          f"mean source file of an edited image {mean_source / 1024:.1f} KB")
    results = {}
    for storage in STORAGES:
        repo = work / f"repo-{storage}"
        cli("publish", "movsafebench", "--config", "default", "--version", "1.0.0", "--input", work / "records",
            "--out", repo, "--image-format", storage, "--allow-compositor", "--allow-source", "udacity",
            "--date", "2026-12-01")
        facts = json.loads((repo / "release-manifest.json").read_text())["configs"]["default"]["build_facts"]
        group = facts["storage"]["groups"]["edited"]
        parquet = sum(p.stat().st_size for p in (repo / "data" / "default").glob("*.parquet"))
        per_image = group["bytes_out"] / group["rows"]
        results[storage] = (repo, per_image)
        print(f"  {storage:13s}: {per_image / 1024:7.1f} KB per edited image = {per_image / mean_source:5.2f}x "
              f"the source file; formats {group['formats']}; Parquet {parquet / 2**20:.2f} MB")
    print(f"  jpeg / as-is: {results['jpeg'][1] / results['as-is'][1]:.3f} of the bytes; webp-lossless / "
          f"as-is: {results['webp-lossless'][1] / results['as-is'][1]:.3f}")

    import pyarrow.parquet as pq

    def images(repo: Path) -> dict[str, bytes]:
        table = pq.read_table(next((repo / "data" / "default").glob("*.parquet")), columns=["id", "image"])
        return {i: im["bytes"] for i, im in zip(table.column("id").to_pylist(), table.column("image").to_pylist(),
                                                strict=True)}

    lossless, lossy, webp = (images(results[s][0]) for s in STORAGES)
    whole, boxes, exact = [], [], 0
    for r in edited:
        a = np.asarray(Image.open(io.BytesIO(lossless[r["id"]])).convert("RGB"))
        b = np.asarray(Image.open(io.BytesIO(lossy[r["id"]])).convert("RGB"))
        c = np.asarray(Image.open(io.BytesIO(webp[r["id"]])).convert("RGB"))
        exact += bool(np.array_equal(a, c))
        whole.append(psnr(a, b))
        for x0, y0, x1, y1 in r.get("object_box") or []:
            boxes.append(psnr(a[y0:y1, x0:x1], b[y0:y1, x0:x1]))
    print(f"  JPEG vs lossless PSNR: whole frame median {statistics.median(whole):.1f} dB (min {min(whole):.1f}); "
          f"inside object boxes median {statistics.median(boxes):.1f} dB (min {min(boxes):.1f}, {len(boxes)} boxes)")
    print(f"  lossless WebP identical to the PNG pixels: {exact}/{len(edited)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
