"""The text tables `hazardkit score movsafebench` prints (paper-style), from the JSON result."""

from __future__ import annotations

from typing import Any

from eval_kit.movsafebench import spec
from eval_kit.textreport import pct, render


def render_tables(result: dict[str, Any]) -> str:
    """The paper's tables 3, 4 and 5 for one model, plus the confusion matrix, as plain text."""
    return render(lambda console: _draw(console, result), width=200)


def _draw(console, result: dict[str, Any]) -> None:
    from rich.table import Table


    t3 = Table(title="Accuracy by scenario (%, paper table 3)")
    cols3 = [*spec.SCENARIOS, "total"]
    for name in cols3:
        t3.add_column(name.replace("_", " ").capitalize(), justify="right")
    t3.add_row(*[pct(result["by_scenario"].get(s)) for s in spec.SCENARIOS], pct(result["accuracy"]))
    t3.add_row(*[str(result["support"]["by_scenario"].get(s, 0)) for s in spec.SCENARIOS],
               str(result["num_edited"]), style="dim")
    console.print(t3)

    t4 = Table(title="Accuracy by object category (%, paper table 4; edited images)")
    for name in [*spec.CATEGORIES, "norm.", "anom.", "all"]:
        t4.add_column(name, justify="right")
    t4.add_row(*[pct(result["by_category"].get(c)) for c in spec.CATEGORIES],
               pct(result["by_group"].get("normal")), pct(result["by_group"].get("anomalous")),
               pct(result["accuracy"]))
    console.print(t4)

    t5 = Table(title="Accuracy by source benchmark (%, paper table 5; edited images)")
    sources = spec.source_order([*spec.REAL_SOURCE_BENCHMARKS, *result["by_source"]])  # and any other present
    for name in [*(spec.source_display_name(s) for s in sources), "Overall"]:
        t5.add_column(name, justify="right")
    t5.add_row(*[pct(result["by_source"].get(s)) for s in sources], pct(result["accuracy"]))
    console.print(t5)

    cm = result["confusion_matrix"]
    tc = Table(title="Confusion matrix (edited images; rows: truth, columns: prediction)")
    tc.add_column("truth \\ pred")
    for name in cm["predicted"]:
        tc.add_column(name, justify="right")
    for label, row in zip(cm["labels"], cm["matrix"], strict=True):
        tc.add_row(label, *[str(v) for v in row])
    console.print(tc)

    lo_hi = result.get("ci95")
    ci = f"[{pct(lo_hi[0])}, {pct(lo_hi[1])}]" if lo_hi else "-"
    console.print(
        f"Total accuracy {pct(result['accuracy'])}% (95% CI {ci}, {result['ci_method']}); "
        f"{result['num_samples']} samples, {result['num_edited']} edited; "
        f"unparsed {result['unparsed']}, missing {result['missing']}."
    )


