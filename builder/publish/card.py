"""The dataset card: a YAML header built with `datasets`' own writers plus a jinja2 body from measured stats.

The header's `configs` and `dataset_info` are written by `datasets.utils.metadata.MetadataConfigs` and
`datasets.info.DatasetInfosDict` (what `push_to_hub` uses), so `load_dataset(folder, config)` reads them
exactly as it reads cards on the Hub. `check_card` re-reads the card with `huggingface_hub.DatasetCard`
and compares it with what was meant, file by file and feature by feature: a release refuses to go out
when it finds a problem.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.publish.publishers import Publisher
from builder.publish.shards import SPLIT, config_shards, published_configs
from builder.publish.stats import ConfigStats, size_category

CARD_FILENAME = "README.md"
ASSETS_DIR = "assets"


def figure_path(config: str) -> str:
    return f"{ASSETS_DIR}/samples_{config}.png"


def _human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _feature_kind(feature: Any) -> str:
    import datasets

    if isinstance(feature, datasets.ClassLabel):
        return "class label: " + ", ".join(f"`{n}`" for n in feature.names)
    if isinstance(feature, datasets.Image):
        return "image (encoded bytes; the storage of each config is stated under how the data were built)"
    if isinstance(feature, datasets.Value):
        return feature.dtype
    return type(feature).__name__


def _split_dict(s: ConfigStats):
    from datasets.splits import SplitDict, SplitInfo

    splits = SplitDict()
    splits.add(SplitInfo(name=SPLIT, num_bytes=s.num_bytes, num_examples=s.num_rows))
    return splits


def card_header(publisher: Publisher, stats: list[ConfigStats]) -> dict[str, Any]:
    """The YAML header as a plain dict (what DatasetCardData must give back after a round trip)."""
    import datasets
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    features = publisher.features()
    total = sum(s.num_rows for s in stats if s.config not in publisher.demo_configs) or sum(
        s.num_rows for s in stats)
    data = DatasetCardData(
        license=publisher.licence,
        pretty_name=publisher.pretty_name,
        task_categories=list(publisher.task_categories),
        language=list(publisher.languages),
        size_categories=[size_category(total)],
        tags=list(publisher.tags),
    )
    if publisher.licence_name:
        data["license_name"] = publisher.licence_name
    names = [s.config for s in stats]
    wanted = publisher.default_config or "default"
    default = wanted if wanted in names else None
    configs = {}
    for s in stats:
        entry: dict[str, Any] = {"data_files": [{"split": SPLIT, "path": f"data/{s.config}/{SPLIT}-*"}]}
        if s.config == default:
            entry["default"] = True
        configs[s.config] = entry
    # local-only configs come after the published ones: `datasets` infers the file format from the first
    # config listed, whose files must therefore exist wherever the card is (on the Hub and locally)
    for name, pattern in publisher.local_configs.items():
        configs[name] = {"data_files": [{"split": SPLIT, "path": pattern}]}
    MetadataConfigs(configs).to_dataset_card_data(data)
    # MetadataConfigs sorts by name; put the default first, then the other published configs, then the
    # local-only ones (the first config must have files: see above)
    data["configs"] = sorted(data["configs"], key=lambda c: (
        c["config_name"] in publisher.local_configs, c["config_name"] != default, c["config_name"]))
    infos = {}
    for s in stats:
        infos[s.config] = datasets.DatasetInfo(
            features=features,
            splits=_split_dict(s),
            download_size=s.num_bytes,
            dataset_size=s.num_bytes,
            config_name=s.config,
        )
    DatasetInfosDict(infos).to_dataset_card_data(data)
    return data.to_dict()


def _table(publisher: Publisher, s: ConfigStats) -> dict[str, Any] | None:
    if not publisher.crosstab or not s.crosstab:
        return None
    features = publisher.features()
    row_name, col_name = publisher.crosstab
    row_order = list(getattr(features[row_name], "names", sorted(s.crosstab)))
    col_order = list(getattr(features[col_name], "names", sorted({c for r in s.crosstab.values() for c in r})))
    row_order = [r for r in row_order if r in s.crosstab] + sorted(r for r in s.crosstab if r not in row_order)
    used_cols = {c for r in s.crosstab.values() for c in r}
    if "(none)" in used_cols:  # rows without a value (MovSafeBench: no_edit has no inserted object)
        col_order.append("(none)")
    rows = []
    display = [("no object" if c == "(none)" else c) for c in col_order]
    for r in row_order:
        cells = [s.crosstab[r].get(c, 0) for c in col_order]
        rows.append({"name": r, "cells": cells, "total": sum(cells)})
    col_totals = [sum(row["cells"][i] for row in rows) for i in range(len(col_order))]
    return {"row_name": row_name, "col_name": col_name, "columns": display, "rows": rows,
            "col_totals": col_totals, "total": sum(col_totals)}


@functools.lru_cache(maxsize=1)
def _environment():
    """One jinja2 environment per process: it caches compiled templates (compiling the card template
    costs more than rendering it)."""
    try:
        import jinja2
    except ImportError:  # pragma: no cover - jinja2 comes with the `publish` extra
        from eval_kit.errors import BadInput

        raise BadInput("jinja2 is not installed", fix='pip install -e ".[publish]"') from None
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(_package_template),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False,
    )


def _package_template(name: str):
    """`package:file` -> (source, filename, uptodate) from the package's data (works from a wheel)."""
    from importlib import resources

    package, _, file = name.partition(":")
    if not file:
        return None
    source = resources.files(package).joinpath(file)
    if not source.is_file():
        return None
    return source.read_text(encoding="utf-8"), str(source), lambda: True


