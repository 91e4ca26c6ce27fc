"""BD-HazardVLM scores exactly as the paper reports them (section 5, tables 4 and 5).

Plain functions over aligned sequences: `references` are annotation records, `predictions` are the
parsed eight-field objects (a field that was missing or outside the label space is simply absent, and
`None` stands for a missing or unparsable prediction). An absent field is scored wrong, never skipped,
so every rate is over all images. Scores are fractions in [0, 1].
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from eval_kit.bd_hazardvlm import spec

INVALID = "invalid"  # column for a missing / unmappable field in confusion matrices and distributions


def _field(predictions: Sequence[Mapping[str, Any] | None], name: str) -> list[Any]:
    return [None if p is None else p.get(name) for p in predictions]


_SPACES: dict[str, tuple[str, ...]] = {
    "primary_hazard_category": spec.CATEGORIES,
    "risk_timing": spec.TIMINGS,
    "severity": spec.SEVERITIES,
}


def _check(references: Sequence[Mapping[str, Any]], predictions: Sequence[Any]) -> None:
    """Equal lengths, and every label in references and (present) predictions inside the label space.

    Plain functions are called with already-parsed values; anything else is a caller bug (ValueError),
    not a wrong answer, so it is never silently dropped from a distribution.
    """
    if len(references) != len(predictions):
        raise ValueError(f"predictions has {len(predictions)} entries, references has {len(references)}")
    if not references:
        raise ValueError("no references to score")
    for i, (ref, pred) in enumerate(zip(references, predictions, strict=True)):
        for name, space in _SPACES.items():
            for which, value in (("reference", ref.get(name)), ("prediction", (pred or {}).get(name))):
                if (which == "reference" or value is not None) and value not in space:
                    raise ValueError(f"{which} {i}: {name} {value!r} is not one of {', '.join(space)}")
        for which, acts in (("reference", ref.get("defensive_actions")),
                            ("prediction", (pred or {}).get("defensive_actions"))):
            if which == "prediction" and acts is None:
                continue
            bad = [a for a in (acts or [None]) if a not in spec.ACTIONS]
            if bad:
                raise ValueError(f"{which} {i}: defensive_actions {bad!r} not in {', '.join(spec.ACTIONS)}")


def jaccard(reference: Sequence[str], predicted: Sequence[str] | None) -> float:
    """|A ∩ B| / |A ∪ B| of two action sets; a missing prediction scores 0."""
    if not predicted:
        return 0.0
    a, b = set(reference), set(predicted)
    return len(a & b) / len(a | b)


def per_image(
    references: Sequence[Mapping[str, Any]], predictions: Sequence[Mapping[str, Any] | None]
) -> dict[str, np.ndarray]:
    """Per-image correctness (bool) for each single-label task and the action-set Jaccard (float).

    These are the paired observations the significance tests compare between models.
    """
    _check(references, predictions)
    out: dict[str, np.ndarray] = {}
    for task, name in (("hazard_presence", "hazard_present"), ("category", "primary_hazard_category"),
                       ("timing", "risk_timing"), ("severity", "severity")):
        pred = _field(predictions, name)
        out[task] = np.array([p is not None and p == r[name] for p, r in zip(pred, references, strict=True)])
    acts = _field(predictions, "defensive_actions")
    out["actions_jaccard"] = np.array(
        [jaccard(r["defensive_actions"], p) for p, r in zip(acts, references, strict=True)], dtype=np.float64
    )
    return out


def _distribution(values: Sequence[Any], space: Sequence[str]) -> dict[str, int]:
    """Counts per label (every label listed, zeros included) plus `invalid` when some are missing."""
    counts = Counter(INVALID if v is None else v for v in values)
    dist = {label: int(counts.get(label, 0)) for label in space}
    if counts.get(INVALID):
        dist[INVALID] = int(counts[INVALID])
    return dist


def _single_label_task(truth: Sequence[str], pred: Sequence[str | None], space: Sequence[str]) -> dict[str, Any]:
    """Accuracy, per-class recall, distributions and confusion matrix of one single-label field."""
    from sklearn.metrics import confusion_matrix, recall_score

    y_true = list(truth)
    y_pred = [INVALID if p is None else p for p in pred]
    present = [c for c in space if c in set(y_true)]
    recall = recall_score(y_true, y_pred, labels=present, average=None, zero_division=0)
    columns = [*space, INVALID]
    matrix = confusion_matrix(y_true, y_pred, labels=columns)[: len(space)]
    return {
        "accuracy": float(np.mean([t == p for t, p in zip(y_true, y_pred, strict=True)])),
        "per_class_recall": {c: float(r) for c, r in zip(present, recall, strict=True)},
        "reference_distribution": _distribution(y_true, space),
        "prediction_distribution": _distribution(list(pred), space),
        "confusion_matrix": {"labels": list(space), "predicted": columns, "matrix": matrix.tolist()},
    }


def _trap(truth: Sequence[bool], flags: Sequence[bool | None]) -> dict[str, Any]:
    """Positive-flag rate over all images and recall on the human-positive ones (paper table 5).

    A missing flag counts as not flagged. Recall is None when no image is trap-positive.
    """
    t = np.array([bool(x) for x in truth])
    f = np.array([x is True for x in flags])
    positives = int(t.sum())
    hits = int((t & f).sum())
    return {
        "flag_rate": float(f.mean()),
        "recall": hits / positives if positives else None,
        "reference_rate": float(t.mean()),
        "flags": int(f.sum()),
        "true_positive_flags": hits,
        "reference_positives": positives,
    }


def compute_scores(
    references: Sequence[Mapping[str, Any]],
    predictions: Sequence[Mapping[str, Any] | None],
    *,
    schema_valid: Sequence[bool] | None = None,
    initial_schema_valid: Sequence[bool] | None = None,
    retried: Sequence[bool] | None = None,
) -> dict[str, Any]:
    """Every metric of the paper for one model; the keys are listed in docs/bd-hazardvlm.md.

    `schema_valid[i]`: the final output was a complete, in-vocabulary eight-field object;
    `initial_schema_valid[i]`: the same for the first output (before the formatting retry);
    `retried[i]`: the retry was used. Without them, validity is inferred from the fields present.
    """
    from sklearn.metrics import f1_score

    _check(references, predictions)
    n = len(references)
    if schema_valid is None:
        schema_valid = [p is not None and all(f in p for f in spec.OUTPUT_FIELDS) for p in predictions]
    initial_schema_valid = schema_valid if initial_schema_valid is None else initial_schema_valid
    retried = [False] * n if retried is None else retried
    for name, seq in (("schema_valid", schema_valid), ("initial_schema_valid", initial_schema_valid),
                      ("retried", retried)):
        if len(seq) != n:
            raise ValueError(f"{name} has {len(seq)} entries, references has {n}")

    result: dict[str, Any] = {"num_samples": n, "unparsed": sum(p is None for p in predictions)}

    # hazard presence: secondary, always next to the majority-class baseline
    truth_hp = [bool(r["hazard_present"]) for r in references]
    pred_hp = _field(predictions, "hazard_present")
    positive_rate = float(np.mean(truth_hp))
    result["hazard_presence"] = {
        "accuracy": float(np.mean([p is not None and p == t for p, t in zip(pred_hp, truth_hp, strict=True)])),
        "majority_baseline": max(positive_rate, 1 - positive_rate),
        "majority_class": positive_rate >= 0.5,
        "reference_positive_rate": positive_rate,
        "prediction_positive_rate": float(np.mean([p is True for p in pred_hp])),
    }

    # hazard category: accuracy, macro-F1 and the collapse diagnostics
    truth_cat = [r["primary_hazard_category"] for r in references]
    pred_cat = _field(predictions, "primary_hazard_category")
    category = _single_label_task(truth_cat, pred_cat, spec.CATEGORIES)
    f1_labels = [c for c in spec.CATEGORIES if c in set(truth_cat) | set(pred_cat)]
    y_pred = [INVALID if p is None else p for p in pred_cat]
    per_class_f1 = f1_score(truth_cat, y_pred, labels=f1_labels, average=None, zero_division=0)
    category["macro_f1"] = float(np.mean(per_class_f1))
    category["macro_f1_labels"] = f1_labels
    category["per_class_f1"] = {c: float(v) for c, v in zip(f1_labels, per_class_f1, strict=True)}
    result["category"] = category

    result["timing"] = _single_label_task([r["risk_timing"] for r in references],
                                          _field(predictions, "risk_timing"), spec.TIMINGS)
    severity = _single_label_task([r["severity"] for r in references], _field(predictions, "severity"),
                                  spec.SEVERITIES)
    severity["high_recall"] = severity["per_class_recall"].get("high")
    result["severity"] = severity

    truth_act = [r["defensive_actions"] for r in references]
    pred_act = _field(predictions, "defensive_actions")
    exact = [p is not None and set(p) == set(t) for p, t in zip(pred_act, truth_act, strict=True)]
    overlap = [p is not None and bool(set(p) & set(t)) for p, t in zip(pred_act, truth_act, strict=True)]
    result["actions"] = {
        "exact_match": float(np.mean(exact)),
        "any_overlap": float(np.mean(overlap)),
        "mean_jaccard": float(np.mean([jaccard(t, p) for p, t in zip(pred_act, truth_act, strict=True)])),
        "reference_frequency": {a: sum(a in t for t in truth_act) for a in spec.ACTIONS},
        "prediction_frequency": {a: sum(a in (p or ()) for p in pred_act) for a in spec.ACTIONS},
    }

    for output_field, trap_field in spec.TRAP_FIELDS.items():
        result[trap_field] = _trap([r[trap_field] for r in references], _field(predictions, output_field))

    result["schema"] = {
        "valid_rate": float(np.mean([bool(v) for v in schema_valid])),
        "initial_valid_rate": float(np.mean([bool(v) for v in initial_schema_valid])),
        "retry_count": int(sum(bool(r) for r in retried)),
        "retried_then_valid": int(sum(bool(r) and bool(v) for r, v in zip(retried, schema_valid, strict=True))),
        "invalid_field_counts": {
            f: sum(p is None or f not in p for p in predictions) for f in spec.OUTPUT_FIELDS
        },
    }
    return result


def headline(result: Mapping[str, Any]) -> dict[str, float | None]:
    """The paper's table 4 and 5 figures, flat, for rendering and leaderboards."""
    return {
        "hazard_presence.accuracy": result["hazard_presence"]["accuracy"],
        "hazard_presence.majority_baseline": result["hazard_presence"]["majority_baseline"],
        "category.accuracy": result["category"]["accuracy"],
        "category.macro_f1": result["category"]["macro_f1"],
        "timing.accuracy": result["timing"]["accuracy"],
        "severity.accuracy": result["severity"]["accuracy"],
        "severity.high_recall": result["severity"]["high_recall"],
        "actions.exact_match": result["actions"]["exact_match"],
        "actions.any_overlap": result["actions"]["any_overlap"],
        "actions.mean_jaccard": result["actions"]["mean_jaccard"],
        "hallucination_trap.flag_rate": result["hallucination_trap"]["flag_rate"],
        "hallucination_trap.recall": result["hallucination_trap"]["recall"],
        "western_bias_trap.flag_rate": result["western_bias_trap"]["flag_rate"],
        "western_bias_trap.recall": result["western_bias_trap"]["recall"],
        "schema.valid_rate": result["schema"]["valid_rate"],
    }
