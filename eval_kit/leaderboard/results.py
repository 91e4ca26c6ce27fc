"""The results table: one row per scored run (benchmark, config, model, run), stored as Parquet, written atomically.

A row keeps what it was measured on (benchmark, dataset config, version, revision, whether the data are
demo/synthetic), the headline numbers as columns (for quick reading) and the full `--json` result, including
per-sample correctness, as a JSON string (for breakdowns and paired significance tests).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eval_kit.display_names import reduce_paths
from eval_kit.errors import BadInput
from eval_kit.leaderboard.boards import board_for, lookup
from eval_kit.leaderboard.provenance import checked_ci, checked_fraction, checked_name, checked_text, provenance

COLUMNS = ("benchmark", "config", "dataset_version", "dataset_revision", "synthetic", "model", "run", "backend",
           "link", "text_only", "headline", "ci_low", "ci_high", "num_samples", "added_at", "source", "result_json")
# columns a table written before they existed may lack (read as None: "provenance unknown")
LATER_COLUMNS = ("config", "dataset_version", "dataset_revision", "synthetic", "link")
MAX_RESULT_BYTES = 100_000_000  # a results JSON bigger than this is refused before it is read


def load_result_file(path: Path) -> Any:
    """A results JSON read by the strict reader (`eval_kit.strictjson`): size and depth bounded, NaN /
    Infinity, duplicate keys, FIFOs and devices refused; every problem is BadInput naming the file."""
    from eval_kit.strictjson import read_json

    if not Path(path).exists():
        raise BadInput("results file not found", path=path, fix="pass the JSON that `hazardkit score ... --json` wrote")
    try:
        return read_json(path, max_bytes=MAX_RESULT_BYTES)
    except BadInput as exc:
        raise BadInput(f"not a valid results file ({exc.detail})", path=path,
                       fix=exc.fix or "pass the JSON that `hazardkit score ... --json` wrote") from None


def result_row(result: Any, *, source: str, model: str | None = None, run: str | None = None,
               config: str | None = None, version: str | None = None, revision: str | None = None,
               link: str | None = None, backend: str | None = None) -> dict[str, Any]:
    """A table row from one scored result; BadInput when the result lacks what the leaderboard needs.

    Every string that reaches the table is checked (benchmark and config against the name pattern, the
    rest short and single-line), and every number is finite: the table never holds what the page or a
    file name cannot carry safely.
    """
    if not isinstance(result, dict):
        raise BadInput(f"expected a JSON object, got {type(result).__name__}", path=source)
    benchmark = result.get("benchmark")
    if not isinstance(benchmark, str) or not benchmark:
        raise BadInput("result has no 'benchmark'", path=source, field="benchmark",
                       fix="pass the --json output of `hazardkit score`")
    checked_name(benchmark, "benchmark", source)
    model = model or result.get("model")
    if not isinstance(model, str) or not model:
        raise BadInput("result names no model", path=source, field="model",
                       fix="pass --model NAME, or score a run folder with `hazardkit score run`")
    model = reduce_paths(checked_text(model, "model", source, required=True))  # a shown name is never a path
    run = run or result.get("run") or Path(str(result.get("predictions") or source)).stem
    run = checked_text(str(run), "run", source, required=True)
    backend = checked_text(backend or result.get("backend"), "backend", source)
    link = checked_text(link, "link", source)
    board = board_for(benchmark)
    headline = lookup(result, board.headline)
    if headline is not None and (isinstance(headline, bool) or not isinstance(headline, int | float)):
        raise BadInput(f"'{board.headline}' is not a number", path=source, field=board.headline)
    headline = checked_fraction(headline, board.headline, source)
    ci_low, ci_high = checked_ci(lookup(result, board.ci), board.ci, source)
    samples = result.get("num_samples") or 0
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise BadInput(f"'num_samples' is not a count ({str(samples)[:30]!r})", path=source, field="num_samples")
    where = provenance(result, source, config=config, version=version, revision=revision)
    stored = {**result, "model": model, "run": run, **where}
    return {
        "benchmark": benchmark, **where, "model": model, "run": run, "backend": backend, "link": link,
        "text_only": bool(result.get("text_only", False)), "headline": headline, "ci_low": ci_low,
        "ci_high": ci_high, "num_samples": samples,
        "added_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "source": str(source),
        "result_json": json.dumps(stored, sort_keys=True),
    }


def read_table(path: Path) -> list[dict[str, Any]]:
    """Every row of the results table ([] when there is none yet); a table written before the provenance
    columns existed reads with them as None, and the page shows those rows as "provenance unknown"."""
    if not path.exists():
        return []
    if not path.is_file():
        raise BadInput("the results table is not a file", path=path, fix="pass --table FILE.parquet")
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise BadInput(f"not a readable results table ({str(exc)[:120]})", path=path) from None
    missing = [c for c in COLUMNS if c not in table.column_names and c not in LATER_COLUMNS]
    if missing:
        raise BadInput(f"results table lacks column(s) {', '.join(missing)}", path=path)
    present = [c for c in COLUMNS if c in table.column_names]
    rows = [{c: row.get(c) for c in COLUMNS} for row in table.select(present).to_pylist()]
    for row in rows:  # a row added by an older version may name its model by a local path: never shown
        if isinstance(row.get("model"), str):
            row["model"] = reduce_paths(row["model"])
    return rows


def _schema():
    import pyarrow as pa

    text, number = pa.string(), pa.float64()
    types = {"synthetic": pa.bool_(), "text_only": pa.bool_(), "headline": number, "ci_low": number,
             "ci_high": number, "num_samples": pa.int64()}
    return pa.schema([(c, types.get(c, text)) for c in COLUMNS])


def write_table(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write the whole table atomically (a temporary file renamed over the old one)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from eval_kit.jsonl import atomic_write_bytes

    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([{c: r.get(c) for c in COLUMNS} for r in rows], schema=_schema()), buffer)
    atomic_write_bytes(path, buffer.getvalue())


def row_key(row: dict[str, Any]) -> tuple:
    return row["benchmark"], row.get("config"), row["model"], row["run"]


@contextmanager
def table_lock(table: Path) -> Iterator[None]:
    """An exclusive advisory lock beside the table, so two writers (the app and the CLI) append in turn."""
    import fcntl

    from eval_kit.folder_lock import open_lock_file

    table.parent.mkdir(parents=True, exist_ok=True)
    fd = open_lock_file(table.parent / f".{table.name}.lock", table.parent)  # never through a planted link
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def add_results(table: Path, new_rows: list[dict[str, Any]], *,
                remove: Callable[[dict[str, Any]], bool] | None = None) -> tuple[int, int]:
    """Append rows under the table lock, written atomically; a row with the same (benchmark, config, model,
    run) replaces the old one, and rows `remove` selects are dropped first. Returns (added, replaced)."""
    if table.exists() and not table.is_file():
        raise BadInput("the results table is not a file", path=table, fix="pass --table FILE.parquet")
    with table_lock(table):
        rows = [r for r in read_table(table) if remove is None or not remove(r)]
        index = {row_key(r): i for i, r in enumerate(rows)}
        added = replaced = 0
        for row in new_rows:
            key = row_key(row)
            if key in index:
                rows[index[key]] = row
                replaced += 1
            else:
                index[key] = len(rows)
                rows.append(row)
                added += 1
        write_table(table, rows)
    return added, replaced
