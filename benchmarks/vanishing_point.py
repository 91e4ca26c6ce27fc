"""Vanishing-point detector: accuracy and speed on synthetic scenes with known truth (issue #3 targets).

Renders N synthetic scenes (road and sidewalk alternating, 1600 x 900 by default), detects the vanishing point of
each on ONE core (OpenCV and BLAS limited to one thread) and prints:
- median and 90th-percentile error as % of the image diagonal (targets: <= 1 %, <= 3 %), overall and per kind;
- images/s of detection alone (target: >= 25 on one core), rendering excluded;
- baselines measured in the same run: the horizon prior alone (image centre column, H/2 row) for accuracy, and the
  detector on the full-resolution frame (no downscaling) on a subset for speed, as ratios.

Usage: .venv/bin/python benchmarks/vanishing_point.py [--n 200] [--seed 0] [--full-res-subset 40]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def main() -> None:
    import cv2
    from rich.progress import track

    from builder.movsafebench.hazardforge.vanishing import DetectorSettings, detect_vanishing_point
    from builder.movsafebench.sources.synthetic import KINDS, render_scene

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--full-res-subset", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="6 scenes at 800x450, 2 at full size: checks it runs")
    args = parser.parse_args()
    if args.quick:
        args.n, args.width, args.height, args.full_res_subset = 6, 800, 450, 2
    cv2.setNumThreads(1)

    scenes = [render_scene(KINDS[k % 2], args.seed + k, args.width, args.height)
              for k in track(range(args.n), description="rendering")]
    diag = float(np.hypot(args.width, args.height))
    settings = DetectorSettings()
    detect_vanishing_point(scenes[0].image, settings)  # warm-up (imports, allocations)

    errors, prior_errors, kinds, fallbacks = [], [], [], 0
    elapsed = 0.0
    for scene in track(scenes, description="detecting"):
        start = time.perf_counter()
        vp = detect_vanishing_point(scene.image, settings)
        elapsed += time.perf_counter() - start
        tx, ty = scene.vanishing_point
        errors.append(100 * np.hypot(vp.x - tx, vp.y - ty) / diag)
        prior_errors.append(100 * np.hypot(args.width / 2 - tx, args.height / 2 - ty) / diag)
        kinds.append(scene.kind)
        fallbacks += vp.method == "horizon_prior"
    errors_a, prior_a, kinds_a = np.array(errors), np.array(prior_errors), np.array(kinds)

    subset = scenes[: args.full_res_subset]
    full = DetectorSettings(work_width=args.width)
    full_elapsed, full_errors = 0.0, []
    for scene in track(subset, description="full-res baseline"):
        start = time.perf_counter()
        vp = detect_vanishing_point(scene.image, full)
        full_elapsed += time.perf_counter() - start
        full_errors.append(100 * np.hypot(vp.x - scene.vanishing_point[0], vp.y - scene.vanishing_point[1]) / diag)

    rate = args.n / elapsed
    full_rate = len(subset) / full_elapsed
    print(f"vanishing point on {args.n} synthetic scenes ({args.width}x{args.height}, road/sidewalk alternating, "
          f"seeds {args.seed}..{args.seed + args.n - 1}), one core, work width {settings.work_width}px")
    print(f"  error % of diagonal: median {np.median(errors_a):.3f}  p90 {np.percentile(errors_a, 90):.3f}  "
          f"max {errors_a.max():.3f}   (targets: median <= 1, p90 <= 3)")
    for kind in KINDS:
        sel = errors_a[kinds_a == kind]
        print(f"    {kind:9s} n={len(sel):3d}  median {np.median(sel):.3f}  p90 {np.percentile(sel, 90):.3f}")
    print(f"  horizon-prior fallbacks: {fallbacks}/{args.n}")
    print(f"  speed: {rate:.1f} images/s ({1000 / rate:.1f} ms/image)   (target: >= 25 images/s)")
    print(f"  baseline, horizon prior only: median {np.median(prior_a):.3f}  p90 {np.percentile(prior_a, 90):.3f}  "
          f"-> detector/prior median error ratio {np.median(errors_a) / np.median(prior_a):.3f}")
    print(f"  baseline, full-resolution LSD on {len(subset)} scenes: {full_rate:.1f} images/s, median error "
          f"{np.median(full_errors):.3f} -> downscaled speed-up x{rate / full_rate:.2f}")


if __name__ == "__main__":
    main()
