"""How tidy SafeRelBench's reference plans are (issue 31, plans a robot would run): release-then-regrasp runs, how
long containers stand open, plan length and the action mix.

    .venv/bin/python benchmarks/saferel_plan_tidiness.py [PATH] [--config generated]

PATH: a samples JSON Lines file, or a dataset folder (default `saferelbench/`, config `generated`). Prints the
number of RELEASE x [NAVIGATE_TO x] GRASP x runs, the distance from each OPEN of a container to its CLOSE (median,
mean, max, how many at >= 5 steps, how many never closed), the plan length (median, max; spatial and control) and
the action shares (NAVIGATE_TO, PLACE_ON_TOP, RELEASE).
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from eval_kit.saferelbench.samples import load_raw_samples

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="saferelbench")
    parser.add_argument("--config", default="generated")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run (benchmarks/run_all.py, the suite): the same figures; it sets no target")
    args = parser.parse_args(argv)
    path = Path(args.path)
    rows = [raw for _, raw in load_raw_samples(path, None if path.suffix == ".jsonl" else args.config)]
    regrasp, spans, never = 0, [], 0
    for row in rows:
        plan = [(s["action"], tuple(s["args"])) for s in row["reference_plan"]]
        for i, (name, acted) in enumerate(plan):
            if name != "RELEASE" or not acted:
                continue
            j = i + 1
            if j < len(plan) and plan[j] == ("NAVIGATE_TO", acted[:1]):
                j += 1
            regrasp += j < len(plan) and plan[j] == ("GRASP", acted[:1])
        opened: dict[str, int] = {}
        for i, (name, acted) in enumerate(plan):
            if name == "OPEN":
                opened[acted[0]] = i
            elif name == "CLOSE" and acted[0] in opened:
                spans.append(i - opened.pop(acted[0]))
        never += len(opened)
    lengths = [len(r["reference_plan"]) for r in rows]
    by_split = {split: statistics.median([len(r["reference_plan"]) for r in rows if r["split"] == split] or [0])
                for split in ("spatial", "control")}
    actions = collections.Counter(s["action"] for r in rows for s in r["reference_plan"])
    total = sum(actions.values()) or 1
    print(f"samples {len(rows)}; release-then-regrasp runs of the same object: {regrasp}")
    print(f"OPEN -> CLOSE distance (steps): median {statistics.median(spans or [0])}, mean "
          f"{sum(spans) / max(1, len(spans)):.2f}, max {max(spans, default=0)}, >= 5 steps {sum(s >= 5 for s in spans)}"
          f" of {len(spans)}; never closed {never}")
    print(f"plan length: median {statistics.median(lengths or [0])}, max {max(lengths, default=0)} (spatial median "
          f"{by_split['spatial']}, control median {by_split['control']})")
    print("action shares: " + ", ".join(f"{name} {actions[name] / total:.1%}"
                                        for name in ("NAVIGATE_TO", "PLACE_ON_TOP", "RELEASE", "GRASP")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