def card_template(publisher: Publisher):
    """The publisher's card template, compiled (jinja2 reloads it when the file changes)."""
    return _environment().get_template(publisher.template)


def _sources(publisher: Publisher, s: ConfigStats, facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Per source of the config: counts measured from the shards, and the licence as given (the publisher's
    own text for the sources it knows, else what the maintainer stated with --source-licence)."""
    known = {d.id: d for d in publisher.sources if d.id}
    given = facts.get("source_licences") or {}
    names = publisher.extra.get("source_names", {})
    out = []
    for name, info in s.sources.items():
        scenarios = info.get("scenarios", {})
        no_edit = scenarios.get("no_edit", 0)
        if name in given:
            licence, by = given[name], "as stated by the maintainer (--source-licence)"
        elif name in known:
            licence, by = known[name].licence, "this project's record of that source"
        else:
            licence, by = "not stated", "no licence was given for this source (--source-licence)"
        out.append({"id": name, "name": names.get(name, name), "images": info["images"], "rows": info["rows"],
                    "edited": info["rows"] - no_edit, "no_edit": no_edit,
                    "agents": ", ".join(f"{a} ({n})" for a, n in info.get("agents", {}).items()),
                    "licence": licence, "licence_by": by})
    return out


def _acceptance(publisher: Publisher, build: dict[str, Any] | None) -> dict[str, Any] | None:
    """The run's acceptance per scenario x category (accepted / finished jobs) as a table, from build.json."""
    cells = (build or {}).get("acceptance")
    if not isinstance(cells, dict) or not cells:
        return None
    features = publisher.features()
    row_name, col_name = publisher.crosstab or ("scenario", "category")
    order_r = [r for r in getattr(features.get(row_name), "names", sorted(cells)) if r in cells]
    used = {c for v in cells.values() if isinstance(v, dict) for c in v}
    order_c = [c for c in getattr(features.get(col_name), "names", sorted(used)) if c in used]
    rows, totals = [], {"accepted": 0, "finished": 0}
    for r in order_r:
        row_cells, acc, fin = [], 0, 0
        for c in order_c:
            v = cells[r].get(c) if isinstance(cells[r], dict) else None
            if not v:
                row_cells.append("-")
                continue
            a = int(v.get("accepted", 0))
            n = a + int(v.get("rejected", 0)) + int(v.get("failed", 0))
            acc, fin = acc + a, fin + n
            row_cells.append(f"{a}/{n}")
        totals["accepted"] += acc
        totals["finished"] += fin
        rows.append({"name": r, "cells": row_cells, "accepted": acc, "finished": fin,
                     "rate": f"{100 * acc / fin:.1f}%" if fin else "-"})
    rate = f"{100 * totals['accepted'] / totals['finished']:.1f}%" if totals["finished"] else "-"
    return {"columns": order_c, "rows": rows, **totals, "rate": rate}


def _storage(facts: dict[str, Any]) -> dict[str, Any] | None:
    storage = facts.get("storage")
    if not isinstance(storage, dict):
        return None
    groups = []
    for name, g in (storage.get("groups") or {}).items():
        rows = max(1, int(g.get("rows", 0)))
        groups.append({"name": name, "rows": g.get("rows", 0),
                       "formats": ", ".join(f"{f} {n}" for f, n in (g.get("formats") or {}).items()),
                       "reencoded": g.get("reencoded", 0),
                       "bytes_in": _human_size(int(g.get("bytes_in", 0))),
                       "bytes_out": _human_size(int(g.get("bytes_out", 0))),
                       "per_image_in": _human_size(int(g.get("bytes_in", 0)) // rows),
                       "per_image_out": _human_size(int(g.get("bytes_out", 0)) // rows)})
    return {"description": storage.get("description", ""), "storage": storage.get("storage"),
            "max_pixels": f"{int(storage.get('max_pixels', 0)):,}", "groups": groups}


def _environments(build: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The library versions and editor / checker revisions the config's edited rows were built under (from
    build.json's `environments`), as card table rows; an absent library is "absent", an older run's
    unrecorded versions "not recorded"."""
    from builder.library_versions import DISPLAY

    rows = []
    for env in (build or {}).get("environments") or []:
        libraries = env.get("libraries")
        versions = [("not recorded" if not isinstance(libraries, dict) else (libraries.get(name) or "absent"))
                    for name in DISPLAY]
        rows.append({"versions": versions, "rows": env.get("rows", 0),
                     **{k: env.get(k) or "not recorded" for k in ("editor", "editor_revision", "checker",
                                                                   "checker_revision")}})
    return rows


def render_body(publisher: Publisher, stats: list[ConfigStats], *, version: str, repo_id: str | None,
                history: list[dict[str, str]], build_info: dict[str, Any] | None, repo_dir: Path,
                config_facts: dict[str, dict[str, Any]] | None = None) -> str:
    """The Markdown body from the package template, the measured statistics and the release history.

    `config_facts` holds, per config, what its publish recorded about the build (storage of images, the
    build summary of the input, confirmations, licences given); counts always come from the shards."""
    compiled = card_template(publisher)
    configs = []
    special = set(publisher.extra.get("compositor_editors", ()))
    for s in stats:
        fig = figure_path(s.config)
        facts = (config_facts or {}).get(s.config) or {}
        provenance = [{k: (None if v == "(none)" else v) for k, v in p.items()} for p in s.provenance]
        edited_rows = [p for p in provenance if p.get("editor")]
        checkers = sorted({p["checker"] for p in edited_rows if p.get("checker")})
        configs.append({
            "config": s.config, "num_rows": s.num_rows, "files": s.files, "size_text": _human_size(s.num_bytes),
            "is_demo": s.config in publisher.demo_configs, "table": _table(publisher, s), "counts": s.counts,
            "editors": s.editors, "figure": fig if (repo_dir / fig).exists() else None,
            "provenance": edited_rows, "edited_rows": sum(p["rows"] for p in edited_rows),
            "compositor_rows": sum(p["rows"] for p in edited_rows if p.get("editor") in special),
            "checkers": checkers, "sources": _sources(publisher, s, facts),
            "acceptance": _acceptance(publisher, facts.get("build")), "build": facts.get("build") or {},
            "storage": _storage(facts), "confirmed": facts.get("confirmed") or {},
            "environments": _environments(facts.get("build")),
            "notes": facts.get("notes") or "",
        })
    build = {"notes": str((build_info or {}).get("notes") or "")}  # the maintainer's words, marked as such
    features = publisher.features()
    fields = [(name, _feature_kind(feat)) for name, feat in features.items()]
    from eval_kit import registry

    bench = registry.find(publisher.name)
    # the usage lines name the Hub id the release goes to: --repo-id, else the registry's
    hub_id = repo_id or (bench.hub_id if bench else "") or publisher.name
    cli_name = bench.cli_name if bench else publisher.name
    used_sources = sorted({src["id"] for c in configs for src in c["sources"]})
    known_sources = sorted(d.id for d in publisher.sources if d.id)
    return compiled.render(p=publisher, configs=configs, version=version, repo_id=repo_id, history=history,
                           build=build, fields=fields, hub_id=hub_id, cli_name=cli_name,
                           used_sources=used_sources, known_sources=known_sources)


def render_card(publisher: Publisher, stats: list[ConfigStats], **kwargs: Any) -> tuple[str, dict[str, Any]]:
    """(card text, header dict): YAML front matter dumped by huggingface_hub, then the body."""
    from huggingface_hub import DatasetCardData

    header = card_header(publisher, stats)
    yaml_text = DatasetCardData(**header).to_yaml()
    body = render_body(publisher, stats, **kwargs)
    return f"---\n{yaml_text}\n---\n\n{body}", header


@dataclass
class CardProblem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def check_card(repo_dir: str | Path, publisher: Publisher, expected_header: dict[str, Any] | None = None
               ) -> list[CardProblem]:
    """Problems with the card and the Parquet schemas of a repo folder; empty when it may be released."""
    import datasets
    import pyarrow.parquet as pq
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    from eval_kit.parquet import open_parquet

    repo_dir = Path(repo_dir)
    problems: list[CardProblem] = []
    card_path = repo_dir / CARD_FILENAME
    if not card_path.exists():
        return [CardProblem(str(card_path), "no dataset card")]
    try:
        card = DatasetCard.load(card_path)
    except Exception as exc:  # a broken YAML header raises several types
        return [CardProblem(str(card_path), f"card does not load: {exc}")]
    header = card.data.to_dict()
    if expected_header is not None and header != expected_header:
        diff = sorted(k for k in set(header) | set(expected_header) if header.get(k) != expected_header.get(k))
        problems.append(CardProblem(str(card_path), f"YAML header changed in the round trip: {', '.join(diff)}"))
    for key in ("license", "pretty_name", "task_categories", "size_categories", "configs", "dataset_info"):
        if not header.get(key):
            problems.append(CardProblem(str(card_path), f"YAML header lacks `{key}`"))
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    features = publisher.features()
    on_disk = published_configs(repo_dir, publisher.local_configs)
    listed = sorted(c for c in configs if c not in publisher.local_configs)
    if listed != on_disk:
        problems.append(CardProblem(str(card_path), f"configs {listed} != data folders {on_disk}"))
    if configs and next(iter(configs)) not in on_disk:
        problems.append(CardProblem(str(card_path), f"the first config {next(iter(configs))!r} has no files: "
                                    "`datasets` infers the format from it"))
    for config in on_disk:
        files = config_shards(repo_dir, config)
        info = infos.get(config)
        if info is None:
            problems.append(CardProblem(str(card_path), f"no dataset_info for config {config!r}"))
        else:
            if info.features != features:
                problems.append(CardProblem(str(card_path), f"dataset_info features of {config!r} differ from "
                                            f"the {publisher.name} features"))
            rows = sum(open_parquet(f).metadata.num_rows for f in files)
            split = (info.splits or {}).get(SPLIT)
            if split is None or split.num_examples != rows:
                problems.append(CardProblem(str(card_path), f"dataset_info of {config!r} says "
                                            f"{getattr(split, 'num_examples', None)} rows, files hold {rows}"))
        for file in files:
            schema = pq.read_schema(file)
            try:
                file_features = datasets.Features.from_arrow_schema(schema)
            except Exception as exc:
                problems.append(CardProblem(str(file), f"schema has no readable features: {exc}"))
                continue
            if file_features != features or not schema.equals(features.arrow_schema, check_metadata=False):
                problems.append(CardProblem(str(file), f"schema differs from the {publisher.name} features"))
    for link in sorted({figure_path(c) for c in on_disk}):
        if f"]({link})" in card.text and not (repo_dir / link).exists():
            problems.append(CardProblem(str(card_path), f"links {link}, which does not exist"))
    return problems
