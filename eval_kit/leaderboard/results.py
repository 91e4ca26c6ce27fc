"""The results table: one row per scored run (benchmark, model, run), stored as Parquet, written atomically.

A row keeps the headline numbers as columns (for quick reading) and the full `--json` result, including
per-sample correctness, as a JSON string (for breakdowns and paired significance tests).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.leaderboard.boards import board_for, lookup

COLUMNS = ("benchmark", "model", "run", "backend", "text_only", "headline", "ci_low", "ci_high", "num_samples",
           "added_at", "source", "result_json")


def result_row(result: Any, *, source: str, model: str | None = None, run: str | None = None) -> dict[str, Any]:
    """A table row from one scored result; BadInput when the result lacks what the leaderboard needs."""
    if not isinstance(result, dict):
        raise BadInput(f"expected a JSON object, got {type(result).__name__}", path=source)
    benchmark = result.get("benchmark")
    if not isinstance(benchmark, str) or not benchmark:
        raise BadInput("result has no 'benchmark'", path=source, field="benchmark",
                       fix="pass the --json output of `hazardkit score`")
    model = model or result.get("model")
    if not isinstance(model, str) or not model:
        raise BadInput("result names no model", path=source, field="model",
                       fix="pass --model NAME, or score a run folder with `hazardkit score run`")
    run = run or result.get("run") or Path(str(result.get("predictions") or source)).stem
    board = board_for(benchmark)
    headline = lookup(result, board.headline)
    ci = lookup(result, board.ci) or [None, None]
    if headline is not None and not isinstance(headline, int | float):
        raise BadInput(f"'{board.headline}' is not a number", path=source, field=board.headline)
    return {
        "benchmark": benchmark, "model": model, "run": str(run), "backend": result.get("backend"),
        "text_only": bool(result.get("text_only", False)),
        "headline": None if headline is None else float(headline),
        "ci_low": None if ci[0] is None else float(ci[0]), "ci_high": None if ci[1] is None else float(ci[1]),
        "num_samples": int(result.get("num_samples") or 0),
        "added_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "source": source,
        "result_json": json.dumps({**result, "model": model, "run": str(run)}, sort_keys=True),
    }


def read_table(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise BadInput(f"not a readable results table ({exc})", path=path) from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise BadInput(f"results table lacks column(s) {', '.join(missing)}", path=path)
    return table.select(list(COLUMNS)).to_pylist()


def write_table(path: Path, rows: list[dict[str, Any]]) -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from eval_kit.jsonl import atomic_write_bytes

    schema = pa.schema([("benchmark", pa.string()), ("model", pa.string()), ("run", pa.string()),
                        ("backend", pa.string()), ("text_only", pa.bool_()), ("headline", pa.float64()),
                        ("ci_low", pa.float64()), ("ci_high", pa.float64()), ("num_samples", pa.int64()),
                        ("added_at", pa.string()), ("source", pa.string()), ("result_json", pa.string())])
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), buffer)
    atomic_write_bytes(path, buffer.getvalue())


def add_results(table: Path, new_rows: list[dict[str, Any]]) -> tuple[int, int]:
    """Append rows; a row with the same (benchmark, model, run) replaces the old one. Returns (added, replaced)."""
    rows = read_table(table)
    index = {(r["benchmark"], r["model"], r["run"]): i for i, r in enumerate(rows)}
    added = replaced = 0
    for row in new_rows:
        key = (row["benchmark"], row["model"], row["run"])
        if key in index:
            rows[index[key]] = row
            replaced += 1
        else:
            index[key] = len(rows)
            rows.append(row)
            added += 1
    write_table(table, rows)
    return added, replaced
