"""The `evaluate` modules' inputs as `datasets` hands them over, and the one compute path they share.

`load_dataset` returns ClassLabel columns as integers (`ds["answer"]` -> [0, 2, ...]) and rows as dicts
with integers inside (also inside lists of ClassLabel). The modules accept those, label names, and (per
benchmark) option letters or raw model text, and turn them into label names here before scoring, so the
`evaluate` result equals `hazardkit score` on the same rows.

`DirectCompute` is mixed into each `evaluate.Metric`: a `compute(...)` with every input at once in one
process scores directly (optional inputs may be left out; evaluate's own path requires every declared
input and only takes its declared string types); `add` / `add_batch` first convert to the declared string
columns, with "" for an input that was not given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any


def as_list(values: Any) -> list[Any] | None:
    """A plain list from a list, tuple, numpy array, pandas Series or `datasets` Column; None stays None."""
    if values is None:
        return None
    if hasattr(values, "tolist"):
        return list(values.tolist())
    return list(values)


def _is_index(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or type(value).__name__ in (
        "int64", "int32", "int16", "int8", "uint8")


def decode_label(value: Any, names: Sequence[str], *, field: str, allow_none: bool = False) -> str | None:
    """A ClassLabel index or a label name to the name; None, "" and -1 (datasets' missing label) to None
    where allowed. Names are returned as given (the scorer checks them against the label space)."""
    if value is None or value == "" or (_is_index(value) and int(value) == -1):
        if allow_none:
            return None
        raise ValueError(f"{field} has a missing value")
    if _is_index(value):
        index = int(value)
        if not 0 <= index < len(names):
            raise ValueError(f"{field}: {index} is not a label index (0..{len(names) - 1} for "
                             f"{', '.join(names)})")
        return names[index]
    if isinstance(value, str):
        return value
    raise ValueError(f"{field}: {value!r} is neither a label name nor a ClassLabel index")


def decode_labels(values: Iterable[Any], names: Sequence[str], *, field: str,
                  allow_none: bool = False) -> list[str | None]:
    return [decode_label(v, names, field=field, allow_none=allow_none) for v in values]


def class_labels(features: Mapping[str, Any]) -> dict[str, tuple[list[str], bool]]:
    """Column -> (label names, is a list) for the ClassLabel columns of a `Features.to_dict()`-style
    declaration or a `datasets.Features`."""
    out: dict[str, tuple[list[str], bool]] = {}
    for name, feature in features.items():
        spec = feature if isinstance(feature, Mapping) else _feature_dict(feature)
        if spec.get("_type") == "ClassLabel":
            out[name] = (list(spec["names"]), False)
        elif spec.get("_type") in ("List", "Sequence", "LargeList") and isinstance(spec.get("feature"), Mapping) \
                and spec["feature"].get("_type") == "ClassLabel":
            out[name] = (list(spec["feature"]["names"]), True)
    return out


def _feature_dict(feature: Any) -> dict[str, Any]:
    import datasets

    return datasets.Features({"x": feature}).to_dict()["x"]


def decode_row(row: Mapping[str, Any] | str, labels: Mapping[str, tuple[list[str], bool]]) -> Any:
    """A dataset row with its ClassLabel integers (also inside lists) replaced by names; a JSON string is
    returned unchanged (the benchmark's own reader takes it)."""
    if isinstance(row, str):
        return row
    out = dict(row)
    for name, (names, is_list) in labels.items():
        if name not in out or out[name] is None:
            continue
        if is_list:
            out[name] = [decode_label(v, names, field=name) for v in as_list(out[name])]
        else:
            out[name] = decode_label(out[name], names, field=name, allow_none=True)
    return out


class DirectCompute:
    """Mixin for an `evaluate.Metric` (listed before it). The module defines:

    - `_prepare(columns: dict) -> dict`: every given input (None when not given) to what `_score` takes;
    - `_score(**prepared, **options) -> dict`: the result;
    - `_to_stored(prepared: dict, inputs: dict) -> dict`: the declared feature columns ("" = absent);
    - `_from_stored(columns: dict) -> dict`: the inverse, used by `_compute` after evaluate's cache.
    """

    _prepare: Callable[..., dict[str, Any]]
    _score: Callable[..., dict[str, Any]]
    _to_stored: Callable[..., dict[str, Any]]
    _from_stored: Callable[..., dict[str, Any]]

    def _split(self, predictions, references, kwargs) -> tuple[dict[str, Any], dict[str, Any]]:
        names = self._feature_names()  # type: ignore[attr-defined]
        inputs = {"predictions": predictions, "references": references,
                  **{k: v for k, v in kwargs.items() if k in names}}
        options = {k: v for k, v in kwargs.items() if k not in names}
        for name in names:
            inputs.setdefault(name, None)
        return {k: as_list(v) for k, v in inputs.items()}, options

    def compute(self, *, predictions=None, references=None, **kwargs):
        """All inputs at once in one process: score them directly (evaluate's Arrow cache exists for
        incremental `add_batch` and multi-process runs; on a million rows it costs 5x the scoring itself,
        benchmarks/score_speed.py). Otherwise convert and go through evaluate's own path."""
        if predictions is None and references is None:
            return super().compute(**kwargs)  # type: ignore[misc]  (after add / add_batch)
        inputs, options = self._split(predictions, references, kwargs)
        if predictions is None or references is None:
            raise ValueError("pass both predictions and references")
        if len(inputs["predictions"]) != len(inputs["references"]):
            raise ValueError(f"{len(inputs['predictions'])} predictions for {len(inputs['references'])} "
                             "references")
        if self.num_process == 1 and self.writer is None:  # type: ignore[attr-defined]
            return self._score(**self._prepare(inputs), **options)
        self.add_batch(**inputs)
        return super().compute(**options)  # type: ignore[misc]

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch (any accepted encoding); it is converted to the declared string columns first."""
        inputs, _ = self._split(predictions, references, kwargs)
        return super().add_batch(**self._to_stored(self._prepare(inputs), inputs))  # type: ignore[misc]

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (any accepted encoding)."""
        batch = {k: [v] for k, v in kwargs.items()}
        return self.add_batch(predictions=[prediction], references=[reference], **batch)

    def _compute(self, **columns):
        names = self._feature_names()  # type: ignore[attr-defined]
        stored = {k: list(v) for k, v in columns.items() if k in names}
        options = {k: v for k, v in columns.items() if k not in names}
        return self._score(**self._from_stored(stored), **options)
