"""MovSafeBench accuracy with the paper's breakdowns, as a Hugging Face `evaluate` metric.

Load with `evaluate.load("eval_kit/movsafebench/metric/movsafebench.py")`. The computation lives in
`eval_kit.movsafebench.scoring.compute_scores`; this module only declares inputs and calls it.
"""

import datasets
import evaluate

from eval_kit.movsafebench import spec
from eval_kit.movsafebench.scoring import compute_scores

_DESCRIPTION = """
MovSafeBench asks a vision-language model for the safe direction (left / straight / right) in a driving or
robot image where the HazardForge pipeline inserted a hazard. `accuracy` is over edited images only (the
paper's "Total"); `by_scenario` includes the unedited `no_edit` images; `by_category`, `by_group`
(normal / anomalous) and `by_source` (drivebench / sa_bench) are over edited images. An empty prediction ""
(unparsable answer) is scored wrong and counted in `unparsed`. `ci95` is a percentile bootstrap interval
resampling source images.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of `left` / `straight` / `right`, or "" for no parsable answer.
    references: list of the true answers.
    scenarios: list of `no_edit` / `static` / `motion` / `intrusion` / `distance`.
    categories: list of object categories ("" for `no_edit`).
    source_benchmarks: list of `drivebench` / `sa_bench`.
    source_ids: list of source-image ids (clusters of the bootstrap).
    n_bootstrap: bootstrap resamples (default 1000).
    seed: bootstrap seed (default 0).
Returns:
    dict with accuracy, by_scenario, by_category, by_group, by_source, support, unparsed,
    confusion_matrix, ci95, ci_method, num_samples, num_edited.
Examples:
    >>> metric = evaluate.load("eval_kit/movsafebench/metric/movsafebench.py")
    >>> out = metric.compute(predictions=["left", "right"], references=["left", "left"],
    ...     scenarios=["static", "static"], categories=["dog", "cone"],
    ...     source_benchmarks=["drivebench", "drivebench"], source_ids=["a", "b"])
    >>> out["accuracy"]
    0.5
"""



@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MovSafeBench(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=spec.CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                    "scenarios": datasets.Value("string"),
                    "categories": datasets.Value("string"),
                    "source_benchmarks": datasets.Value("string"),
                    "source_ids": datasets.Value("string"),
                }
            ),
            reference_urls=["https://github.com/hazardkit/hazardkit"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """All inputs at once in one process: score them directly. evaluate's Arrow cache exists for
        incremental `add_batch` and multi-process runs; on a million rows it costs 5x the scoring itself
        (benchmarks/score_speed.py), so those cases alone go through it."""
        names = self._feature_names()
        inputs = {"predictions": predictions, "references": references, **kwargs}
        direct = (self.num_process == 1 and self.writer is None and all(inputs.get(n) is not None for n in names))
        if not direct:
            return super().compute(predictions=predictions, references=references, **kwargs)
        options = {k: v for k, v in kwargs.items() if k not in names}
        return self._compute(**{n: list(inputs[n]) for n in names}, **options)

    def _compute(self, predictions, references, scenarios, categories, source_benchmarks, source_ids,
                 n_bootstrap=1000, seed=0):
        # evaluate's type check refuses None in string columns: "" stands for "no answer" / "no category"
        predictions = [p or None for p in predictions]
        categories = [c or None for c in categories]
        return compute_scores(references, predictions, scenarios, categories, source_benchmarks, source_ids,
                              n_bootstrap=n_bootstrap, seed=seed)
