"""How BD-HazardVLM appears on the leaderboard: headline metric, CI, breakdowns, plots, significance."""

from __future__ import annotations

from eval_kit.leaderboard.boards import Board


def board() -> Board:
    from eval_kit.bd_hazardvlm import spec

    return Board(
        benchmark="bd_hazardvlm", title="BD-HazardVLM", headline="category.accuracy",
        headline_label="Category accuracy",
        columns=(("category.macro_f1", "Category macro-F1 (%)"), ("timing.accuracy", "Timing acc. (%)"),
                 ("severity.accuracy", "Severity acc. (%)"), ("severity.high_recall", "High-severity recall (%)"),
                 ("hazard_presence.accuracy", "Hazard acc. (%)"), ("actions.mean_jaccard", "Action Jaccard (%)"),
                 ("hallucination_trap.recall", "Hallucination-trap recall (%)"),
                 ("western_bias_trap.recall", "Western-bias-trap recall (%)"),
                 ("schema.valid_rate", "Schema-valid (%)")),
        counters=(("unparsed", "Unparsed"), ("schema.retry_count", "Format retries")),
        headline_over_label="images",
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
