"""What a leaderboard row was measured on: benchmark, dataset config, dataset version and revision.

A score means little without the data it was computed on, so every row of the results table carries them
and the page shows them. Results from demo or synthetic data are marked `synthetic` and ranked apart from
results on real configs. Names that end up in file names (benchmark, config) must match `NAME_PATTERN`:
output paths are built only from such validated names, never from free text in a results file.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

# benchmark and config names: letters, digits, `_` and `-`, starting with a letter or digit, at most 64
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
# a config whose name says it is not the benchmark's real data
SYNTHETIC_CONFIG = re.compile(r"(^|[_-])(demo|synthetic|toy|smoke)([_-]|$)", re.I)
SYNTHETIC_ID_PREFIXES = ("synthetic-",)
MAX_TEXT = 200  # longest model / run / backend / link / version / revision kept in a row
DEFAULT_CONFIG = "default"
RELEASE_MANIFEST = "release-manifest.json"  # written by `hazardkit publish` beside the dataset's data/


def checked_name(value: Any, field: str, source: str | Path | None = None) -> str:
    """`value` when it is a safe name (NAME_PATTERN), else BadInput: it may become part of a file name."""
    if not isinstance(value, str) or not NAME_PATTERN.fullmatch(value):
        shown = repr(value)[:40] + ("..." if len(repr(value)) > 40 else "")
        raise BadInput(f"{shown} is not a valid {field} name", path=source, field=field,
                       fix="use letters, digits, '_' and '-' (at most 64, no path separators)")
    return value


def checked_text(value: Any, field: str, source: str | Path | None = None, *, required: bool = False) -> str | None:
    """A short single-line string (or None when absent and not required); anything else is BadInput."""
    if value is None or value == "":
        if required:
            raise BadInput(f"no {field}", path=source, field=field)
        return None
    if not isinstance(value, str):
        raise BadInput(f"'{field}' must be a string, got {type(value).__name__}", path=source, field=field)
    if len(value) > MAX_TEXT:
        raise BadInput(f"'{field}' is {len(value)} characters long (at most {MAX_TEXT})", path=source, field=field)
    bad = unsafe_character(value)
    if bad is not None:
        raise BadInput(f"'{field}' contains control characters ({bad})", path=source, field=field,
                       fix="use a single line of plain text: no control, bidi or line-separator characters")
    return value


# Unicode categories a name must not hold: Cc (C0 and C1 controls, e.g. U+009B, the terminal's CSI), Cf
# (format characters, among them the bidi overrides and isolates U+202A-U+202E, U+2066-U+2069, and zero-width
# characters), Zl / Zp (U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR), Cs (lone surrogates), Co
# (private use) and Cn (unassigned). Each can rewrite what an operator's terminal or a page shows.
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def unsafe_character(value: str) -> str | None:
    """The first character of `value` that may not appear in a name ("U+202E at character 3"), else None."""
    import unicodedata

    for i, c in enumerate(value, start=1):
        if unicodedata.category(c) in UNSAFE_CATEGORIES:
            return f"U+{ord(c):04X} at character {i}"
    return None


def checked_fraction(value: Any, field: str, source: str | Path | None = None) -> float | None:
    """A finite number (or None); booleans, strings, NaN and infinities are BadInput."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadInput(f"'{field}' is not a finite number ({str(value)[:30]!r})", path=source, field=field,
                       fix="pass the --json output of `hazardkit score`")
    return float(value)


def checked_ci(value: Any, field: str, source: str | Path | None = None) -> tuple[float | None, float | None]:
    """[low, high] of finite numbers with low <= high, or absent; anything else is BadInput."""
    if value is None:
        return None, None
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise BadInput(f"'{field}' must be a list [low, high], got {str(value)[:30]!r}", path=source, field=field,
                       fix="pass the --json output of `hazardkit score`")
    if value[0] is None and value[1] is None:
        return None, None
    low, high = (checked_fraction(v, field, source) for v in value)
    if low is None or high is None or low > high:
        raise BadInput(f"'{field}' must be [low, high] with low <= high", path=source, field=field)
    return low, high


