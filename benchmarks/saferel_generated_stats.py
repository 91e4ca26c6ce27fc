"""Print the statistics of SafeRelBench's `generated` config against the paper's scale and task regime.

    .venv/bin/python benchmarks/saferel_generated_stats.py [PATH] [--config generated] [--json]

PATH: a samples JSON Lines file, or a dataset folder (default `saferelbench/`, config `generated`: the committed
Parquet). Prints relations and risk types (pairs and shares), reference-plan length (median, max), the action
mix (PLACE_ON_TOP share), termination goals, added objects, and whether each target of issue 31 is met
(`builder.saferelbench.stats.TARGETS`). Exit 1 when a target is not met.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from builder.saferelbench.stats import config_statistics, render, target_checks
    from eval_kit.saferelbench.samples import load_raw_samples

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="saferelbench")
    parser.add_argument("--config", default="generated")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run (benchmarks/run_all.py, the suite): print the figures and exit 0 even when a "
                             "target is not met; without it an unmet target exits 1")
    args = parser.parse_args(argv)
    path = Path(args.path)
    rows = [raw for _, raw in load_raw_samples(path, None if path.suffix == ".jsonl" else args.config)]
    stats = config_statistics(rows)
    print(json.dumps(stats, indent=2) if args.json else render(stats))
    return 0 if args.quick or all(met for _, met, _ in target_checks(stats)) else 1


if __name__ == "__main__":
    raise SystemExit(main())
