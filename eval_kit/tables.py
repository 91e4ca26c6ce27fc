"""Reading reference tables (Parquet, JSON Lines, or a dataset folder) and prediction files, keyed by id.

Shared by every `hazardkit score` command. ClassLabel integers in Parquet are decoded back to label
strings by `eval_kit.parquet`, so the rest of the kit only ever sees label strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.jsonl import iter_jsonl
from eval_kit.schemas import first_error


def parquet_files(path: Path, config: str | None) -> list[Path]:
    """The Parquet files of a file, a folder of Parquet, or a dataset folder (`data/<config>/*.parquet`)."""
    if path.is_file():
        return [path]
    data = path / "data"
    if data.is_dir():
        configs = sorted(p.name for p in data.iterdir() if p.is_dir())
        if config is None:
            if len(configs) != 1:
                raise BadInput(
                    f"dataset folder has configs {', '.join(configs) or '(none)'}",
                    path=path,
                    fix="pass --config NAME",
                )
            config = configs[0]
        if config not in configs:
            raise BadInput(f"config {config!r} not found (have: {', '.join(configs) or 'none'})", path=path,
                           fix="build it first or pick another --config")
        files = sorted((data / config).glob("*.parquet"))
    else:
        files = sorted(path.glob("*.parquet"))
    if not files:
        raise BadInput("no Parquet files found", path=path)
    return files


def read_reference_rows(
    path: str | Path, columns: Sequence[str], *, config: str | None = None, optional: Sequence[str] = ()
) -> list[tuple[str, dict[str, Any]]]:
    """Rows as (location, dict) with only `columns` (+ `optional` ones when present).

    `location` is "line N" for JSON Lines and "row N" for Parquet, for error messages.
    """
    path = Path(path)
    if not path.exists():
        raise BadInput("file not found", path=path)
    if path.is_file() and path.suffix in {".jsonl", ".json", ".ndjson"}:
        return [(f"line {n}", obj) for n, obj in iter_jsonl(path)]
    from eval_kit.parquet import open_parquet, read_columns

    rows: list[tuple[str, dict[str, Any]]] = []
    for file in parquet_files(path, config):
        pf = open_parquet(file)
        present = set(pf.schema_arrow.names)
        missing = [c for c in columns if c not in present]
        if missing:
            raise BadInput(f"missing column(s) {', '.join(missing)}", path=file)
        wanted = list(columns) + [c for c in optional if c in present and c not in columns]
        data = read_columns(file, wanted, pf=pf)
        for i in range(pf.metadata.num_rows):
            rows.append((f"{file.name} row {i + 1}", {c: data[c][i] for c in wanted}))
    if not rows:
        raise BadInput("no rows", path=path)
    return rows


def validate_rows(rows: list[tuple[str, dict[str, Any]]], schema: str, path: str | Path) -> dict[str, dict]:
    """Validate reference rows against a schema and key them by id; duplicate ids are bad input."""
    by_id: dict[str, dict] = {}
    for where, row in rows:
        problem = first_error(schema, row)
        if problem is not None:
            field, message = problem
            raise BadInput(f"{where}: {message}", path=path, field=field)
        if row["id"] in by_id:
            raise BadInput(f"{where}: duplicate id {row['id']!r}", path=path, field="id")
        by_id[row["id"]] = row
    return by_id


def read_predictions(path: str | Path, schema: str) -> dict[str, tuple[int, dict[str, Any]]]:
    """Prediction lines keyed by id, each validated against `schema`; duplicate ids are bad input."""
    by_id: dict[str, tuple[int, dict[str, Any]]] = {}
    for number, obj in iter_jsonl(path):
        problem = first_error(schema, obj)
        if problem is not None:
            field, message = problem
            raise BadInput(message, path=path, line=number, field=field)
        sample_id = obj["id"]
        if sample_id in by_id:
            raise BadInput(
                f"duplicate id {sample_id!r} (first on line {by_id[sample_id][0]})",
                path=path, line=number, field="id", fix="keep one line per sample",
            )
        by_id[sample_id] = (number, obj)
    return by_id


def check_coverage(
    predictions: dict[str, tuple[int, dict]], references: dict[str, dict], path: str | Path, *, allow_missing: bool
) -> list[str]:
    """Reject ids not in the references; return reference ids without a prediction (error unless allowed)."""
    for sample_id, (number, _) in predictions.items():
        if sample_id not in references:
            raise BadInput(f"id {sample_id!r} is not in the references", path=path, line=number, field="id",
                           fix="check that the predictions match this benchmark and config")
    missing = [i for i in references if i not in predictions]
    if missing and not allow_missing:
        shown = ", ".join(repr(m) for m in missing[:3]) + (" ..." if len(missing) > 3 else "")
        raise BadInput(
            f"{len(missing)} reference id(s) have no prediction: {shown}",
            path=path, field="id", fix="predict every sample, or pass --allow-missing to score them as wrong",
        )
    return missing