def is_synthetic(config: str | None, result: dict[str, Any], data: str | Path | None = None) -> bool:
    """Whether the result was measured on demo or synthetic data: the config's name, the reference file's
    name (`demo.jsonl`), the result's own `synthetic` flag, or sample ids that say so (the kit's synthetic
    references start with `synthetic-`)."""
    if result.get("synthetic") is True or (config and SYNTHETIC_CONFIG.search(config)):
        return True
    if data and any(SYNTHETIC_CONFIG.search(part) for part in (Path(data).stem, Path(data).name)):
        return True
    per = result.get("per_sample")
    ids = per.get("id") if isinstance(per, dict) else None
    return bool(isinstance(ids, list) and ids and isinstance(ids[0], str)
                and any(isinstance(i, str) and i.startswith(SYNTHETIC_ID_PREFIXES) for i in ids))


def dataset_version(data: str | Path | None) -> str | None:
    """The release version of a published dataset folder (its release manifest), None for local data."""
    if not data:
        return None
    path = Path(data)
    for folder in [path, *path.parents][:5]:
        manifest = folder / RELEASE_MANIFEST
        if manifest.is_file() and manifest.stat().st_size < 10_000_000:
            try:
                version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
            except (ValueError, UnicodeDecodeError, AttributeError, RecursionError):
                return None
            return version if isinstance(version, str) and len(version) <= MAX_TEXT else None
    return None


def config_of(data: str | Path | None) -> str | None:
    """The config of a reference path: `.../data/<config>/x.parquet`, or a dataset folder with one config."""
    if not data:
        return None
    path = Path(data)
    if path.is_file() and path.parent.parent.name == "data":
        return path.parent.name
    if path.is_dir() and path.parent.name == "data":
        return path.name
    configs = sorted(p.name for p in (path / "data").iterdir() if p.is_dir()) if (path / "data").is_dir() else []
    return configs[0] if len(configs) == 1 else None


def _run_identity(source: Path) -> dict[str, Any]:
    """The identity of the `hazardkit eval` run folder a scores.json sits in (empty when not a run folder)."""
    run_file = source.parent / "run.json"
    if not run_file.is_file() or run_file.stat().st_size > 10_000_000:
        return {}
    try:
        info = json.loads(run_file.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    identity = info.get("identity") if isinstance(info, dict) else None
    if not isinstance(identity, dict):
        return {}
    return {**identity, "data": info.get("data")}


def provenance(result: dict[str, Any], source: str | Path, *, config: str | None = None,
               version: str | None = None, revision: str | None = None) -> dict[str, Any]:
    """config, dataset_version, dataset_revision and synthetic of a scored result.

    Taken from (first found): the explicit arguments, the result's own fields, the `run.json` of the run
    folder the result file sits in, and the reference data the result names (its config folder, release
    manifest, and the content revision the benchmark's task computes). A result whose config or revision
    cannot be found is bad input: a row without them would hide what it was measured on.
    """
    source = Path(source)
    identity = {} if (config and revision) else _run_identity(source)
    data = result.get("references") or result.get("samples") or identity.get("data")
    config = config or result.get("config") or identity.get("config") or config_of(data if isinstance(data, str)
                                                                                    else None)
    if config is None and (identity or isinstance(data, str)):
        config = DEFAULT_CONFIG  # a dataset without named configs (one file, one folder): `datasets`' name
    revision = revision or result.get("dataset_revision") or identity.get("dataset_revision")
    if revision is None and isinstance(data, str) and Path(data).exists():
        revision = _content_revision(result.get("benchmark"), data, config)
    version = version or result.get("dataset_version") or dataset_version(data if isinstance(data, str) else None)
    if config is None:
        raise BadInput("result names no dataset config", path=source, field="config",
                       fix="pass --config NAME (or add a run folder's scores.json)")
    checked_name(config, "config", source)
    if revision is None:
        raise BadInput("result names no dataset revision", path=source, field="dataset_revision",
                       fix="pass --dataset-revision REV (or add a run folder's scores.json)")
    return {"config": config, "dataset_version": checked_text(version, "dataset_version", source),
            "dataset_revision": checked_text(revision, "dataset_revision", source, required=True),
            "synthetic": is_synthetic(config, result, data if isinstance(data, str) else None)}


def _content_revision(benchmark: Any, data: str, config: str | None) -> str | None:
    """The revision the benchmark's task computes for reference data (None when it cannot)."""
    from eval_kit import registry

    bench = registry.find(benchmark) if isinstance(benchmark, str) else None
    if bench is None:
        return None
    try:
        return registry.make_task(bench.name, data=data, config=config).dataset_revision
    except (BadInput, OSError):
        return None
