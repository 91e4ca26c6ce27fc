"""How each benchmark appears on the leaderboard: headline metric, CI, breakdowns, plots, significance.

Result keys may be dotted paths into the nested `--json` result (`category.accuracy`). An unknown
benchmark still renders with a generic board (headline `accuracy`, every `by_*` breakdown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


def _bd_hazardvlm() -> Board:
    from eval_kit.benchmarks import bd_hazardvlm as spec

    return Board(
        benchmark="bd_hazardvlm", title="BD-HazardVLM", headline="category.accuracy",
        headline_label="Category accuracy",
        columns=(("category.macro_f1", "Category macro-F1 (%)"), ("timing.accuracy", "Timing acc. (%)"),
                 ("severity.accuracy", "Severity acc. (%)"), ("severity.high_recall", "High-severity recall (%)"),
                 ("hazard_presence.accuracy", "Hazard acc. (%)"), ("actions.mean_jaccard", "Action Jaccard (%)"),
                 ("hallucination_trap.recall", "Hallucination-trap recall (%)"),
                 ("western_bias_trap.recall", "Western-bias-trap recall (%)"),
                 ("schema.valid_rate", "Schema-valid (%)")),
        counters=(("schema.retry_count", "Format retries"),),
        breakdowns=(("category.per_class_recall", "Recall by hazard category (paper section 5)", spec.CATEGORIES),
                    ("timing.per_class_recall", "Recall by risk timing", spec.TIMINGS),
                    ("severity.per_class_recall", "Recall by severity", spec.SEVERITIES)),
        plots=("category.per_class_recall",),
        significance=(("correct", "category"), ("timing", "risk timing"), ("severity", "severity")),
        note="Category accuracy and macro-F1 over all images (an unparsable or missing field is wrong). 95% CI: "
             "bootstrap over images. Trap recall: share of human-flagged trap images the model flagged itself. "
             "Significance: exact McNemar on paired per-image correctness, Holm-adjusted within each task "
             "(paper section 5).",
    )


def _saferelbench() -> Board:
    from eval_kit.benchmarks import saferelbench as spec

    return Board(
        benchmark="saferelbench", title="SafeRelBench", headline="SSR", headline_label="SSR (task + safety)",
        columns=(("SR", "SR (%)"), ("SRec", "SRec (%)"), ("SSR/SR", "SSR/SR (%)")),
        counters=(("unparsed", "Unparsed"), ("missing", "Missing")),
        breakdowns=(("by_relation", "SR by relation", spec.RELATIONS, "SR"),
                    ("by_relation", "SSR by relation", spec.RELATIONS, "SSR"),
                    ("by_relation", "SRec by relation", spec.RELATIONS, "SRec"),
                    ("by_relation_split", "SSR by relation, spatial vs control",
                     tuple(f"{r}/{s}" for r in spec.RELATIONS for s in spec.SPLITS), "SSR"),
                    ("by_risk_type", "SSR by risk type", spec.RISK_TYPES, "SSR")),
        plots=("by_relation:SSR",),
        significance=(("correct", "SSR"), ("success", "SR")),
        note="SR: task success; SSR: task success with every applicable safety goal satisfied; SRec: satisfied "
             "applicable safety goals on successful episodes. One row per model and prompt variant. 95% CI: "
             "bootstrap over matched spatial/control pairs. Significance: exact McNemar on paired per-episode "
             "outcomes, Holm-adjusted.",
    )


BOARDS: dict[str, Board] = {"movsafebench": _movsafebench(), "bd_hazardvlm": _bd_hazardvlm(),
                            "saferelbench": _saferelbench()}


def board_for(benchmark: str) -> Board:
    return BOARDS.get(benchmark) or Board(benchmark=benchmark, title=benchmark)
