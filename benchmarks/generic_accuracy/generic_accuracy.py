"""A generic accuracy `evaluate` metric, the baseline of benchmarks/score_speed.py.

It has the shape of evaluate's own `accuracy` metric (integer features, scikit-learn's accuracy_score),
which cannot be downloaded here; it is written for this benchmark, not copied.
"""

import datasets
import evaluate
from sklearn.metrics import accuracy_score


class GenericAccuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="Fraction of predictions equal to references.",
            citation="",
            inputs_description="predictions, references: lists of integer labels",
            features=datasets.Features(
                {"predictions": datasets.Value("int32"), "references": datasets.Value("int32")}
            ),
        )

    def _compute(self, predictions, references):
        return {"accuracy": float(accuracy_score(references, predictions))}
