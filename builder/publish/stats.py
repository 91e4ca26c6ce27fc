"""Statistics for the card, measured from the written Parquet shards (never taken from the input's claims)."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.publish.shards import config_shards


@dataclass
class ConfigStats:
    """What one config holds: rows, bytes on disk, value counts per column and a cross-tab."""

    config: str
    num_rows: int
    num_bytes: int
    files: list[str]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    crosstab: dict[str, dict[str, int]] = field(default_factory=dict)  # row value -> column value -> n
    editors: dict[str, int] = field(default_factory=dict)  # "editor @ revision" -> n
    ids_sha256: str = ""  # sha256 of the ids joined by newlines, in file order: tells whether ids changed
    # rows per (editor, editor_revision, checker, checker_revision), as a list of dicts with `rows`
    provenance: list[dict[str, Any]] = field(default_factory=list)
    # source -> {rows, images (distinct source ids), agents {agent: rows}, scenarios {scenario: rows}}
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config, "num_rows": self.num_rows, "num_bytes": self.num_bytes, "files": self.files,
            "counts": self.counts, "crosstab": self.crosstab, "editors": self.editors, "ids_sha256": self.ids_sha256,
            "provenance": self.provenance, "sources": self.sources,
        }


def label_text(value: Any, names: list[str] | tuple[str, ...] | None) -> str:
    """A column value as the card shows it: a ClassLabel index as its name, None as "(none)"."""
    if value is None:
        return "(none)"
    if names and isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    return str(value)


PROVENANCE_COLUMNS = ("editor", "editor_revision", "checker", "checker_revision")


def measure_config(repo_dir: str | Path, config: str, *, crosstab: tuple[str, str] | None = None,
                   count_columns: tuple[str, ...] = (),
                   source_columns: tuple[str, str, str] | None = None) -> ConfigStats:
    """Read the non-image columns of a config's shards and count what the card reports: every number the
    card states about the rows (sources, editors and checkers per row, counts) comes from here."""
    from eval_kit.parquet import class_label_names, open_parquet

    repo_dir = Path(repo_dir)
    files = config_shards(repo_dir, config)
    wanted = (set(count_columns) | set(crosstab or ()) | {"id", *PROVENANCE_COLUMNS} | set(source_columns or ())
              | {"scenario"})
    ids_digest = hashlib.sha256()
    counts: dict[str, Counter] = {c: Counter() for c in count_columns}
    cross: dict[str, Counter] = {}
    editors: Counter = Counter()
    provenance: Counter = Counter()
    source_rows: dict[str, Counter] = {}
    source_ids: dict[str, set] = {}
    source_agents: dict[str, Counter] = {}
    num_rows = 0
    for file in files:
        pf = open_parquet(file)
        names = class_label_names(pf.schema_arrow)
        present = [c for c in pf.schema_arrow.names if c in wanted]
        table = pf.read(columns=present)
        num_rows += table.num_rows
        if "id" in table.column_names:
            for value in table.column("id").to_pylist():
                ids_digest.update(f"{value}\n".encode())
        data = {c: [label_text(v, names.get(c)) for v in table.column(c).to_pylist()] for c in present}
        for c in count_columns:
            if c in data:
                counts[c].update(data[c])
        if crosstab and all(c in data for c in crosstab):
            for r, col in zip(data[crosstab[0]], data[crosstab[1]], strict=True):
                cross.setdefault(r, Counter())[col] += 1
        if "editor" in data:
            revisions = data.get("editor_revision", ["(none)"] * len(data["editor"]))
            for e, rev in zip(data["editor"], revisions, strict=True):
                if e != "(none)":
                    editors[f"{e} @ {rev}"] += 1
        n = table.num_rows
        if any(c in data for c in PROVENANCE_COLUMNS):
            cols = [data.get(c, ["(none)"] * n) for c in PROVENANCE_COLUMNS]
            provenance.update(zip(*cols, strict=True))
        if source_columns and source_columns[0] in data:
            bench, sid, agent = (data.get(c, ["(none)"] * n) for c in source_columns)
            scen = data.get("scenario", ["(none)"] * n)
            for b, i, a, sc in zip(bench, sid, agent, scen, strict=True):
                source_rows.setdefault(b, Counter())[sc] += 1
                source_ids.setdefault(b, set()).add(i)
                source_agents.setdefault(b, Counter())[a] += 1
    return ConfigStats(
        config=config,
        num_rows=num_rows,
        num_bytes=sum(f.stat().st_size for f in files),
        files=[f.relative_to(repo_dir).as_posix() for f in files],
        counts={c: dict(sorted(v.items())) for c, v in counts.items()},
        crosstab={r: dict(v) for r, v in cross.items()},
        editors=dict(sorted(editors.items())),
        ids_sha256=ids_digest.hexdigest(),
        provenance=[{**dict(zip(PROVENANCE_COLUMNS, key, strict=True)), "rows": v}
                    for key, v in sorted(provenance.items())],
        sources={b: {"rows": sum(c.values()), "images": len(source_ids[b]), "scenarios": dict(sorted(c.items())),
                     "agents": dict(sorted(source_agents[b].items()))} for b, c in sorted(source_rows.items())},
    )


def size_category(n: int) -> str:
    """The Hub's `size_categories` bucket for a number of rows."""
    bounds = [(10**3, "n<1K"), (10**4, "1K<n<10K"), (10**5, "10K<n<100K"), (10**6, "100K<n<1M"),
              (10**7, "1M<n<10M"), (10**8, "10M<n<100M"), (10**9, "100M<n<1B"), (10**10, "1B<n<10B"),
              (10**11, "10B<n<100B"), (10**12, "100B<n<1T")]
    for bound, name in bounds:
        if n < bound:
            return name
    return "n>1T"
