"""Parquet shards of one dataset config: `<repo>/data/<config>/<split>-00000-of-000NN.parquet`.

Why pyarrow directly instead of `Dataset.from_generator(...).to_parquet(...)`: that route copies every
row through an Arrow cache on disk first, and image bytes must be stored exactly as produced (no
re-encoding). We encode each row with the `datasets.Features` (ClassLabel names -> ints, an Image
becomes its `{"bytes", "path"}` struct, bytes untouched) and write Arrow batches whose schema is
`features.arrow_schema`, which carries the `huggingface` metadata that lets `datasets` decode the
columns back into the same features.

Rows must arrive sorted by id (stable order across versions); the writer checks it rather than
sorting, so rows can stream with their image bytes read lazily. The config folder is written in a
temporary sibling folder and swapped in at the end, so readers never see half a config.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.publish.shard_io import FollowingHash, ImageFile, image_struct_array
from eval_kit.errors import BadInput
from eval_kit.safe_paths import refuse_link, refuse_links, remove_tree

DEFAULT_MAX_SHARD_BYTES = 500 * 1024 * 1024
# datasets itself writes image datasets in row groups of 100 rows: small enough to stream, few enough to index.
ROW_GROUP_ROWS = 100
# ...and we also end a row group at this many bytes: 100 full-size frames can be 300 MB, which a streaming
# reader must fetch before its first row, and the writer holds two row groups in memory. Smaller groups
# also pipeline better (the last one's write and hash are the part that cannot overlap anything).
ROW_GROUP_BYTES = 32 * 1024 * 1024
SPLIT = "test"


@dataclass(frozen=True)
class ShardInfo:
    """One written shard: its path relative to the repo folder, rows, size on disk and sha256."""

    path: str
    num_rows: int
    num_bytes: int
    sha256: str


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file (`hashlib.file_digest` reads into one reused buffer)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def shard_name(split: str, index: int, count: int) -> str:
    """The Hub's shard naming (`test-00000-of-00003.parquet`), which `datasets` recognises as a split."""
    return f"{split}-{index:05d}-of-{count:05d}.parquet"


def _row_bytes(encoded: dict[str, Any]) -> int:
    """A cheap estimate of a row's size: payload bytes of byte/str values, 8 for anything else."""
    total = 0
    for value in encoded.values():
        if isinstance(value, (bytes, str)):
            total += len(value)
        elif isinstance(value, ImageFile):
            total += value.size
        elif isinstance(value, dict):
            total += _row_bytes(value)
        else:
            total += 8
    return total


