"""Scoring throughput: MovSafeBench's full breakdowns vs evaluate's generic accuracy on the same rows.

Prints rows/s for (a) the plain scoring function with every breakdown and the bootstrap CI, (b) our
`evaluate` module, (c) a generic `evaluate` accuracy metric on the same rows (the baseline), their
ratios, and (d) the wall time of `hazardkit score movsafebench --json` on a 7,254-row submission.

    .venv/bin/python benchmarks/score_speed.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from eval_kit.movsafebench import spec  # noqa: E402
from eval_kit.movsafebench.scoring import compute_scores  # noqa: E402
from eval_kit.testing.synthetic_references import table2_references  # noqa: E402


def synthetic_columns(n: int, seed: int = 0) -> dict[str, list]:
    """n rows shaped like MovSafeBench (18 edited variants per source image, 5% no_edit)."""
    rng = np.random.default_rng(seed)
    answers = np.array(spec.ANSWERS)[rng.integers(0, 3, n)]
    scenarios = np.array(spec.SCENARIOS)[rng.choice(5, n, p=[0.05, 0.4, 0.15, 0.25, 0.15])]
    cats = np.array(spec.CATEGORIES, dtype=object)[rng.integers(0, 13, n)]
    cats[scenarios == "no_edit"] = None
    sources = np.array(spec.SOURCE_BENCHMARKS)[rng.integers(0, 2, n)]
    source_ids = np.char.add("src", (np.arange(n) // 18).astype(str))
    correct = rng.random(n) < 0.45
    preds = np.where(correct, answers, np.array(spec.ANSWERS)[rng.integers(0, 3, n)]).astype(object)
    preds[rng.random(n) < 0.02] = None
    return {
        "answers": answers.tolist(), "predictions": preds.tolist(), "scenarios": scenarios.tolist(),
        "categories": cats.tolist(), "source_benchmarks": sources.tolist(), "source_ids": source_ids.tolist(),
    }


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="20,000 rows (the CLI figure stays at 7,254 rows)")
    args = parser.parse_args()
    if args.quick:
        args.rows = 20_000
    n = args.rows
    cols = synthetic_columns(n)
    print(f"rows: {n:,}")

    t_plain, result = timed(lambda: compute_scores(
        cols["answers"], cols["predictions"], cols["scenarios"], cols["categories"], cols["source_benchmarks"],
        cols["source_ids"]))
    print(f"plain compute_scores (all breakdowns + 1000-resample CI): {t_plain:.2f} s = {n / t_plain:,.0f} rows/s")

    import evaluate

    generic = evaluate.load(str(ROOT / "benchmarks" / "generic_accuracy"))
    code = {a: i for i, a in enumerate(spec.ANSWERS)}
    refs_int = [code[a] for a in cols["answers"]]
    preds_int = [code.get(p, -1) for p in cols["predictions"]]
    t_generic, acc = timed(lambda: generic.compute(predictions=preds_int, references=refs_int))
    print(f"evaluate generic accuracy (one number):                 {t_generic:.2f} s = {n / t_generic:,.0f} rows/s")

    from eval_kit import registry

    ours = evaluate.load(str(registry.get("movsafebench").metric_path()))  # where the module lives now
    t_module, _ = timed(lambda: ours.compute(
        predictions=[p or "" for p in cols["predictions"]], references=cols["answers"], scenarios=cols["scenarios"],
        categories=[c or "" for c in cols["categories"]], source_benchmarks=cols["source_benchmarks"],
        source_ids=cols["source_ids"]))
    print(f"evaluate movsafebench module (all breakdowns + CI):      {t_module:.2f} s = {n / t_module:,.0f} rows/s")
    print(f"ratio plain / generic accuracy speed:  {t_generic / t_plain:.2f}x (target >= 1)")
    print(f"ratio module / generic accuracy speed: {t_generic / t_module:.2f}x")
    print(f"(sanity) overall accuracy all rows vs edited: {acc['accuracy']:.3f} vs {result['accuracy']:.3f}")

    with tempfile.TemporaryDirectory() as tmp:
        rows = table2_references(seed=0)
        edited = [r for r in rows if r["scenario"] != "no_edit"]
        ref_path, pred_path = Path(tmp) / "refs.jsonl", Path(tmp) / "preds.jsonl"
        ref_path.write_text("".join(json.dumps(r) + "\n" for r in edited))
        rng = np.random.default_rng(0)
        pred_path.write_text("".join(
            json.dumps({"id": r["id"], "response": f"The road is busy. Answer: go {spec.ANSWERS[rng.integers(0, 3)]}"})
            + "\n" for r in edited))
        exe = Path(sys.executable).parent / "hazardkit"
        t_cli, proc = timed(lambda: subprocess.run(
            [str(exe), "score", "movsafebench", "-r", str(ref_path), "-p", str(pred_path), "--json"],
            capture_output=True, text=True, check=False))
        if proc.returncode != 0:
            print(proc.stderr)
        print(f"CLI: hazardkit score movsafebench --json on {len(edited):,} raw responses: {t_cli:.2f} s wall "
              f"(target < 2 s)")


if __name__ == "__main__":
    main()
