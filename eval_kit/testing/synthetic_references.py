"""Synthetic MovSafeBench references and predictions with known truth, for tests and benchmarks.

Never passed off as the benchmark: ids start with `synthetic-`. The shape follows paper table 2
(scenario x category counts, 400 source images split between DriveBench and SA-Bench).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eval_kit.movsafebench import spec


def table2_references(seed: int = 0, n_sources: int = 400, scale: int = 1) -> list[dict[str, Any]]:
    """Reference rows with paper table 2's counts (times `scale`) plus `n_sources` no_edit rows."""
    rng = np.random.default_rng(seed)
    sources = [
        ("drivebench" if i < n_sources // 2 else "sa_bench", f"src{i:04d}") for i in range(n_sources)
    ]
    truth = {s: spec.ANSWERS[int(rng.integers(0, 3))] for s in sources}
    rows: list[dict[str, Any]] = []
    for bench, sid in sources:
        rows.append({"id": f"synthetic-{bench}-{sid}-no_edit", "answer": truth[(bench, sid)],
                     "scenario": "no_edit", "category": None, "source_benchmark": bench, "source_id": sid})
    counter = 0
    for copy in range(scale):
        for scenario, counts in spec.TABLE2_COUNTS.items():
            for category, count in counts.items():
                for _ in range(count):
                    bench, sid = sources[int(rng.integers(0, n_sources))]
                    rows.append({
                        "id": f"synthetic-{counter:08d}",
                        "answer": truth[(bench, sid)],
                        "scenario": scenario,
                        "category": category,
                        "source_benchmark": bench,
                        "source_id": sid if scale == 1 else f"{sid}-{copy}",
                    })
                    counter += 1
    return rows


def wrong_answer(answer: str, rng: np.random.Generator) -> str:
    others = [a for a in spec.ANSWERS if a != answer]
    return others[int(rng.integers(0, 2))]
