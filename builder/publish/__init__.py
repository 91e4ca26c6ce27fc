"""Publishing, generic over benchmarks: builder outputs -> Hugging Face dataset folders (Parquet shards, card,
Croissant) -> Hub releases.

Modules: `shards` / `shard_io` (Parquet writing), `guards` (what may not be published), `publishers` (the
Publisher declaration; each benchmark's lives in `builder/<name>/publisher.py`), `stats` (measured counts),
`figure` (sample grid), `card` (dataset card), `croissant` (Croissant JSON-LD), `release` (versions,
manifest, push), `pipeline` (one publish end to end), `command` (the CLI).
"""

from builder.publish.pipeline import PublishResult, publish
from builder.publish.shards import write_config

__all__ = ["PublishResult", "publish", "write_config"]
