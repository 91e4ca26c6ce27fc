"""The text tables `hazardkit score bd-hazardvlm` prints (paper-style), from the JSON result."""

from __future__ import annotations

from typing import Any

from eval_kit.textreport import pct, render


def render_tables(result: dict[str, Any]) -> str:
    """The paper's tables 4 (core diagnostics) and 5 (traps) for one model, plus prediction distributions."""
    return render(lambda console: _draw(console, result), width=200)


def _draw(console, result: dict[str, Any]) -> None:
    from rich.table import Table

    t4 = Table(title=f"Core diagnostics (%, paper table 4; {result['num_samples']} images)")
    cols = [("Hazard acc.", result["hazard_presence"]["accuracy"]),
            ("Majority baseline", result["hazard_presence"]["majority_baseline"]),
            ("Category acc.", result["category"]["accuracy"]), ("Category macro-F1", result["category"]["macro_f1"]),
            ("Timing acc.", result["timing"]["accuracy"]), ("Severity acc.", result["severity"]["accuracy"]),
            ("High-sev. recall", result["severity"]["high_recall"]),
            ("Action exact", result["actions"]["exact_match"]), ("Action overlap", result["actions"]["any_overlap"]),
            ("Action Jaccard", result["actions"]["mean_jaccard"])]
    for name, _ in cols:
        t4.add_column(name, justify="right")
    t4.add_row(*[pct(v) for _, v in cols])
    console.print(t4)

    t5 = Table(title="Trap self-reports (%, paper table 5)")
    for name in ("trap", "human positive rate", "flag rate", "recall", "flags", "true-positive flags"):
        t5.add_column(name, justify="right")
    for trap in ("hallucination_trap", "western_bias_trap"):
        r = result[trap]
        t5.add_row(trap, pct(r["reference_rate"]), pct(r["flag_rate"]), pct(r["recall"]), str(r["flags"]),
                   str(r["true_positive_flags"]))
    console.print(t5)

    for task in ("category", "timing", "severity"):
        dist = Table(title=f"{task}: reference vs predicted counts (collapse check)")
        labels = list(result[task]["prediction_distribution"])
        dist.add_column("")
        for label in labels:
            dist.add_column(label, justify="right")
        dist.add_row("reference", *[str(result[task]["reference_distribution"].get(x, 0)) for x in labels])
        dist.add_row("predicted", *[str(result[task]["prediction_distribution"][x]) for x in labels])
        console.print(dist)
    s = result["schema"]
    console.print(f"schema-valid: {pct(s['valid_rate'])}% (initial {pct(s['initial_valid_rate'])}%), "
                  f"retries: {s['retry_count']} ({s['retried_then_valid']} valid after retry), "
                  f"missing: {result['missing']}")


