"""The `evaluate` module gives the same numbers as the plain function."""


import evaluate

from eval_kit import registry
from eval_kit.movsafebench.scoring import compute_scores
from eval_kit.testing.synthetic_references import table2_references

METRIC_DIR = registry.get("movsafebench").metric_path()


def test_evaluate_module_matches_plain_function():
    rows = table2_references(seed=3)[:800]
    preds = [r["answer"] if i % 3 else None for i, r in enumerate(rows)]
    cats = [r["category"] for r in rows]
    args = dict(
        scenarios=[r["scenario"] for r in rows],
        categories=cats,
        source_benchmarks=[r["source_benchmark"] for r in rows],
        source_ids=[r["source_id"] for r in rows],
    )
    metric = evaluate.load(str(METRIC_DIR))
    # evaluate refuses None in string columns: the module takes "" for "no answer" and "no category"
    via_module = metric.compute(
        predictions=[p or "" for p in preds], references=[r["answer"] for r in rows], n_bootstrap=200,
        **{**args, "categories": [c or "" for c in cats]},
    )
    direct = compute_scores([r["answer"] for r in rows], preds, args["scenarios"], cats,
                            args["source_benchmarks"], args["source_ids"], n_bootstrap=200)
    assert via_module == direct
    assert 0 < via_module["accuracy"] < 1


def test_incremental_add_batch_path_gives_the_same_result():
    """add_batch goes through evaluate's Arrow cache; the all-at-once compute skips it; same numbers."""
    rows = table2_references(seed=4)[:300]
    cols = {
        "predictions": [r["answer"] if i % 4 else "" for i, r in enumerate(rows)],
        "references": [r["answer"] for r in rows],
        "scenarios": [r["scenario"] for r in rows],
        "categories": [r["category"] or "" for r in rows],
        "source_benchmarks": [r["source_benchmark"] for r in rows],
        "source_ids": [r["source_id"] for r in rows],
    }
    metric = evaluate.load(str(METRIC_DIR))
    direct = metric.compute(**cols, n_bootstrap=200)
    for start in range(0, 300, 100):
        metric.add_batch(**{k: v[start:start + 100] for k, v in cols.items()})
    assert metric.compute(n_bootstrap=200) == direct
