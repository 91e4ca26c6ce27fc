"""How each benchmark appears on the leaderboard: headline metric, CI, breakdowns, plots, significance.

Result keys may be dotted paths into the nested `--json` result (`category.accuracy`). An unknown
benchmark still renders with a generic board (headline `accuracy`, every `by_*` breakdown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any


def lookup(result: Any, key: str) -> Any:
    """`result["a"]["b"]` for key "a.b" (None when any step is missing); a flat key is tried first."""
    if isinstance(result, dict) and key in result:
        return result[key]
    value = result
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


@dataclass(frozen=True)
class Board:
    benchmark: str
    title: str
    headline: str = "accuracy"  # result key of the ranking metric (a fraction)
    headline_label: str = "Accuracy"
    ci: str = "ci95"  # result key of [low, high]
    # (result key, section title, preferred column order[, metric]) of each breakdown table; with a
    # metric, each breakdown value is a dict and the table shows its `metric` (SafeRelBench's by_relation)
    breakdowns: tuple[tuple, ...] = ()
    plots: tuple[str, ...] = ()  # breakdown keys (or "key:metric") drawn as grouped bar charts
    columns: tuple[tuple[str, str], ...] = ()  # (result key, column title) of extra percentage columns
    counters: tuple[tuple[str, str], ...] = ()  # (result key, column title) of integer columns
    # (per-sample key, title) of the paired significance matrices: "correct" is result["per_sample"]
    # ["correct"], any other key is result["per_sample_tasks"][key], aligned on per_sample ids
    significance: tuple[tuple[str, str], ...] = (("correct", ""),)
    note: str = ""
    extra: dict = field(default_factory=dict)


def board_for(benchmark: str) -> Board:
    """The registered benchmark's board; an unknown benchmark renders with a generic board (headline `accuracy`)."""
    from eval_kit import registry

    bench = registry.find(benchmark)
    if bench is None or not bench.board:
        return Board(benchmark=benchmark, title=benchmark)
    return _board(bench.name)


@cache
def _board(name: str) -> Board:
    from eval_kit import registry

    return registry.get(name).part("board")()
