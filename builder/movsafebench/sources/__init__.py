"""Source adapters: read DriveBench, SA-Bench or a folder of your own images into `SourceRecord`s, and
write / verify the manifest of chosen sources (`manifests/movsafebench/<version>/sources.jsonl`)."""

from builder.movsafebench.sources.common import ScanResult, Skipped, SourceRecord, sha256_file
from builder.movsafebench.sources.manifest import open_source_image, read_manifest, verify_manifest, write_manifest

__all__ = ["ScanResult", "Skipped", "SourceRecord", "open_source_image", "read_manifest", "sha256_file",
           "verify_manifest", "write_manifest"]
