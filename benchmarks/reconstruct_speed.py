"""Reconstruction speed: `hazardkit reconstruct bd-hazardvlm` on 500 images vs `sha256sum` over the same files.

Builds a fake RSUD20K / TFP-BD tree of 500 distinct JPEGs (default 1280x720, the size class of the source
frames), a matching manifest and annotations, then times (best of --repeat, warm page cache):
  - `sha256sum` over the 500 files (the floor: every byte must be hashed),
  - `builder.bd_hazardvlm.reconstruct.reconstruct(...)` in-process (verify + join + write Parquet with images),
  - the whole CLI in a fresh process (adds Python start-up and imports).
Runs are interleaved in pairs (baseline, candidate) because the machine is shared and load drifts; prints
the best times and the median per-pair ratio against sha256sum (target: in-process <= 1.5). Reconstruction
checks size, sha256, header, dimensions and end-of-image marker; the full decode of every pixel happens where
the manifest is made (`hazardkit manifest bd-hazardvlm`) and, on request, with `--decode`, timed here too.
Usage: python benchmarks/reconstruct_speed.py [--images 500] [--width 1280] [--height 720] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from builder.bd_hazardvlm.reconstruct import reconstruct  # noqa: E402
from eval_kit.bd_hazardvlm import spec  # noqa: E402


def make_tree(tmp: Path, n: int, width: int, height: int) -> tuple[Path, Path, dict[str, Path], list[Path]]:
    rng = np.random.default_rng(0)
    bases = []
    for _ in range(8):  # a few textured frames; each file gets unique trailing bytes, so all hashes differ
        noise = rng.integers(0, 255, (height // 8, width // 8, 3), dtype=np.uint8)
        image = Image.fromarray(noise).resize((width, height), Image.Resampling.BILINEAR)
        buf = io.BytesIO()
        image.save(buf, format="JPEG", quality=90)
        bases.append(buf.getvalue())
    roots = {"rsud20k": tmp / "RSUD20K", "tfp_bd": tmp / "TFP-BD"}
    manifest, annotations, files = [], [], []
    for i in range(n):
        source = "rsud20k" if i < n * 3 // 4 else "tfp_bd"
        rel = f"images/{i // 100:02d}/frame_{i:05d}.jpg"
        data = bases[i % len(bases)] + f"hazardkit-bench-{i}".encode()
        path = roots[source] / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        files.append(path)
        sample_id = f"BDHV_{i + 1:04d}"
        manifest.append({"id": sample_id, "source_dataset": source, "path": rel,
                         "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "width": width,
                         "height": height, "license": "bench", "attribution": "bench"})
        rec = dict(spec.CONTROL_ANSWER) if i % 9 == 0 else {
            "hazard_present": True, "primary_hazard_category": spec.CATEGORIES[i % 11], "risk_timing": "latent",
            "severity": "medium", "defensive_actions": ["slow_down"]}
        rec.update({"id": sample_id, "source_dataset": source, "source_id": f"frame_{i:05d}", "source_path": rel,
                    "evidence": "bench", "hallucination_trap": False, "western_bias_trap": False, "pilot": False})
        annotations.append(rec)
    m, a = tmp / "manifest.jsonl", tmp / "annotations.jsonl"
    m.write_text("".join(json.dumps(x) + "\n" for x in manifest))
    a.write_text("".join(json.dumps(x) + "\n" for x in annotations))
    return m, a, roots, files


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def paired(baseline, candidate, repeat: int) -> tuple[float, float, float]:
    """Interleave baseline and candidate runs (the machine is shared: load drifts between runs) and
    return (best baseline time, best candidate time, median of the per-pair ratios)."""
    pairs = [(timed(baseline), timed(candidate)) for _ in range(repeat)]
    return min(b for b, _ in pairs), min(c for _, c in pairs), statistics.median(c / b for b, c in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=500)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="40 small images, one pair: checks the script runs")
    args = parser.parse_args()
    if args.quick:
        args.images, args.width, args.height, args.repeat = 40, 320, 180, 1
    sha256sum = shutil.which("sha256sum")
    if sha256sum is None:
        sys.exit("sha256sum not found")
    tmp = Path(tempfile.mkdtemp(prefix="bdhv-bench-"))
    try:
        manifest, annotations, roots, files = make_tree(tmp, args.images, args.width, args.height)
        total_mb = sum(f.stat().st_size for f in files) / 1e6
        out = tmp / "out"

        def run_sha() -> None:
            subprocess.run([sha256sum, *map(str, files)], check=True, stdout=subprocess.DEVNULL)

        def run_reconstruct() -> None:
            report = reconstruct(manifest, annotations, roots, out, workers=args.workers)
            assert report.complete and report.reconstructed == args.images

        cli = [sys.executable, "-c", "from builder.cli import main; raise SystemExit(main())",
               "reconstruct", "bd-hazardvlm", "--manifest", str(manifest), "--annotations", str(annotations),
               "--source", f"rsud20k={roots['rsud20k']}", "--source", f"tfp-bd={roots['tfp_bd']}",
               "--out", str(out)]

        def run_decode() -> None:
            report = reconstruct(manifest, annotations, roots, out, workers=args.workers, decode=True)
            assert report.complete and report.decoded_in_full == args.images

        def run_cli() -> None:
            subprocess.run(cli, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)

        run_sha()  # warm the page cache and the imports once, untimed
        run_reconstruct()
        t_sha, t_rec, r_rec = paired(run_sha, run_reconstruct, args.repeat)
        t_sha2, t_cli, r_cli = paired(run_sha, run_cli, args.repeat)
        t_sha3, t_dec, r_dec = paired(run_sha, run_decode, args.repeat)
        parquet_mb = (out / "reconstructed" / "test-00000-of-00001.parquet").stat().st_size / 1e6
        print(f"images: {args.images} JPEG {args.width}x{args.height}, {total_mb:.1f} MB in all "
              f"(parquet {parquet_mb:.1f} MB); {args.repeat} interleaved pairs, warm cache, "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"sha256sum over the files:          best {min(t_sha, t_sha2, t_sha3):.3f} s")
        print(f"reconstruct() in-process:          best {t_rec:.3f} s   median ratio {r_rec:.2f} (target <= 1.5)")
        print(f"hazardkit reconstruct (new proc):  best {t_cli:.3f} s   median ratio {r_cli:.2f} (incl. start-up)")
        print(f"reconstruct(decode=True):          best {t_dec:.3f} s   median ratio {r_dec:.2f} (every pixel, "
              f"--decode)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
