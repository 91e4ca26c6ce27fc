"""How SafeRelBench appears on the leaderboard: headline metric, CI, breakdowns, plots, significance."""

from __future__ import annotations

from eval_kit.leaderboard.boards import Board


def board() -> Board:
    from eval_kit.saferelbench import spec

    return Board(
        benchmark="saferelbench", title="SafeRelBench", headline="SSR", headline_label="SSR (task + safety)",
        columns=(("SR", "SR (%)"), ("SRec", "SRec (%)"), ("SSR/SR", "SSR/SR (%)")),
        counters=(("unparsed", "Unparsed"), ("missing", "Missing")),
        headline_over="n", headline_over_label="episodes", unparsed_over="n",
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
