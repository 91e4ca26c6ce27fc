"""How MovSafeBench appears on the leaderboard: headline metric, CI, breakdowns, plots, significance."""

from __future__ import annotations

from eval_kit.leaderboard.boards import Board


def board() -> Board:
    from eval_kit.movsafebench import spec

    return Board(
        benchmark="movsafebench", title="MovSafeBench", headline_label="Total accuracy (edited images)",
        breakdowns=(("by_scenario", "Accuracy by scenario (paper table 3)", spec.SCENARIOS),
                    ("by_category", "Accuracy by object category (paper table 4)", spec.CATEGORIES),
                    ("by_group", "Normal vs anomalous objects", spec.CATEGORY_GROUPS),
                    ("by_source", "Accuracy by source benchmark (paper table 5)", spec.SOURCE_BENCHMARKS)),
        plots=("by_scenario", "by_category"),
        counters=(("unparsed", "Unparsed"), ("missing", "Missing")),
        headline_over="num_edited", headline_over_label="edited images",
        note="Total = accuracy over edited images (no_edit excluded). 95% CI: cluster bootstrap over source "
             "images. Significance: exact McNemar on paired per-sample correctness, Holm-adjusted.",
    )
