"""Count the cooking and handling faults of SafeRelBench's reference plans (issue 31, review round 5).

    .venv/bin/python benchmarks/saferel_cooking_scan.py [PATH] [--config generated] [--show N]

PATH: a samples JSON Lines file or a dataset folder (default `saferelbench/`, config `generated`). Each reference
plan is replayed with the executor and checked with `builder.saferelbench.plan_faults` (its docstring defines the
faults: a pot heated dry, food on the bare oven rack, a china plate on a lit stove, a whole egg fried, a pour into
a pot still in the cabinet, food diced in the pan, a frying pan left unoiled beside an unused oil). Prints the
count of each fault (steps and samples) and the first --show faults. Why: a review round judges 40 pairs; this
counts the same faults over every sample, before and after a planner change (`saferel generate` keeps no pair
with a refused fault, so a generated config should show only `unused-oil`).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from builder.saferelbench.plan_faults import FAULTS, REFUSED, plan_faults
    from eval_kit.saferelbench.samples import load_samples

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="saferelbench")
    parser.add_argument("--config", default="generated")
    parser.add_argument("--show", type=int, default=20, help="faults to print (default 20)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run (benchmarks/run_all.py, the suite): the first 40 samples")
    args = parser.parse_args(argv)
    path = Path(args.path)
    samples = list(load_samples(path, None if path.suffix == ".jsonl" else args.config).values())
    if args.quick:
        samples = samples[:40]
    steps: collections.Counter = collections.Counter()
    hit: dict[str, set[str]] = collections.defaultdict(set)
    shown = 0
    for sample in samples:
        for k, fault, text in plan_faults(sample.world, sample.initial_state, sample.reference_plan):
            steps[fault] += 1
            hit[fault].add(sample.id)
            if shown < args.show:
                print(f"{sample.id} step {k + 1}: {fault}: {text}")
                shown += 1
    refused = set().union(*(hit[f] for f in REFUSED))
    print(f"samples {len(samples)}; with a refused fault: {len(refused)}; with any fault: "
          f"{len(set().union(*hit.values())) if hit else 0}")
    for fault in FAULTS:
        print(f"  {fault}: {steps[fault]} steps in {len(hit[fault])} samples"
              + ("" if fault in REFUSED else " (reported, not refused)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
