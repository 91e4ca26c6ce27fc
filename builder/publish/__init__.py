"""Publishing: builder outputs -> Hugging Face dataset folders (Parquet shards, card, Croissant) -> Hub releases.

Modules: `shards` (Parquet writing), `guards` (what may not be published), `publishers` (per-benchmark
declarations), `movsafebench` (its rows and publisher), `stats` (measured counts), `figure` (sample
grid), `card` (dataset card), `croissant` (Croissant JSON-LD), `release` (versions, manifest, push),
`pipeline` (one publish end to end), `demo` (procedural demo rows), `command` (the CLI).
"""

from builder.movsafebench.publisher import movsafebench_rows_from_records
from builder.publish.pipeline import PublishResult, publish
from builder.publish.shards import write_config

__all__ = ["PublishResult", "movsafebench_rows_from_records", "publish", "write_config"]
