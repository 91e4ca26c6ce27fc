"""Croissant 1.0 metadata (`croissant.json`): the files with their sha256 and one record set per config.

Each Parquet shard is a `cr:FileObject` (relative `contentUrl`, size, sha256); each config is a
`cr:FileSet` (`includes: data/<config>/*.parquet`) whose fields come from the `datasets.Features`.
Relative URLs resolve against the folder holding `croissant.json`, so `mlcroissant` can read the
records of a local copy, and the same file describes the Hub repo once uploaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builder.publish.publishers import Publisher
from builder.publish.shards import config_shards, published_configs, sha256_file

CROISSANT_FILENAME = "croissant.json"

CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
PARQUET = "application/x-parquet"
JSONL = "application/jsonlines"
ATTACHMENTS_DIR = "manifests"


def _list_item(feature: Any) -> Any | None:
    """The item feature of a list feature (`List`, `Sequence`, `LargeList`, `[feature]`), else None."""
    import datasets

    if isinstance(feature, (datasets.Sequence, datasets.List, datasets.LargeList)):
        return feature.feature
    if isinstance(feature, list) and len(feature) == 1:
        return feature[0]
    return None


def _data_type(feature: Any) -> tuple[str, str]:
    """(Croissant dataType, description suffix) for a datasets feature (a list: its item's type)."""
    import datasets

    inner = _list_item(feature)
    if inner is not None:
        data_type, note = _data_type(inner)
        return data_type, f" A list of values.{note}"

    if isinstance(feature, datasets.ClassLabel):
        names = ", ".join(f"{i}={n}" for i, n in enumerate(feature.names))
        return "sc:Integer", f" Class label index: {names}."
    if isinstance(feature, datasets.Image):
        return "sc:ImageObject", " Encoded image bytes (the `bytes` of the Parquet image struct)."
    if isinstance(feature, datasets.Value):
        dtype = feature.dtype
        if dtype.startswith(("int", "uint")):
            return "sc:Integer", ""
        if dtype.startswith("float"):
            return "sc:Float", ""
        if dtype == "bool":
            return "sc:Boolean", ""
        return "sc:Text", ""
    return "sc:Text", ""


def build_croissant(repo_dir: str | Path, publisher: Publisher, *, version: str, repo_id: str | None,
                    hashes: dict[str, str] | None = None, date: str | None = None) -> dict[str, Any]:
    """The Croissant JSON-LD document for the configs on disk (`hashes`: relative path -> sha256, if known)."""
    repo_dir = Path(repo_dir)
    hashes = dict(hashes or {})
    features = publisher.features()
    url = f"https://huggingface.co/datasets/{repo_id}" if repo_id else f"https://huggingface.co/datasets/{publisher.name}"
    distribution: list[dict[str, Any]] = []
    record_sets: list[dict[str, Any]] = []
    for config in published_configs(repo_dir, publisher.local_configs):
        set_id = f"parquet-files-{config}"
        for file in config_shards(repo_dir, config):
            rel = file.relative_to(repo_dir).as_posix()
            distribution.append({
                "@type": "cr:FileObject", "@id": rel, "name": rel, "contentUrl": rel,
                "contentSize": f"{file.stat().st_size} B", "encodingFormat": PARQUET,
                "sha256": hashes.get(rel) or sha256_file(file),
            })
        distribution.append({
            "@type": "cr:FileSet", "@id": set_id, "name": set_id,
            "description": f"The Parquet shards of config {config!r}.",
            "encodingFormat": PARQUET, "includes": f"data/{config}/*.parquet",
        })
        fields = []
        for name, feature in features.items():
            data_type, note = _data_type(feature)
            field: dict[str, Any] = {
                "@type": "cr:Field", "@id": f"{config}/{name}", "name": f"{config}/{name}",
                "description": f"Column `{name}`.{note}", "dataType": data_type,
                "source": {"fileSet": {"@id": set_id}, "extract": {"column": name}},
            }
            if data_type == "sc:ImageObject":
                field["source"]["transform"] = {"jsonPath": "bytes"}
            if _list_item(feature) is not None:
                field["repeated"] = True
            fields.append(field)
        record_sets.append({
            "@type": "cr:RecordSet", "@id": config, "name": config,
            "description": f"{publisher.pretty_name}, config {config!r}, split test."
            + (" Demo data, not the benchmark." if config in publisher.demo_configs else ""),
            "key": {"@id": f"{config}/id"},
            "field": fields,
        })
    attached = repo_dir / ATTACHMENTS_DIR
    for file in sorted(attached.rglob("*.jsonl")) if attached.is_dir() else []:
        rel = file.relative_to(repo_dir).as_posix()
        distribution.append({
            "@type": "cr:FileObject", "@id": rel, "name": rel, "contentUrl": rel,
            "description": "Attached to the data: " + publisher.extra.get("attachment_description", rel),
            "contentSize": f"{file.stat().st_size} B", "encodingFormat": JSONL,
            "sha256": hashes.get(rel) or sha256_file(file),
        })
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": publisher.name,
        "alternateName": [publisher.pretty_name],
        "description": publisher.summary,
        "license": list(publisher.licence_urls) or publisher.licence,
        "url": url,
        "version": version,
        **({"datePublished": date} if date else {}),
        "citeAs": publisher.citation,
        "keywords": list(publisher.tags),
        "distribution": distribution,
        "recordSet": record_sets,
    }


def structural_problems(doc: dict[str, Any]) -> list[str]:
    """Checks of the JSON-LD structure that hold without mlcroissant (ids resolve, hashes present)."""
    problems = []
    if doc.get("conformsTo") != "http://mlcommons.org/croissant/1.0":
        problems.append("conformsTo is not Croissant 1.0")
    for key in ("@context", "name", "description", "license", "url", "distribution", "recordSet"):
        if not doc.get(key):
            problems.append(f"missing {key}")
    ids = {d.get("@id") for d in doc.get("distribution", [])}
    for d in doc.get("distribution", []):
        if d.get("@type") == "cr:FileObject" and not d.get("sha256"):
            problems.append(f"{d.get('@id')}: FileObject without sha256")
    for rs in doc.get("recordSet", []):
        for f in rs.get("field", []):
            src = f.get("source", {})
            ref = (src.get("fileSet") or src.get("fileObject") or {}).get("@id")
            if ref not in ids:
                problems.append(f"{f.get('@id')}: source {ref!r} is not in the distribution")
    return problems
