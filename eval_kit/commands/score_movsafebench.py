"""`hazardkit score movsafebench`: validate a submission, parse raw responses, print paper-style tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from eval_kit.benchmarks import movsafebench as spec
from eval_kit.errors import BadInput
from eval_kit.textreport import pct, render

REFERENCE_COLUMNS = ("id", "answer", "scenario", "category", "source_benchmark")


def load_references(path: Path, config: str | None) -> dict[str, dict[str, Any]]:
    from eval_kit.tables import read_reference_rows, validate_rows

    rows = read_reference_rows(path, REFERENCE_COLUMNS, config=config, optional=("source_id",))
    return validate_rows(rows, "movsafebench_reference", path)


def resolve_predictions(
    predictions: dict[str, tuple[int, dict[str, Any]]], path: Path
) -> tuple[dict[str, str | None], int]:
    """id -> label (None when the raw response is unparsable); the `prediction` field wins over `response`.

    An explicit `prediction` outside the label space is bad input (the submitter controls it); a raw
    `response` that the parser cannot read is a model failure, scored wrong and counted as unparsed.
    """
    labels: dict[str, str | None] = {}
    unparsed = 0
    for sample_id, (number, obj) in predictions.items():
        value = obj.get("prediction")
        if value is not None:
            label = spec.normalise_prediction(value)
            if label is None:
                raise BadInput(
                    f"{value!r} is not a MovSafeBench answer",
                    path=path, line=number, field="prediction",
                    fix="use left / straight / right or A / B / C, or put raw text in 'response'",
                )
        else:
            label = spec.parse_answer(obj.get("response"))
            unparsed += label is None
        labels[sample_id] = label
    return labels, unparsed


def score_files(
    references: Path, predictions: Path, *, config: str | None = None, allow_missing: bool = False,
    n_bootstrap: int = 1000, seed: int = 0,
) -> dict[str, Any]:
    """Everything `hazardkit score movsafebench` does short of printing; returns the JSON result."""
    from eval_kit.scoring.movsafebench import compute_scores
    from eval_kit.tables import check_coverage, read_predictions

    refs = load_references(references, config)
    preds = read_predictions(predictions, "movsafebench_prediction")
    labels, _ = resolve_predictions(preds, predictions)
    missing = check_coverage(preds, refs, predictions, allow_missing=allow_missing)
    ids = list(refs)
    rows = [refs[i] for i in ids]
    result = compute_scores(
        [r["answer"] for r in rows],
        [labels.get(i) for i in ids],
        [r["scenario"] for r in rows],
        [r["category"] if r["scenario"] != "no_edit" else None for r in rows],
        [r["source_benchmark"] for r in rows],
        [r.get("source_id") or r["id"] for r in rows],
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    result["missing"] = len(missing)
    result["unparsed"] = result["unparsed"] - len(missing)  # missing rows are counted once, as missing
    result["references"] = str(references)
    result["predictions"] = str(predictions)
    return result


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
    sources = [s for s in spec.SOURCE_BENCHMARKS if s in spec.REAL_SOURCE_BENCHMARKS or s in result["by_source"]]
    for name in [*(spec.PAPER_SOURCE_NAMES[s] for s in sources), "Overall"]:
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


@click.command()
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path),
              help="Reference rows: Parquet file, JSON Lines file, or a dataset folder (data/<config>/*.parquet) "
                   "with at least id, answer, scenario, category, source_benchmark (source_id for the CI).")
@click.option("--predictions", "-p", required=True, type=click.Path(path_type=Path),
              help="JSON Lines, one object per sample: {\"id\", \"prediction\": left|straight|right|A|B|C} "
                   "and/or {\"id\", \"response\": raw model text}.")
@click.option("--config", default=None, help="Dataset config when --references is a dataset folder.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (fractions in [0, 1]).")
@click.option("--allow-missing", is_flag=True,
              help="Score reference ids without a prediction as wrong instead of refusing the file.")
@click.option("--bootstrap", "n_bootstrap", default=1000, show_default=True, type=click.IntRange(100, 100000),
              help="Bootstrap resamples for the 95% confidence interval.")
@click.option("--seed", default=0, show_default=True, help="Seed of the bootstrap (results are reproducible).")
def score_movsafebench(references: Path, predictions: Path, config: str | None, as_json: bool,
                       allow_missing: bool, n_bootstrap: int, seed: int) -> None:
    """Score MovSafeBench predictions as in the paper (tables 3, 4 and 5).

    `accuracy` ("Total" in the paper) is over edited images only; no_edit is reported by scenario.
    Unparsable responses are scored wrong and counted in `unparsed`. The 95% CI is a cluster
    bootstrap over source images.
    """
    result = score_files(references, predictions, config=config, allow_missing=allow_missing,
                         n_bootstrap=n_bootstrap, seed=seed)
    if as_json:
        click.echo(json.dumps(result, sort_keys=False))
    else:
        click.echo(render_tables(result), nl=False)
