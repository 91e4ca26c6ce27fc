"""What the strict JSON reader costs: lines/s of `eval_kit.jsonl.iter_jsonl` (strict: no NaN, no duplicate keys,
bounded depth, regular files only) against a plain `json.loads` loop over the same submission file.

    .venv/bin/python benchmarks/strict_json_speed.py [--lines 200000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval_kit.jsonl import iter_jsonl


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--quick", action="store_true", help="10,000 lines: checks the script runs")
    args = parser.parse_args()
    if args.quick:
        args.lines = 10_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "predictions.jsonl"
        with path.open("w") as handle:
            for i in range(args.lines):
                handle.write(json.dumps({"id": f"msb-{i:08d}", "prediction": None, "response":
                                         "The truck blocks the left lane, so the safest choice is C. go right"}) + "\n")

        def plain() -> None:
            with path.open(encoding="utf-8") as handle:
                for raw in handle:
                    json.loads(raw)

        def strict() -> None:
            for _ in iter_jsonl(path):
                pass

        t_plain, t_strict = best_of(plain), best_of(strict)
    print(f"{args.lines} lines: plain json.loads {args.lines / t_plain:,.0f} lines/s, strict reader "
          f"{args.lines / t_strict:,.0f} lines/s, ratio {t_plain / t_strict:.2f} (strict / plain throughput)")


if __name__ == "__main__":
    main()
