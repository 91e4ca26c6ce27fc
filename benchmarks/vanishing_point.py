"""Vanishing-point detector: accuracy and speed on synthetic scenes with known truth (issue #3 targets).

Renders N synthetic scenes (road and sidewalk alternating, 1600 x 900 by default), detects the vanishing point of
each on ONE core (OpenCV and BLAS limited to one thread) and prints:
- median and 90th-percentile error as % of the image diagonal (targets: <= 1 %, <= 3 %), overall and per kind;
- images/s of detection alone (target: >= 25 on one core), rendering excluded;
- baselines measured in the same run: the horizon prior alone (image centre column, H/2 row) for accuracy, and the
  detector on the full-resolution frame (no downscaling) on a subset for speed, as ratios;
- per camera rig (issue 32), each on its own line: synthetic road scenes rendered as the rigs `synthetic.RIGS`
  see them ("wide" 1242 x 375 and "tall" 1920 x 1280 with a hood, "shared" 1280 x 720; lens blur, noise and JPEG),
  median / p90 error % of the diagonal, beside the 14 shared real photos against their hand references
  (`../shared/real/roads/vp_reference.json`) when that folder is there. Without it the script says so in one
  line and reports the synthetic rigs only.

Usage: .venv/bin/python benchmarks/vanishing_point.py [--n 200] [--seed 0] [--full-res-subset 40] [--rig-n 30]
                                                      [--real DIR]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def find_real(explicit: str | None) -> Path | None:
    """The shared real road photos with their hand references, or None (a clone without ../shared)."""
    candidates = [Path(explicit)] if explicit else [ROOT.parent / "shared" / "real" / "roads",
                                                    ROOT.parent.parent / "shared" / "real" / "roads"]
    return next((p for p in candidates if (p / "vp_reference.json").is_file()), None)


def rig_errors(rig: str, n: int, seed: int) -> np.ndarray:
    """Error % of the diagonal on `n` synthetic road scenes of camera rig `rig` (seeds seed..seed+n-1)."""
    from builder.movsafebench.hazardforge.vanishing import detect_vanishing_point
    from builder.movsafebench.sources.synthetic import render_rig_scene

    out = []
    for k in range(n):
        scene = render_rig_scene(rig, seed + k)
        vp = detect_vanishing_point(scene.image)
        w, h = scene.image.size
        out.append(100 * np.hypot(vp.x - scene.vanishing_point[0], vp.y - scene.vanishing_point[1]) / np.hypot(w, h))
    return np.array(out)


def real_errors(folder: Path) -> np.ndarray:
    """Error % of the diagonal on the real photos against vp_reference.json."""
    import json

    from PIL import Image

    from builder.movsafebench.hazardforge.vanishing import detect_vanishing_point

    refs = json.loads((folder / "vp_reference.json").read_text())
    out = []
    for name, ref in sorted(refs.items()):
        with Image.open(folder / name) as img:
            vp = detect_vanishing_point(img.convert("RGB"))
        out.append(100 * np.hypot(vp.x - ref["vp"][0], vp.y - ref["vp"][1]) / np.hypot(ref["W"], ref["H"]))
    return np.array(out)


def report_rigs(n: int, seed: int, real: str | None) -> None:
    """One line per camera rig: synthetic wide / tall / shared-size scenes and the shared real photos."""
    from builder.movsafebench.sources.synthetic import RIGS

    print(f"per camera rig, error % of diagonal (synthetic: {n} road scenes each, seeds {seed}..{seed + n - 1})")
    folder = find_real(real)
    if folder is None:
        print("  note: real photos absent (../shared/real/roads not beside the checkout; pass --real DIR): "
              "synthetic rigs only")
    else:
        errs = real_errors(folder)
        print(f"  shared real photos  n={len(errs):3d}  median {np.median(errs):.3f}  p90 "
              f"{np.percentile(errs, 90):.3f}  max {errs.max():.3f}")
    for rig, spec in RIGS.items():
        errs = rig_errors(rig, n, seed)
        print(f"  synthetic {rig:6s} {spec.width}x{spec.height} hood={spec.ego:5s} n={len(errs):3d}  median "
              f"{np.median(errs):.3f}  p90 {np.percentile(errs, 90):.3f}  max {errs.max():.3f}")


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
    parser.add_argument("--rig-n", type=int, default=30, help="synthetic scenes per camera rig")
    parser.add_argument("--real", help="folder of real photos with vp_reference.json (default ../shared/real/roads)")
    parser.add_argument("--quick", action="store_true",
                        help="6 scenes at 800x450, 2 at full size, 2 per rig: checks it runs")
    args = parser.parse_args()
    if args.quick:
        args.n, args.width, args.height, args.full_res_subset, args.rig_n = 6, 800, 450, 2, 2
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
    report_rigs(args.rig_n, args.seed, args.real)


if __name__ == "__main__":
    main()
