"""ToyBench whose scoring is deliberately slow (0.5 s per prediction): the leaderboard Space's time limit must
stop it. Registered in a scoring worker process through HAZARDKIT_BENCHMARKS=tests.slowbench."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.toybench import BENCHMARK as TOY
from tests.toybench.parts import ParityChecker
from tests.toybench.parts import score_run as toy_score_run

BENCHMARK = replace(TOY, name="slowbench", title="SlowBench", package="tests.toybench",
                    score_run="tests.slowbench:score_run", checker="tests.slowbench:SlowChecker",
                    board="tests.slowbench:board")


class SlowChecker(ParityChecker):
    benchmark = "slowbench"


def board():
    from eval_kit.leaderboard.boards import Board

    return Board(benchmark="slowbench", title="SlowBench")


def score_run(task: Any, predictions: Path, **options: Any) -> dict[str, Any]:
    time.sleep(0.5 * sum(1 for line in Path(predictions).read_text().splitlines() if line.strip()))
    return {**toy_score_run(task, predictions, **options), "benchmark": "slowbench"}
