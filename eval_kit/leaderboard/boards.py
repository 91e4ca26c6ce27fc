"""How each benchmark appears on the leaderboard: headline metric, CI, breakdowns, plots, significance.

The integrator adds BD-HazardVLM and SafeRelBench with one `BOARDS[...] = Board(...)` line each; an
unknown benchmark still renders with a generic board (headline `accuracy`, every `by_*` breakdown).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Board:
    benchmark: str
    title: str
    headline: str = "accuracy"  # result key of the ranking metric (a fraction)
    headline_label: str = "Accuracy"
    ci: str = "ci95"  # result key of [low, high]
    # (result key, section title, preferred column order) of each breakdown table
    breakdowns: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    plots: tuple[str, ...] = ()  # breakdown keys drawn as grouped bar charts
    counters: tuple[tuple[str, str], ...] = ()  # (result key, column title) of integer columns
    note: str = ""
    extra: dict = field(default_factory=dict)


def _movsafebench() -> Board:
    from eval_kit.benchmarks import movsafebench as spec

    return Board(
        benchmark="movsafebench", title="MovSafeBench", headline_label="Total accuracy (edited images)",
        breakdowns=(("by_scenario", "Accuracy by scenario (paper table 3)", spec.SCENARIOS),
                    ("by_category", "Accuracy by object category (paper table 4)", spec.CATEGORIES),
                    ("by_group", "Normal vs anomalous objects", spec.CATEGORY_GROUPS),
                    ("by_source", "Accuracy by source benchmark (paper table 5)", spec.SOURCE_BENCHMARKS)),
        plots=("by_scenario", "by_category"),
        counters=(("unparsed", "Unparsed"), ("missing", "Missing")),
        note="Total = accuracy over edited images (no_edit excluded). 95% CI: cluster bootstrap over source "
             "images. Significance: exact McNemar on paired per-sample correctness, Holm-adjusted.",
    )


BOARDS: dict[str, Board] = {"movsafebench": _movsafebench()}


def board_for(benchmark: str) -> Board:
    return BOARDS.get(benchmark) or Board(benchmark=benchmark, title=benchmark)
