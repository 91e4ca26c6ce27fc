"""Ego-hood detection against known truth on synthetic views: no hood, matte hood, glossy hood, dashboard.

The synthetic renderer (`builder.movsafebench.sources.synthetic.render_scene(..., ego=...)`) paints the camera
car's body with its true top row, so this measures what real photos with hand labels cannot cover in number:
glossy hoods that mirror the scene (their mirrored lines point at the vanishing point, like lane markings),
dashboards and frames with no hood. Per view it prints: detected top within 2 % of H; worst top error;
placement bound (what `forge plan` keeps every mask above) more than 1 % of H below the truth, i.e. objects
could stand on the body; how often the detector says it is unsure; false hoods (a certain hood on a frame
without one). Baseline in the same run: the detector without the lane test (no vanishing point given).

Usage: nice .venv/bin/python benchmarks/ego_hood_synthetic.py [--n 12] [--seed 100] [--size 960x540] [--quick]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def measure(views: tuple[str, ...], seeds: range, width: int, height: int, use_vp: bool) -> dict[str, dict]:
    from builder.movsafebench.hazardforge.ego_hood import detect_ego_hood
    from builder.movsafebench.hazardforge.vanishing import detect_vanishing_point
    from builder.movsafebench.sources.synthetic import render_scene

    out = {}
    for ego in views:
        rows = []
        for seed in seeds:
            scene = render_scene("road", seed, width, height, ego=ego)
            vp = detect_vanishing_point(scene.image) if use_vp else None
            found = detect_ego_hood(scene.image, vanishing_point=(vp.x, vp.y) if vp and vp.method != "horizon_prior"
                                    else None)
            rows.append((scene.hood_top, found.top, found.placement_top, found.certain))
        err = np.array([100 * (got - ref) / height for ref, got, _, _ in rows])
        perr = np.array([100 * (bound - ref) / height for ref, _, bound, _ in rows])
        out[ego] = {"n": len(rows), "within2": int((np.abs(err) <= 2).sum()),
                    "worst": float(err[np.argmax(np.abs(err))]),
                    "under": int((perr > 1).sum()), "unsure": sum(not c for *_, c in rows),
                    "false_hood": sum(ref == height and got < height and c for ref, got, _, c in rows)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12, help="scenes per view")
    parser.add_argument("--seed", type=int, default=100, help="first scene seed")
    parser.add_argument("--size", default="960x540")
    parser.add_argument("--quick", action="store_true", help="2 scenes per view at 640x360")
    args = parser.parse_args()
    n, (width, height) = args.n, map(int, args.size.split("x"))
    if args.quick:
        n, width, height = 2, 640, 360
    from builder.movsafebench.sources.synthetic import EGO_VIEWS

    seeds = range(args.seed, args.seed + n)
    for label, use_vp in (("with the lane test (as sources scan runs it)", True), ("baseline: no lane test", False)):
        print(f"{label}: {n} road scenes per view, {width}x{height}, seeds {seeds.start}-{seeds.stop - 1}")
        for ego, m in measure(EGO_VIEWS, seeds, width, height, use_vp).items():
            print(f"  {ego:9s} top within 2 % of H {m['within2']}/{m['n']}, worst top error {m['worst']:+.1f} %; "
                  f"placement > 1 % of H below the truth {m['under']}/{m['n']}; unsure {m['unsure']}; "
                  f"false hood {m['false_hood']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
