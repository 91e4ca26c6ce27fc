"""The MovSafeBench `evaluate` module's inputs, turned into what `compute_scores` takes (see metric/).

Kept out of the module file so it is plain, importable and tested code; the module only declares inputs.
"""

from __future__ import annotations

from typing import Any

from eval_kit.metric_inputs import decode_label, decode_labels
from eval_kit.movsafebench import spec

OPTIONAL = ("scenarios", "categories", "source_benchmarks", "source_ids")


def prediction_label(value: Any) -> str | None:
    """A label, letter, ClassLabel index or raw text to a label; None when there is no readable answer.
    The same rule as `hazardkit score`: a label or letter as is, anything else through the answer parser."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        return decode_label(value, spec.ANSWERS, field="predictions")
    return spec.normalise_prediction(value) or spec.parse_answer(value)


def reference_label(value: Any) -> str:
    name = decode_label(value, spec.ANSWERS, field="references")
    label = spec.normalise_prediction(name)
    if label is None:
        raise ValueError(f"references: {name!r} is not one of {', '.join(spec.ANSWERS)} (or A / B / C)")
    return label


def prepare(columns: dict[str, list[Any] | None]) -> dict[str, list[Any] | None]:
    """Given inputs (None = not given) to label names; optional columns stay None when not given."""
    n = len(columns["references"])
    for name in OPTIONAL:
        if columns.get(name) is not None and len(columns[name]) != n:
            raise ValueError(f"{name} has {len(columns[name])} entries, references has {n}")
    return {
        "predictions": [prediction_label(v) for v in columns["predictions"]],
        "references": [reference_label(v) for v in columns["references"]],
        "scenarios": (decode_labels(columns["scenarios"], spec.SCENARIOS, field="scenarios")
                      if columns.get("scenarios") is not None else None),
        "categories": (decode_labels(columns["categories"], spec.CATEGORIES, field="categories", allow_none=True)
                       if columns.get("categories") is not None else None),
        # names as given (an open set); integers are the ClassLabel of releases before sources were open
        "source_benchmarks": (decode_labels(columns["source_benchmarks"], spec.SOURCE_BENCHMARKS,
                                            field="source_benchmarks")
                              if columns.get("source_benchmarks") is not None else None),
        "source_ids": [str(v) for v in columns["source_ids"]] if columns.get("source_ids") is not None else None,
    }


def to_stored(prepared: dict[str, list[Any] | None], inputs: dict[str, Any] | None = None) -> dict[str, list[str]]:
    """As evaluate's string columns: "" for no answer, no category, or an input that was not given."""
    n = len(prepared["references"])
    return {name: [v or "" for v in values] if values is not None else [""] * n
            for name, values in prepared.items()}


def from_stored(columns: dict[str, list[str]]) -> dict[str, list[Any] | None]:
    out: dict[str, list[Any] | None] = {}
    for name, values in columns.items():
        if name in OPTIONAL and values and all(v == "" for v in values):
            out[name] = None
        else:
            out[name] = [v or None for v in values]
    return out


def score(predictions, references, scenarios=None, categories=None, source_benchmarks=None, source_ids=None,
          n_bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    from eval_kit.movsafebench.scoring import compute_scores

    if scenarios is not None and categories is not None:
        # the CLI's rule: a no_edit row has no category, whatever the column holds
        categories = [None if s == "no_edit" else c for s, c in zip(scenarios, categories, strict=True)]
    return compute_scores(references, predictions, scenarios, categories, source_benchmarks, source_ids,
                          n_bootstrap=n_bootstrap, seed=seed)
