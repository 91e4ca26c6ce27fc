"""The per-benchmark publisher interface and its registry.

A publisher is a declaration, like a benchmark spec: the repo folder name, the features, how to turn
an input (file or folder) into rows sorted by id, whether images may be published, and what the card
says about the data (licences, sources, citation). The machinery in this package (shards, card,
Croissant, release) is generic over it. Each benchmark's publisher lives in its builder folder
(`builder/<name>/publisher.py`) and is named by its registry entry (`eval_kit.registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput


@dataclass(frozen=True)
class SourceDataset:
    """A dataset our rows derive from, for the card's licence and attribution section."""

    name: str
    url: str
    licence: str
    attribution: str
    note: str = ""
    id: str = ""  # the identifier rows use (MovSafeBench `source_benchmark`), when the source has one


@dataclass
class Publisher:
    """What the generic publishing machinery needs to know about one benchmark."""

    name: str
    pretty_name: str
    summary: str
    features: Callable[[], Any]
    rows_from_input: Callable[[Path], Iterator[dict[str, Any]]]
    allows_images: bool
    licence: str  # the YAML `license` value
    licence_name: str | None = None
    licence_text: str = ""
    licence_urls: tuple[str, ...] = ()  # for Croissant's `license` (URLs of the licences that apply)
    task_categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    languages: tuple[str, ...] = ("en",)
    sources: tuple[SourceDataset, ...] = ()
    citation: str = ""
    intended_use: str = ""
    limitations: tuple[str, ...] = ()
    how_built: str = ""
    # columns whose value counts the card shows (row x column cross-tab first, when both given)
    crosstab: tuple[str, str] | None = None
    count_columns: tuple[str, ...] = ()
    # config names whose data are demo data (never the benchmark); the card says so
    demo_configs: tuple[str, ...] = ("demo",)
    template: str = ""  # the card's jinja2 template as `package:file` (package data beside the publisher)
    # configs built locally next to the published ones and never uploaded (BD-HazardVLM: the reconstructed
    # images): config name -> its data_files pattern in the card's YAML, listed after the published configs
    local_configs: dict[str, str] = field(default_factory=dict)
    # the config marked `default: true` in the card when it is published (None: a config named `default`)
    default_config: str | None = None
    # input used for a demo config when --input is not given (None: a built-in generator, MovSafeBench)
    demo_input: Path | None = None
    # demo_rows(work_dir) -> rows, for a demo config built by a generator instead of read from an input
    demo_rows: Callable[[Path], Iterable[dict[str, Any]]] | None = None
    # demo_build(work_dir) -> an input path for a demo config built by a generator (MovSafeBench: the demo
    # forge run exported); read like any --input, so the demo card states its build like a real one
    demo_build: Callable[[Path], Path] | None = None
    # attachments(config, input_path) -> {path in the repo: source file}: files published beside the
    # shards (BD-HazardVLM: the image manifest); copied before the card, listed in Croissant and the manifest
    attachments: Callable[[str, Path | None], dict[str, Path]] | None = None
    # check_row(config, row, allowed_sources) raises BadInput for a row that may not go into that config
    check_row: Callable[[str, dict[str, Any], frozenset[str]], None] | None = None
    # explicit confirmations a release may need: name -> (the CLI flag that gives it, why a row needs it)
    # (MovSafeBench: "compositor" -> "--allow-compositor"); needs_confirmation(config, row) names the one a row
    # needs (None: none). Outside demo configs a row that needs one not given is refused naming the flag;
    # the ones used are recorded in the release manifest and the card.
    confirmations: dict[str, tuple[str, str]] = field(default_factory=dict)
    needs_confirmation: Callable[[str, dict[str, Any]], str | None] | None = None
    # (benchmark column, source id column, agent column): the card counts rows and distinct source images
    # per source from the shards
    source_columns: tuple[str, str, str] | None = None
    # build_from_input(input_path) -> the build summary published with the input (MovSafeBench: the
    # build.json `forge export` writes beside records.jsonl), or None; recorded in the release manifest
    build_from_input: Callable[[Path], dict[str, Any] | None] | None = None
    # images: the storage group of a row (e.g. edited / no_edit) and whether its image may be re-encoded
    image_group: Callable[[dict[str, Any]], str] | None = None
    reencode_image: Callable[[dict[str, Any]], bool] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def publisher_names() -> list[str]:
    """Benchmarks that have a publisher, by Python spelling."""
    from eval_kit import registry

    return [b.name for b in registry.benchmarks() if b.publisher]


def get_publisher(name: str) -> Publisher:
    """The publisher of a registered benchmark (either spelling); an unknown name is bad input."""
    from eval_kit import registry

    bench = registry.find(name)
    if bench is None or not bench.publisher:
        raise BadInput(f"no publisher for benchmark {name!r}", field="BENCHMARK",
                       fix=f"use one of: {', '.join(publisher_names())}")
    return registry.resolve(bench.publisher)()


def local_paths(publisher: Publisher) -> tuple[str, ...]:
    """Folders of the local-only configs (relative to the dataset folder): never part of a release."""
    return tuple(sorted({pattern.rsplit("/", 1)[0] for pattern in publisher.local_configs.values()}))