def _checked_order(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Pass rows through, refusing a missing id, a duplicate or one out of order (stable order is a contract)."""
    previous: str | None = None
    for number, row in enumerate(rows, start=1):
        row_id = row.get("id")
        if not isinstance(row_id, str) or not row_id:
            raise BadInput(f"row {number} has no string id", field="id", fix="every row needs a stable string id")
        if previous is not None and row_id <= previous:
            what = "duplicate" if row_id == previous else "out of order"
            raise BadInput(
                f"row {number}: id {row_id!r} is {what} (after {previous!r})",
                field="id", fix="rows must be unique and sorted by id",
            )
        previous = row_id
        yield row


def _row_encoder(features) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A per-row encoder equal to `features.encode_example` for flat Value / ClassLabel / Image features,
    without its generic per-value dispatch (the publish hot loop); other feature types go through datasets."""
    import datasets

    simple = all(isinstance(f, (datasets.Value, datasets.ClassLabel, datasets.Image)) for f in features.values())
    if not simple:
        def generic(row: dict[str, Any]) -> dict[str, Any]:
            row = {k: (v.as_struct() if isinstance(v, ImageFile) else v) for k, v in row.items()}
            return features.encode_example(row)

        return generic
    labels = {name: f for name, f in features.items() if isinstance(f, datasets.ClassLabel)}
    images = {name for name, f in features.items() if isinstance(f, datasets.Image)}

    def encode(row: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for name in features:
            value = row[name]
            if value is not None:
                if name in labels:
                    if isinstance(value, str):
                        value = labels[name].str2int(value)
                    elif not (isinstance(value, int) and 0 <= value < labels[name].num_classes):
                        raise ValueError(f"{value!r} is not a label of {name!r}")
                elif name in images:
                    if isinstance(value, ImageFile):  # read straight into the shard at write time
                        out[name] = value
                        continue
                    if not isinstance(value, dict) or not isinstance(value.get("bytes"), (bytes, type(None))):
                        return features.encode_example(row)  # paths, PIL images, arrays: let datasets encode
                    value = {"bytes": value.get("bytes"), "path": value.get("path")}
            out[name] = value
        return out

    return encode


def _leaf_columns(schema) -> list[tuple[str, bool]]:
    """(dotted Parquet column path, is binary) for every leaf column of an Arrow schema."""
    import pyarrow as pa

    leaves: list[tuple[str, bool]] = []

    def walk(name: str, dtype) -> None:
        if pa.types.is_struct(dtype):
            for child in dtype:
                walk(f"{name}.{child.name}", child.type)
        else:
            leaves.append((name, pa.types.is_binary(dtype) or pa.types.is_large_binary(dtype)))

    for f in schema:
        walk(f.name, f.type)
    return leaves


def _writer_options(schema) -> dict[str, Any]:
    """Binary payloads (encoded images) are stored uncompressed and without min/max statistics: JPEG/PNG
    do not compress further and statistics over megabyte values are useless; snappy for everything else."""
    leaves = _leaf_columns(schema)
    return {
        "compression": {name: ("none" if binary else "snappy") for name, binary in leaves},
        "write_statistics": [name for name, binary in leaves if not binary],
    }


class _ShardSink:
    """Writes encoded rows into consecutive Parquet files, starting a new one past the size bound.

    Row groups are pipelined: while one is written (pyarrow, GIL released), the next one's table is
    built and its image files read in a background thread, and each shard's sha256 follows its file in
    another (`shard_io.FollowingHash`).
    """

    def __init__(self, folder: Path, schema, max_bytes: int) -> None:
        import pyarrow as pa

        self.folder = folder
        self.schema = schema
        self.max_bytes = max_bytes
        self.files: list[tuple[Path, int, str]] = []  # (temporary path, rows, sha256)
        self._image_fields = [f.name for f in schema if pa.types.is_struct(f.type)
                              and {c.name for c in f.type} == {"bytes", "path"}]
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shard-rows")
        self._pending: Future | None = None  # the previous row group's table, being built
        self._writer = None
        self._file = None
        self._hash: FollowingHash | None = None
        self._bytes = 0
        self._rows = 0
        self._batch: list[dict[str, Any]] = []
        self._batch_bytes = 0
        self._batch_first = 0

    def add(self, encoded: dict[str, Any], number: int) -> None:
        size = _row_bytes(encoded)
        if self._writer is not None and self._bytes + size > self.max_bytes:
            self._close()
        if self._writer is None:
            self._open()
        if not self._batch:
            self._batch_first = number
        self._batch.append(encoded)
        self._bytes += size
        self._batch_bytes += size
        if len(self._batch) >= ROW_GROUP_ROWS or self._batch_bytes >= ROW_GROUP_BYTES:
            self._submit()

    def _open(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = self.folder / f"part-{len(self.files):05d}.parquet"
        self._file = pa.OSFile(str(path), "wb")
        self._writer = pq.ParquetWriter(self._file, self.schema, use_dictionary=False,
                                        **_writer_options(self.schema))
        self._hash = FollowingHash(path)
        self.files.append((path, 0, ""))
        self._bytes = 0
        self._rows = 0

    def _submit(self) -> None:
        """Start building this batch's table; write the previous batch's meanwhile."""
        if not self._batch:
            return
        batch, first = self._batch, self._batch_first
        self._batch = []
        self._batch_bytes = 0
        future = self._pool.submit(self._table, batch, first)
        self._write_pending()
        self._pending = future

    def _write_pending(self) -> None:
        if self._pending is None:
            return
        table = self._pending.result()
        self._pending = None
        self._writer.write_table(table, row_group_size=table.num_rows)  # one row group per batch
        self._rows += table.num_rows
        self._hash.advance(self._file.tell())

    def _table(self, batch: list[dict[str, Any]], first: int):
        """One row group as an Arrow table; image files are read straight into the image column."""
        import pyarrow as pa

        last = first + len(batch) - 1
        try:
            direct = {}
            for name in self._image_fields:
                values = [row[name] for row in batch]
                if any(isinstance(v, ImageFile) for v in values):
                    if all(v is None or isinstance(v, ImageFile) for v in values):
                        direct[name] = values
                        for row in batch:
                            row[name] = None
                    else:
                        for row in batch:
                            if isinstance(row[name], ImageFile):
                                row[name] = row[name].as_struct()
            table = pa.Table.from_pylist(batch, schema=self.schema)
            for name, files in direct.items():
                index = self.schema.get_field_index(name)
                table = table.set_column(index, self.schema.field(index),
                                         image_struct_array(files, self.schema.field(index).type))
            return table
        except (ValueError, TypeError) as exc:  # pyarrow's ArrowInvalid / ArrowTypeError
            raise BadInput(f"a row among rows {first}..{last} does not fit the Parquet schema: {exc}",
                           fix="check the column types against the benchmark's features") from None

    def _close(self) -> None:
        self._submit()
        self._write_pending()
        self._writer.close()
        self._file.close()
        path, _, _ = self.files[-1]
        self.files[-1] = (path, self._rows, self._hash.finish(path.stat().st_size))
        self._writer = self._file = self._hash = None

    def finish(self) -> list[tuple[Path, int, str]]:
        if self._writer is not None:
            self._close()
        self._pool.shutdown()
        return self.files

    def abort(self) -> None:
        """Stop the helper threads and close files after an error (the caller removes the folder)."""
        if self._pending is not None:
            self._pending.cancel()
            with contextlib.suppress(BaseException):  # the error being handled is the caller's
                self._pending.result()
        self._pool.shutdown(wait=True)
        if self._hash is not None:
            self._hash.abandon()
        for handle in (self._writer, self._file):
            if handle is not None:
                with contextlib.suppress(Exception):  # already failing; closing is best effort
                    handle.close()


def write_config(
    rows: Iterable[dict[str, Any]],
    features,
    repo_dir: str | Path,
    config: str,
    *,
    split: str = SPLIT,
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    progress: bool = False,
) -> list[ShardInfo]:
    """Write `rows` (sorted by id) as the Parquet shards of `data/<config>/`, replacing that folder atomically.

    Each row is a dict of decoded values (label strings, image `{"bytes": ..., "path": ...}`), encoded
    with `features`. Returns the shards written, in order. An empty input is bad input.
    """
    if max_shard_bytes <= 0:
        raise BadInput(f"shard size bound must be positive, got {max_shard_bytes}", field="max_shard_bytes")
    repo_dir = Path(repo_dir)
    data_dir = repo_dir / "data"
    refuse_links(repo_dir, Path("data") / config)  # never create, move or remove through a planted link
    data_dir.mkdir(parents=True, exist_ok=True)
    schema = features.arrow_schema
    # a plain mkdir (not mkdtemp, which makes 0700 whatever the umask): the folder becomes data/<config>/
    work = data_dir / f".{config}.hazardkit-tmp-{secrets.token_hex(8)}"
    work.mkdir()
    sink = _ShardSink(work, schema, max_shard_bytes)
    try:
        iterator: Iterable[dict[str, Any]] = _checked_order(rows)
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, desc=f"publish {config}", unit="row")
        encode = _row_encoder(features)
        for number, row in enumerate(iterator, start=1):
            missing = [name for name in features if name not in row]
            if missing:
                raise BadInput(f"row {number} (id {row.get('id')!r}) lacks column(s) {', '.join(missing)}",
                               field=missing[0])
            try:
                encoded = encode(row)
            except (ValueError, TypeError, KeyError) as exc:
                raise BadInput(f"row {number} (id {row.get('id')!r}) does not fit the features: {exc}") from None
            sink.add(encoded, number)
        parts = sink.finish()
        if not parts:
            raise BadInput(f"no rows to publish for config {config!r}", fix="check the input")
        shards: list[ShardInfo] = []
        for index, (path, count, digest) in enumerate(parts):
            final = work / shard_name(split, index, len(parts))
            os.replace(path, final)
            shards.append(ShardInfo(f"data/{config}/{final.name}", count, final.stat().st_size, digest))
        _swap_in(work, data_dir / config)
        return shards
    except BaseException:
        sink.abort()
        raise
    finally:
        if work.exists():
            remove_tree(work, data_dir)


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # a file system without hard links: copy the bytes
        shutil.copy2(source, target, follow_symlinks=False)


def _swap_in(new: Path, target: Path) -> None:
    """Replace `target` by `new` with renames: the old folder is moved aside first, then removed.

    Only the old shards are replaced: anything else in the old config folder (a maintainer's `notes~`) is
    carried into the new one unchanged (hard-linked), since publish removes only what it made."""
    old = None
    refuse_link(target, what="the config folder")
    if target.is_dir():
        for entry in os.scandir(target):
            if not (entry.name.endswith(".parquet") and entry.is_file(follow_symlinks=False)) \
                    and not (new / entry.name).exists():
                refuse_link(entry.path, what="a path in the config folder")
                if entry.is_dir(follow_symlinks=False):
                    shutil.copytree(entry.path, new / entry.name, copy_function=_link_or_copy)
                else:
                    _link_or_copy(entry.path, new / entry.name)
    if target.exists():
        old = target.with_name(f".{target.name}.hazardkit-old-{secrets.token_hex(8)}")
        os.replace(target, old)
    os.replace(new, target)
    if old is not None:
        remove_tree(old, target.parent)


def config_shards(repo_dir: str | Path, config: str) -> list[Path]:
    """The shard files of a config already on disk, in order."""
    return sorted((Path(repo_dir) / "data" / config).glob("*.parquet"))


def published_configs(repo_dir: str | Path, exclude: Iterable[str] = ()) -> list[str]:
    """Config names with at least one Parquet shard under `<repo>/data/` (less the local-only `exclude`)."""
    data = Path(repo_dir) / "data"
    if not data.is_dir():
        return []
    skip = set(exclude)
    return sorted(p.name for p in data.iterdir() if p.is_dir() and not p.name.startswith(".")
                  and p.name not in skip and any(p.glob("*.parquet")))
