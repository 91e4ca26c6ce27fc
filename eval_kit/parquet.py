"""Reading Parquet that `datasets` wrote: one guarded opener and one ClassLabel decoder for the whole kit.

`datasets` stores a ClassLabel column as integers and the label names in the schema's `huggingface`
metadata. `label_decoders` rebuilds the `datasets.Features` from the Arrow schema
(`Features.from_arrow_schema`) and decodes with the feature's own `int2str`, for plain ClassLabel columns and
for lists of them, so the rest of the kit only ever sees label strings. An integer outside the label range is
left as it is, for the caller's schema check to report with its row.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

Decoder = Callable[[list[Any]], list[Any]]


# rows per batch when streaming a shard of images: a batch holds this many encoded images (32 real 300 KB
# images are 10 MB), whatever the row group's size
STREAM_BATCH_ROWS = 32
# the read buffer of a column chunk: pages are read through it, never the whole chunk at once
_READ_BUFFER_BYTES = 1 << 20


def open_parquet(file: str | Path):
    """A `pyarrow.parquet.ParquetFile`, or BadInput naming the file when it is not readable Parquet.

    Opened to stream: `pre_buffer=False` (pyarrow's default pre-reads a whole row group's column chunks, on a
    single-row-group shard the whole file) and a buffered read of each column chunk (`buffer_size`; unbuffered,
    pyarrow reads a whole column chunk into memory), so memory follows the batch, not the row group."""
    import pyarrow.parquet as pq

    file = Path(file)
    if not file.is_file():
        raise BadInput("not a file", path=file, fix="pass a Parquet file or a dataset folder")
    try:
        return pq.ParquetFile(file, pre_buffer=False, buffer_size=_READ_BUFFER_BYTES)
    except Exception as exc:  # pyarrow raises several types for corrupt or foreign files
        raise BadInput(f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:120]})", path=file) from None


def corrupt(file: str | Path, exc: BaseException) -> BadInput:
    """The one-line error for a Parquet file whose footer reads but whose data does not (a corrupt page)."""
    text = " ".join(str(exc).split())[:160]
    return BadInput(f"corrupt Parquet data ({type(exc).__name__}: {text})", path=file,
                    fix="re-download or rebuild the file (its footer is intact, a data page is not)")


def iter_batches(pf, file: str | Path, columns: list[str], batch_size: int = STREAM_BATCH_ROWS):
    """`pf.iter_batches(...)` where a corrupt data page is bad input naming the file, not a traceback."""
    batches = pf.iter_batches(columns=columns, batch_size=batch_size, use_threads=False)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as exc:  # ArrowInvalid, OSError, ArrowException... for a damaged page
            raise corrupt(file, exc) from None
        yield batch


def _features(schema) -> Any | None:
    """The `datasets.Features` recorded in the schema, or None when `datasets` wrote no (readable) metadata."""
    if not (schema.metadata or {}).get(b"huggingface"):
        return None
    import datasets

    try:
        return datasets.Features.from_arrow_schema(schema)
    except Exception:  # metadata from another datasets version, or hand-edited: fall back to raw values
        return None


def _class_label_decoder(feature) -> Decoder:
    def decode(values: list[Any]) -> list[Any]:
        out = []
        for value in values:
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < feature.num_classes:
                out.append(feature.int2str(value))
            else:
                out.append(value)
        return out

    return decode


def label_decoders(schema) -> dict[str, Decoder]:
    """Column -> function decoding a list of that column's values (ClassLabel, or a list of ClassLabel)."""
    features = _features(schema)
    if features is None:
        return {}
    import datasets

    decoders: dict[str, Decoder] = {}
    for name, feature in features.items():
        if isinstance(feature, datasets.ClassLabel):
            decoders[name] = _class_label_decoder(feature)
            continue
        inner = getattr(feature, "feature", None)
        if isinstance(feature, datasets.Sequence | datasets.List | datasets.LargeList) and isinstance(
                inner, datasets.ClassLabel):
            one = _class_label_decoder(inner)
            decoders[name] = lambda values, one=one: [None if v is None else one(list(v)) for v in values]
    return decoders


def class_label_names(schema) -> dict[str, list[str]]:
    """Column -> label names of its ClassLabel feature (for counts and figures)."""
    features = _features(schema)
    if features is None:
        return {}
    import datasets

    return {n: list(f.names) for n, f in features.items() if isinstance(f, datasets.ClassLabel)}


def read_columns(file: str | Path, columns: list[str] | None = None, *, pf=None) -> dict[str, list[Any]]:
    """Columns of one Parquet file as Python lists, ClassLabel values decoded to names."""
    pf = pf or open_parquet(file)
    try:
        table = pf.read(columns=columns)
    except Exception as exc:  # a corrupt data page behind an intact footer
        raise corrupt(file, exc) from None
    decoders = label_decoders(pf.schema_arrow)
    data = {}
    for name in table.column_names:
        values = table.column(name).to_pylist()
        data[name] = decoders[name](values) if name in decoders else values
    return data
