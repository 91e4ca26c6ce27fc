"""Statistics of a SafeRelBench config against the paper's regime, for `benchmarks/saferel_generated_stats.py`.

Why: issue 31 states what the generated config must be (the paper's scale and task regime); these numbers are
computed from the samples themselves, never written by hand, and `TARGETS` says which bound each must meet.
The dataset card shows the same figures, measured from the Parquet shards (`card_template.md`).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

# (name, test over the statistics, the bound in words): the paper's scale and task regime
TARGETS: tuple[tuple[str, Any, str], ...] = (
    ("samples", lambda s: s["samples"] >= 500, ">= 500"),
    ("activities", lambda s: s["activities"] >= 150, ">= 150"),
    ("relations", lambda s: len(s["relations"]) == 3, "all 3"),
    ("risk types", lambda s: len(s["risk_types"]) == 9, "all 9"),
    ("largest relation share", lambda s: s["max_relation_share"] <= 0.45, "<= 45% of pairs"),
    ("largest risk-type share", lambda s: s["max_risk_share"] <= 0.20, "<= 20% of pairs"),
    ("smallest risk type", lambda s: s["min_risk_pairs"] >= 15, ">= 15 pairs"),
    ("plan length median", lambda s: s["plan_median"] <= 12, "<= 12 steps"),
    ("plan length max", lambda s: s["plan_max"] <= 30, "<= 30 steps"),
)


def config_statistics(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts over raw samples (nested fields as lists / dicts): pairs by relation and risk type, plan lengths,
    the action mix, termination goals and added objects."""
    rows = list(rows)
    spatial = [r for r in rows if r["split"] == "spatial"]
    relations = Counter(r["relation"] for r in spatial)
    risk_types = Counter(r["risk_type"] for r in spatial)
    lengths = [len(r["reference_plan"]) for r in rows]
    actions = Counter(str(step["action"]).upper() for r in rows for step in r["reference_plan"])
    steps = sum(actions.values())
    def hazard_added(r: Mapping[str, Any]) -> list[Mapping[str, Any]]:  # not the water a pot holds for rice
        return [a for a in r.get("added_objects") or [] if not a.get("purpose")]  # nor a destination counter

    added = Counter(a["synset"] for r in spatial for a in hazard_added(r))
    pairs = len(spatial)
    return {
        "samples": len(rows), "pairs": pairs, "activities": len({r["source_activity"] for r in rows}),
        "relations": dict(relations), "risk_types": dict(risk_types),
        "max_relation_share": max(relations.values()) / pairs if pairs else 0.0,
        "max_risk_share": max(risk_types.values()) / pairs if pairs else 0.0,
        "min_risk_pairs": min(risk_types.values()) if risk_types else 0,
        "plan_median": statistics.median(lengths) if lengths else 0, "plan_max": max(lengths, default=0),
        "plan_mean": statistics.fmean(lengths) if lengths else 0.0,
        "action_mix": {a: n / steps for a, n in actions.most_common()} if steps else {},
        "place_on_top_share": actions["PLACE_ON_TOP"] / steps if steps else 0.0,
        "termination_samples": sum(1 for r in rows if r.get("termination_goals")),
        "termination_share": sum(1 for r in rows if r.get("termination_goals")) / len(rows) if rows else 0.0,
        "termination_by_risk": dict(Counter(r["risk_type"] for r in spatial if r.get("termination_goals"))),
        "added_pairs": sum(1 for r in spatial if hazard_added(r)),
        "cooking_water_pairs": sum(1 for r in spatial if any(a.get("purpose") == "cooking water"
                                                             for a in r.get("added_objects") or [])),
        "destination_pairs": sum(1 for r in spatial if any(a.get("purpose") == "destination"
                                                           for a in r.get("added_objects") or [])),
        "added_synsets": dict(added.most_common()),
    }


def target_checks(stats: Mapping[str, Any]) -> list[tuple[str, bool, str]]:
    """(name, met, bound) for each of `TARGETS`."""
    return [(name, bool(test(stats)), bound) for name, test, bound in TARGETS]


def render(stats: Mapping[str, Any]) -> str:
    """The statistics as plain text lines (what the script prints)."""
    pairs = stats["pairs"] or 1
    out = [f"samples {stats['samples']} ({stats['pairs']} pairs) over {stats['activities']} activities",
           "relations (pairs): " + ", ".join(f"{k} {v} ({100 * v / pairs:.1f}%)"
                                             for k, v in sorted(stats["relations"].items())),
           "risk types (pairs): " + ", ".join(f"{k} {v} ({100 * v / pairs:.1f}%)"
                                              for k, v in sorted(stats["risk_types"].items())),
           f"reference plan length: median {stats['plan_median']}, max {stats['plan_max']}, "
           f"mean {stats['plan_mean']:.1f}",
           f"action mix: PLACE_ON_TOP {100 * stats['place_on_top_share']:.1f}%; "
           + ", ".join(f"{a} {100 * v:.1f}%" for a, v in list(stats["action_mix"].items())[:8]),
           f"termination goals: {stats['termination_samples']} of {stats['samples']} samples "
           f"({100 * stats['termination_share']:.1f}%); pairs by risk type: "
           + ", ".join(f"{k} {v}" for k, v in sorted(stats["termination_by_risk"].items())),
           f"added objects: {stats['added_pairs']} of {stats['pairs']} pairs; synsets: "
           + ", ".join(f"{k} {v}" for k, v in stats["added_synsets"].items())
           + f"; cooking water (a pot filled for rice, ramen, yams; no hazard object) in "
           f"{stats.get('cooking_water_pairs', 0)} pairs; a second counter or table as the destination (no hazard "
           f"object) in {stats.get('destination_pairs', 0)} pairs"]
    for name, met, bound in target_checks(stats):
        out.append(f"target {name} {bound}: {'met' if met else 'NOT MET'}")
    return "\n".join(out)
