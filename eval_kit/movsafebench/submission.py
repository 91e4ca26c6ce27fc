"""Reading a movsafebench submission and its references, and scoring them: the library behind `hazardkit score`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.movsafebench import spec

REFERENCE_COLUMNS = ("id", "answer", "scenario", "category", "source_benchmark")


def load_references(path: Path, config: str | None) -> dict[str, dict[str, Any]]:
    from eval_kit.tables import read_reference_rows, validate_rows

    rows = read_reference_rows(path, REFERENCE_COLUMNS, config=config, optional=("source_id", "editor"))
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
    from eval_kit.movsafebench.scoring import compute_scores
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
    # the editors that made the edited images scored (the leaderboard shows them: a compositor config's
    # objects are synthetic sprites, whatever the config is called)
    result["dataset_editors"] = sorted({str(r["editor"]) for r in rows
                                        if r["scenario"] != "no_edit" and r.get("editor")})
    result["missing"] = len(missing)
    result["unparsed"] = result["unparsed"] - len(missing)  # missing rows are counted once, as missing
    result["references"] = str(references)
    result["predictions"] = str(predictions)
    return result


