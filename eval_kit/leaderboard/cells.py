"""Which results may be compared: the (benchmark, dataset version, config) cells of the leaderboard.

A ranking, a significance test or a plot is only ever computed within one cell. Rows are grouped by
benchmark, then by dataset version (the release version; for unreleased local data, the content revision,
since two local copies with different contents are not the same data), then by config; demo/synthetic rows
of a config are a cell of their own. Versions are listed newest first: releases by their version number,
then unreleased data by when their newest result was added. The page and the app show the newest version
by default and let the reader choose another.

Also here: the kind of model a row is (for the filters), derived from its backend and name only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eval_kit.leaderboard.provenance import checked_name

UNRELEASED = "unreleased"
# model types the filters offer; a row's type comes from its backend (and the kit's baseline names)
MODEL_TYPES = ("open weights", "API", "baseline", "other")
OPEN_WEIGHT_BACKENDS = ("transformers", "vllm", "lmms-eval")
API_BACKENDS = ("openai",)
BASELINE_MODELS = ("random", "majority")  # `-b baseline` models; `fixed:...` plans and answers too


def version_id(row: dict[str, Any]) -> str:
    """The dataset version a row was measured on: its release version, else "unreleased:<revision>"."""
    version = row.get("dataset_version")
    if version:
        return str(version)
    return f"{UNRELEASED}:{row.get('dataset_revision') or 'unknown'}"


def version_label(version: str) -> str:
    """How a version reads on the page: "v1.0.0", "unreleased (sha256:0a1b2c3d…)"."""
    if version.startswith(f"{UNRELEASED}:"):
        revision = version.split(":", 1)[1]
        return f"unreleased ({short_revision(revision)})"
    return version if version[:1] in "vV" else f"v{version}"


def short_revision(revision: str | None, keep: int = 8) -> str:
    """`sha256:` and 8 hex digits of a content revision (the full one stays in the cell's title)."""
    if not revision:
        return "unknown"
    prefix, sep, digest = revision.partition(":")
    if sep and len(digest) > keep + 1:
        return f"{prefix}:{digest[:keep]}…"
    return revision if len(revision) <= 24 else revision[:23] + "…"


def _release_key(version: str) -> tuple:
    """Sort key of a release version: numeric parts compared as numbers ("v0.10.0" after "v0.9.1")."""
    try:
        from packaging.version import Version

        return (0, Version(version.lstrip("vV")), "")
    except Exception:  # not PEP 440: compared as text, after the parseable ones
        return (1, None, version)


def versions(rows: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    """(version id, label, number of results) of the rows' versions, newest first."""
    counts: dict[str, int] = {}
    latest: dict[str, str] = {}
    for r in rows:
        v = version_id(r)
        counts[v] = counts.get(v, 0) + 1
        latest[v] = max(latest.get(v, ""), str(r.get("added_at") or ""))
    releases = [v for v in counts if not v.startswith(f"{UNRELEASED}:")]
    parsed = sorted((v for v in releases if _release_key(v)[0] == 0), key=lambda v: _release_key(v)[1], reverse=True)
    others = sorted((v for v in releases if _release_key(v)[0] == 1), reverse=True)
    local = sorted((v for v in counts if v.startswith(f"{UNRELEASED}:")), key=lambda v: latest[v], reverse=True)
    return [(v, version_label(v), counts[v]) for v in [*parsed, *others, *local]]


def versions_text(found: list[tuple[str, str, int]]) -> str:
    """ "v0.2.0: 1 result; v0.1.0: 3 results" """
    return "; ".join(f"{label}: {n} result{'s' * (n != 1)}" for _, label, n in found)


@dataclass
class Cell:
    """Rows that are ranked together: one benchmark, dataset version and config (demo/synthetic apart)."""

    benchmark: str
    version: str
    config: str | None
    synthetic: bool
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str | None, bool]:
        return self.benchmark, self.version, self.config, self.synthetic

    @property
    def anchor(self) -> str:
        """An id for the page: validated names and the version's safe characters only."""
        safe = "".join(c if c.isalnum() or c in "._-" else "-" for c in self.version)[:80]
        return f"{self.benchmark}-{safe}-{self.config or 'unknown'}" + ("-synthetic" if self.synthetic else "")


def cells(rows: list[dict[str, Any]]) -> list[Cell]:
    """The cells of `rows`, in page order: benchmark, version (newest first), real configs, rows of unknown
    provenance, then demo/synthetic data. Names are checked again (a table may have been edited by hand)."""
    groups: dict[tuple, Cell] = {}
    for r in rows:
        checked_name(r["benchmark"], "benchmark")
        if r.get("config") is not None:
            checked_name(r["config"], "config")
        cell = Cell(r["benchmark"], version_id(r), r.get("config"), bool(r.get("synthetic")))
        groups.setdefault(cell.key, cell).rows.append(r)
    order: dict[str, dict[str, int]] = {}
    for benchmark in {c.benchmark for c in groups.values()}:
        mine = [r for c in groups.values() if c.benchmark == benchmark for r in c.rows]
        order[benchmark] = {v: i for i, (v, _, _) in enumerate(versions(mine))}

    def sort_key(c: Cell) -> tuple:
        return (c.benchmark, order[c.benchmark][c.version], 2 if c.synthetic else int(c.config is None),
                c.config or "")

    return sorted(groups.values(), key=sort_key)


def model_type(row: dict[str, Any]) -> str:
    """One of MODEL_TYPES, from the row's backend and the kit's baseline model names."""
    backend = (row.get("backend") or "").lower()
    model = str(row.get("model") or "")
    if backend == "baseline" or model in BASELINE_MODELS or model.startswith("fixed:"):
        return "baseline"
    if backend in OPEN_WEIGHT_BACKENDS:
        return "open weights"
    if backend in API_BACKENDS:
        return "API"
    return "other"
