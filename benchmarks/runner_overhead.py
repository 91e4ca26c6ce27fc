"""Runner overhead: samples/s of `hazardkit eval` with an instant stub model on demo-like MovSafeBench data.

What is timed is the harness's own cost per sample: read the Parquet row, decode the PNG, build the
prompt, compute the request key, "generate" (instant), parse the answer, append to the raw log with a
flush + fsync per batch, and write the submission. The baseline, measured in the same run, is the bare
loop that only reads and decodes the same images; the ratio says what the harness adds on top.

Target: >= 300 samples/s on 2 cores.  Usage: python benchmarks/runner_overhead.py [--n 1000] [--batch-size 8]
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

from eval_kit import registry
from eval_kit.runners import harness
from eval_kit.runners.backends.base import Backend
from eval_kit.testing.synthetic_datasets import write_parquet_folder

TARGET = 300.0


class Instant(Backend):
    """A model that answers at once, so only the harness is measured."""

    name = "stub"

    def settings(self):
        return {"stub": True}

    def generate(self, samples):
        return ["<think>the left lane is blocked</think>Answer: B. go straight" for _ in samples]


def bare_decode(task) -> float:
    """Samples/s of reading and decoding the images alone (the floor any runner pays)."""
    from PIL import Image

    start = time.perf_counter()
    n = 0
    for _, row in task.rows():
        Image.open(io.BytesIO(row["image"]["bytes"])).convert("RGB")
        n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="samples")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--width", type=int, default=320, help="demo image width (height = 9/16 of it)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="64 samples, one repeat: checks the script runs")
    args = parser.parse_args()
    if args.quick:
        args.n, args.repeats = 64, 1
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = write_parquet_folder(tmp / "data", args.n, seed=0, size=(args.width, args.width * 9 // 16))
        task = registry.make_task("movsafebench", data=data, config="demo")
        _ = task.dataset_revision  # hashed once, as a run does before its first sample
        floor = max(bare_decode(task) for _ in range(args.repeats))
        rates = []
        for repeat in range(args.repeats):
            out = tmp / f"run{repeat}"
            start = time.perf_counter()
            summary = harness.run(task, Instant(), out, model="stub", batch_size=args.batch_size, progress=False)
            rates.append(summary.generated / (time.perf_counter() - start))
        resume_start = time.perf_counter()
        resumed = harness.run(task, Instant(), tmp / "run0", model="stub", batch_size=args.batch_size, progress=False)
        resume_rate = resumed.skipped / (time.perf_counter() - resume_start)
    best = max(rates)
    print(f"samples: {args.n} demo-like rows ({args.width}x{args.width * 9 // 16} PNG), batch size {args.batch_size}")
    print(f"baseline (read + decode images only): {floor:8.1f} samples/s")
    runs = ", ".join(f"{r:.1f}" for r in rates)
    print(f"runner, instant stub model:           {best:8.1f} samples/s  (runs: {runs})")
    print(f"runner / baseline:                    {best / floor:8.2f}")
    print(f"resume of a finished run (all skipped): {resume_rate:6.1f} samples/s")
    print(f"target >= {TARGET:.0f} samples/s: {'PASS' if best >= TARGET else 'FAIL'}")


if __name__ == "__main__":
    main()
