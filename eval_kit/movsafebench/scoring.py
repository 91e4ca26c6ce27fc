"""MovSafeBench scores as in the paper: tables 3 (scenario), 4 (category, normal/anomalous), 5 (source).

"Total" / `accuracy` is the accuracy over edited images only: `no_edit` rows are reported in
`by_scenario["no_edit"]` and excluded from every other breakdown, as in the paper. A missing or
unparsable prediction is scored wrong and counted in `unparsed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from eval_kit.movsafebench import spec
from eval_kit.scoring.bootstrap import cluster_bootstrap_ci

_ANSWER_CODE = {a: i for i, a in enumerate(spec.ANSWERS)}
_UNPARSED = len(spec.ANSWERS)  # confusion-matrix column for "no answer"


ARROW_ENCODE_FROM = 100_000  # values; below this a dict encodes faster than importing what pyarrow needs


def _dictionary(values: Sequence[Any]) -> tuple[np.ndarray, list]:
    """(codes, distinct values in first-seen order); None becomes code -1.

    Large inputs go through Arrow's C dictionary encoder. Its first use imports pandas (pyarrow checks every
    input for a pandas object), about half a second: more than a whole 7,254-row submission takes to score,
    so small inputs are encoded with a dict instead (the same codes, the same order: tested)."""
    if len(values) < ARROW_ENCODE_FROM:
        index: dict[Any, int] = {}
        codes = np.fromiter((-1 if v is None else index.setdefault(v, len(index)) for v in values),
                            dtype=np.int64, count=len(values))
        distinct = list(index)
        wrong = next((v for v in distinct if not isinstance(v, str)), None)
        if wrong is not None:
            raise TypeError(f"expected strings, got {type(wrong).__name__} {wrong!r}")
        return codes, distinct
    import pyarrow as pa

    encoded = pa.array(values, type=pa.string()).dictionary_encode()
    indices = encoded.indices
    if indices.null_count:
        indices = indices.fill_null(-1)
    return indices.to_numpy().astype(np.int64), encoded.dictionary.to_pylist()


def _codes(values: Sequence[Any], space: Sequence[str], name: str, *, allow_none: bool = False) -> np.ndarray:
    """Map labels to their index in `space` (-1 for None when allowed); unknown labels raise ValueError."""
    try:
        codes, distinct = _dictionary(values)
    except (TypeError, ValueError) as exc:  # pyarrow: non-string values
        raise ValueError(f"{name} must be strings ({exc})") from None
    lut = {label: i for i, label in enumerate(space)}
    unknown = [v for v in distinct if v not in lut]
    if unknown:
        raise ValueError(f"unknown {name} {unknown[0]!r}; expected one of {', '.join(space)}")
    if not allow_none and (codes < 0).any():
        raise ValueError(f"{name} has missing values")
    mapping = np.array([lut[v] for v in distinct] + [-1], dtype=np.int16)
    return mapping[codes]  # code -1 picks the trailing -1


def _source_space(values: Sequence[Any]) -> tuple[str, ...]:
    """The source benchmarks present, in report order (paper sources first). Sources are an open set of
    identifiers (`spec.SOURCE_BENCHMARK_PATTERN`); anything else is a ValueError naming it."""
    try:
        _, distinct = _dictionary(values)
    except (TypeError, ValueError) as exc:  # pyarrow: non-string values
        raise ValueError(f"source_benchmark must be strings ({exc})") from None
    bad = [v for v in distinct if v is not None and not spec.is_source_benchmark(v)]
    if bad:
        raise ValueError(f"source_benchmark {bad[0]!r} is not a source identifier "
                         f"(lower-case letters, digits and _, 2-40 characters, starting with a letter)")
    return spec.source_order(distinct)


def _grouped_accuracy(correct: np.ndarray, codes: np.ndarray, space: Sequence[str]) -> tuple[dict, dict]:
    """Accuracy and support per label of `space`, only for labels that occur."""
    valid = codes >= 0
    support = np.bincount(codes[valid], minlength=len(space))
    hits = np.bincount(codes[valid], weights=correct[valid], minlength=len(space))
    acc = {space[i]: float(hits[i] / support[i]) for i in range(len(space)) if support[i] > 0}
    n = {space[i]: int(support[i]) for i in range(len(space)) if support[i] > 0}
    return acc, n


def compute_scores(
    answers: Sequence[str],
    predictions: Sequence[str | None],
    scenarios: Sequence[str] | None,
    categories: Sequence[str | None] | None,
    source_benchmarks: Sequence[str] | None,
    source_ids: Sequence[str] | None = None,
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Score aligned arrays (one entry per sample). Labels must be in the MovSafeBench spaces.

    `source_ids` identify the source image of each row; the confidence interval resamples them (edited
    variants of one image are correlated). Without them every row is its own cluster.
    `scenarios`, `categories` and `source_benchmarks` may be None (the `evaluate` module's minimal call):
    without scenarios every row counts as edited and `by_scenario` is empty; without categories `by_category`
    and `by_group` are empty; without sources `by_source` is.
    """
    n = len(answers)
    for name, seq in (("predictions", predictions), ("scenarios", scenarios), ("categories", categories),
                      ("source_benchmarks", source_benchmarks)):
        if seq is not None and len(seq) != n:
            raise ValueError(f"{name} has {len(seq)} entries, answers has {n}")
    if source_ids is not None and len(source_ids) != n:
        raise ValueError(f"source_ids has {len(source_ids)} entries, answers has {n}")

    truth = _codes(answers, spec.ANSWERS, "answer")
    pred = _codes(predictions, spec.ANSWERS, "prediction", allow_none=True)
    scen = _codes(scenarios, spec.SCENARIOS, "scenario") if scenarios is not None else None
    cat = _codes(categories, spec.CATEGORIES, "category", allow_none=True) if categories is not None else None
    src_space = _source_space(source_benchmarks) if source_benchmarks is not None else ()
    src = (_codes(source_benchmarks, src_space, "source_benchmark") if source_benchmarks is not None
           else np.zeros(n, dtype=np.int16))

    correct = (pred == truth).astype(np.float64)
    edited = scen != spec.SCENARIOS.index("no_edit") if scen is not None else np.ones(n, dtype=bool)
    if scen is not None and cat is not None:
        missing_category = edited & (cat < 0)
        if missing_category.any():
            raise ValueError(f"{int(missing_category.sum())} edited rows have no category")

    c_e = correct[edited]
    by_scenario, n_scenario = _grouped_accuracy(correct, scen, spec.SCENARIOS) if scen is not None else ({}, {})
    by_category, n_category, by_group, n_group = {}, {}, {}, {}
    if cat is not None:
        by_category, n_category = _grouped_accuracy(c_e, cat[edited], spec.CATEGORIES)
        group_code = np.where(cat[edited] >= 0, np.isin(cat[edited], [spec.CATEGORIES.index(c)
                                                                    for c in spec.ANOMALOUS_CATEGORIES]), -1)
        by_group, n_group = _grouped_accuracy(c_e, group_code.astype(np.int16), spec.CATEGORY_GROUPS)
    by_source, n_source = (_grouped_accuracy(c_e, src[edited], src_space)
                           if source_benchmarks is not None else ({}, {}))

    pred_col = np.where(pred < 0, _UNPARSED, pred)
    cm = np.bincount(truth[edited] * (_UNPARSED + 1) + pred_col[edited], minlength=3 * (_UNPARSED + 1))
    cm = cm.reshape(3, _UNPARSED + 1)

    if source_ids is None:
        clusters = np.arange(n)[edited]
    else:
        # a source image is identified by its benchmark and id together
        id_codes, distinct_ids = _dictionary(source_ids)
        if (id_codes < 0).any():
            raise ValueError("source_ids has missing values")
        clusters = (src.astype(np.int64) * (len(distinct_ids) + 1) + id_codes)[edited]
    ci = cluster_bootstrap_ci(c_e, clusters, n_resamples=n_bootstrap, confidence=0.95, seed=seed)

    num_edited = int(edited.sum())
    return {
        "benchmark": spec.NAME,
        "num_samples": n,
        "num_edited": num_edited,
        "accuracy": float(c_e.mean()) if num_edited else None,
        "by_scenario": by_scenario,
        "by_category": by_category,
        "by_group": by_group,
        "by_source": by_source,
        "support": {"by_scenario": n_scenario, "by_category": n_category, "by_group": n_group,
                    "by_source": n_source},
        "unparsed": int((pred < 0).sum()),
        "confusion_matrix": {
            "labels": list(spec.ANSWERS),
            "predicted": [*spec.ANSWERS, "unparsed"],
            "matrix": cm.tolist(),
            "note": "rows: true answer, columns: prediction; edited images only",
        },
        "ci95": list(ci) if ci else None,
        "ci_method": f"percentile cluster bootstrap over source images, {n_bootstrap} resamples, seed {seed}",
    }
