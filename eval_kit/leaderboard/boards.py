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
    # what the headline is a share of: the result key of that count and its unit ("edited images"), shown next
    # to every headline; and the result key counting answers the parser could not read (count and share shown)
    headline_over: str = "num_samples"
    headline_over_label: str = "samples"
    unparsed: str | None = "unparsed"
    unparsed_over: str = "num_samples"  # the count the unparsed answers are a share of


def coverage(result: dict[str, Any], board: Board) -> dict[str, Any]:
    """What a headline is over: {"over": count, "unit": "edited images", "unparsed": count or None,
    "samples": all samples, "share": unparsed / samples or None}."""
    samples = lookup(result, board.unparsed_over)
    over = lookup(result, board.headline_over)
    unparsed = lookup(result, board.unparsed) if board.unparsed else None
    count = isinstance(samples, int) and not isinstance(samples, bool) and samples > 0
    known = isinstance(unparsed, int) and not isinstance(unparsed, bool)
    return {"over": over if isinstance(over, int) and not isinstance(over, bool) else samples,
            "unit": board.headline_over_label, "samples": samples if count else None,
            "unparsed": unparsed if known else None, "share": unparsed / samples if known and count else None}


def coverage_text(result: dict[str, Any], board: Board) -> str:
    """ "on 75 edited images; 83 of 83 answers unparsed (100.0%)": the words every printed headline carries."""
    c = coverage(result, board)
    text = f"on {c['over']} {c['unit']}"
    if c["unparsed"] is not None and c["samples"]:
        text += f"; {c['unparsed']} of {c['samples']} answers unparsed ({100 * c['share']:.1f}%)"
    return text


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
