"""One publish: rows -> shards (and the figure, drawn alongside) -> card -> Croissant -> release notes ->
manifest -> checks -> plan.

The dataset folder is always rebuilt locally (that is how a dry run shows exactly what would be
uploaded); only `push=True` touches the Hub, and only when every check passed.

Every file of the folder is replaced atomically (written aside, then renamed) but not fsynced: the folder
is a rebuildable output, and on ext4 one fsync makes the publish wait until the disk has the shards
(measured: 0.36 s more for 520 MB). A power cut can leave a torn file; the release manifest's sha256s
catch it, and a push refuses until the folder is published again.
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.library_versions import mixed_environments
from builder.publish import card as card_mod
from builder.publish import release
from builder.publish.croissant import CROISSANT_FILENAME, build_croissant, structural_problems
from builder.publish.guards import image_columns, refuse_image_files, refuse_images_if_annotations_only
from builder.publish.image_check import ImagePolicy, StorageReport, checked_images
from builder.publish.publishers import Publisher, get_publisher, local_paths
from builder.publish.shards import (
    DEFAULT_MAX_SHARD_BYTES,
    ShardInfo,
    config_shards,
    published_configs,
    sha256_file,
    write_config,
)
from builder.publish.stats import measure_config
from builder.publish.transaction import staged_release
from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_bytes, atomic_write_json, atomic_write_text
from eval_kit.safe_paths import refuse_links


@dataclass
class PublishResult:
    repo_dir: Path
    config: str
    version: str
    shards: list[ShardInfo]
    problems: list[str]
    header: dict[str, Any]
    plan: release.PushPlan | None = None
    commit: str | None = None
    ids_changed: bool | None = None  # vs the previous release of this config; None when there was none
    stats: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # one line each, printed by the command


def load_build_info(path: str | Path | None) -> dict[str, Any] | None:
    """The maintainer's notes for the card's "how the data were built": {"notes": "..."}.

    Facts about the build (models, revisions, acceptance rates) are never taken from a hand-written file:
    the card computes them from the rows and from the build summary `forge export` writes (build.json)."""
    if path is None:
        return None
    from eval_kit.strictjson import read_json

    info = read_json(Path(path), max_bytes=2**20)
    if not isinstance(info, dict):
        raise BadInput("expected a JSON object", path=path)
    claimed = sorted(k for k in info if k != "notes")
    if claimed:
        raise BadInput(f"--build-info may hold only `notes`, not {', '.join(claimed)}", path=path, field=claimed[0],
                       fix="models, revisions and acceptance rates are computed from the build: publish the folder "
                           "`hazardkit forge export` wrote (its build.json)")
    if not isinstance(info.get("notes", ""), str):
        raise BadInput("`notes` must be a string", path=path, field="notes")
    return info


def parse_source_licences(items: Iterable[str]) -> dict[str, str]:
    """`--source-licence NAME=TEXT` options as {source: licence text as the maintainer gives it}."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name or not text.strip():
            raise BadInput(f"--source-licence {item!r} is not NAME=TEXT", field="--source-licence",
                           fix='e.g. --source-licence udacity="MIT (https://github.com/udacity/self-driving-car)"')
        if len(text) > 500 or any(ord(c) < 32 for c in text):
            raise BadInput(f"--source-licence {name}: one line of at most 500 characters", field="--source-licence")
        out[name] = text.strip()
    return out


DEMO_WORK_DIR = Path("out") / "demo" / "forge"


def demo_rows(publisher: Publisher) -> Iterable[dict[str, Any]]:
    """Demo rows: from the publisher's bundled demo input, or its demo generator (MovSafeBench: the
    HazardForge demo run on synthetic scenes, kept resumable in out/demo/forge/)."""
    if publisher.demo_input is not None:
        if not publisher.demo_input.exists():
            raise BadInput(f"demo input {publisher.demo_input} not found here", field="--input",
                           fix="run from a hazardkit checkout (its manifests/ folder), or pass --input")
        return publisher.rows_from_input(publisher.demo_input)
    if publisher.demo_rows is not None:
        return publisher.demo_rows(DEMO_WORK_DIR)
    raise BadInput(f"no built-in demo data for {publisher.name}", field="--input", fix="pass --input")


def _rows_from_input(publisher: Publisher, input_path: Path, image_root: str | Path | None):
    """The publisher's rows; `image_root` widens where image files may be read from (default: the input's
    folder), for publishers whose rows carry image paths."""
    if image_root is None:
        return publisher.rows_from_input(input_path)
    if "image_root" not in inspect.signature(publisher.rows_from_input).parameters:
        raise BadInput(f"{publisher.name} rows carry no image paths", field="--image-root", fix="drop --image-root")
    root = Path(image_root)
    if not root.is_dir():
        raise BadInput("not a folder", path=root, field="--image-root")
    return publisher.rows_from_input(input_path, image_root=root)


def _checked_rows(rows: Iterable[dict[str, Any]], publisher: Publisher, config: str,
                  allowed: frozenset[str]) -> Iterator[dict[str, Any]]:
    for row in rows:
        publisher.check_row(config, row, allowed)
        yield row


def _confirmed_rows(rows: Iterable[dict[str, Any]], publisher: Publisher, config: str, confirmed: frozenset[str],
                    used: Counter) -> Iterator[dict[str, Any]]:
    """Count the rows that need an explicit confirmation; outside demo configs refuse one not given."""
    demo = config in publisher.demo_configs
    for row in rows:
        need = publisher.needs_confirmation(config, row)
        if need is not None:
            if not demo and need not in confirmed:
                flag, why = publisher.confirmations[need]
                raise BadInput(f"id {row.get('id')!r}: {why}; config {config!r} is not a demo config",
                               field=flag, fix=f"publish it as --config demo, or pass {flag} to publish it under "
                                               f"{config!r} (recorded in the card)")
            used[need] += 1
        yield row


def publish(
    benchmark: str | Publisher,
    *,
    version: str,
    config: str = "default",
    rows: Iterable[dict[str, Any]] | None = None,
    input_path: str | Path | None = None,
    out: str | Path | None = None,
    repo_id: str | None = None,
    notes: str | None = None,
    date: str | None = None,
    build_info: dict[str, Any] | None = None,
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    allowed_sources: Iterable[str] = (),
    push: bool = False,
    api: Any | None = None,
    progress: bool = False,
    image_root: str | Path | None = None,
    image_policy: ImagePolicy | None = None,
    confirmed: Iterable[str] = (),
    source_licences: dict[str, str] | None = None,
) -> PublishResult:
    """Publish one config of a benchmark into its dataset folder and (with `push`) release it on the Hub.

    Every image is decoded within `image_policy.max_pixels` (bombs and undecodable files are refused naming
    the row) and stored as the policy says; `confirmed` names the explicit confirmations given (e.g.
    "compositor"); `source_licences` the licences the maintainer states for sources the publisher does not
    know. What was stored, confirmed and stated is recorded per config in the release manifest."""
    publisher = benchmark if isinstance(benchmark, Publisher) else get_publisher(benchmark)
    release.parse_version(version)
    release.check_config_name(config)
    if push and not repo_id:
        raise BadInput("--push needs --repo-id", field="--repo-id", fix="pass --repo-id ORG/NAME")
    repo_dir = Path(out) if out is not None else Path(publisher.name)
    refuse_links(repo_dir)  # before reading it: the whole folder is copied, swapped and removed (transaction.py)
    date = date or dt.datetime.now(dt.UTC).date().isoformat()
    if config in publisher.local_configs:
        raise BadInput(f"config {config!r} of {publisher.name} is built locally and never published",
                       field="--config", fix=publisher.extra.get("local_config_fix", "publish another config"))
    features = publisher.features()
    refuse_images_if_annotations_only(publisher.name, features, allows_images=publisher.allows_images)
    local = local_paths(publisher)
    # a stray image Parquet elsewhere in the folder would be uploaded with the release: refuse up front
    replaced = (repo_dir / "data" / config).resolve()
    refuse_image_files(publisher.name, repo_dir, allows_images=publisher.allows_images,
                       files=[f for f in release.release_files(repo_dir, local)
                                                  if not f.resolve().is_relative_to(replaced)])

    previous = release.load_manifest(repo_dir) or {}
    # refuse an out-of-order version before anything on disk changes
    release.updated_history(previous.get("history", []), version, date, "")
    if rows is None and input_path is None and config in publisher.demo_configs and publisher.demo_build:
        input_path = publisher.demo_build(DEMO_WORK_DIR)
    if rows is None:
        if input_path is not None:
            rows = _rows_from_input(publisher, Path(input_path), image_root)
        elif config in publisher.demo_configs:
            rows = demo_rows(publisher)
        else:
            raise BadInput(f"config {config!r} needs an input", field="--input",
                           fix="pass --input (records JSON Lines or a folder with records.jsonl)")
    if publisher.check_row is not None and config not in publisher.demo_configs:
        rows = _checked_rows(rows, publisher, config, frozenset(allowed_sources))
    confirmed = frozenset(confirmed)
    unknown = sorted(confirmed - set(publisher.confirmations))
    if unknown:
        raise BadInput(f"{publisher.name} has no confirmation {unknown[0]!r}", field=f"--allow-{unknown[0]}")
    used: Counter = Counter()
    if publisher.needs_confirmation is not None:
        rows = _confirmed_rows(rows, publisher, config, confirmed, used)
    build = None
    warnings: list[str] = []
    if publisher.build_from_input is not None and input_path is not None:
        build = publisher.build_from_input(Path(input_path))
    mixed = mixed_environments((build or {}).get("environments") or [])
    if mixed:
        warnings.append(f"config {config} mixes rows built under different versions: {mixed} (rebuild the "
                        "rows under one set of versions, or publish them as separate configs)")
    policy = image_policy or ImagePolicy()
    storage = StorageReport(policy)
    if image_columns(features):
        rows = checked_images(rows, policy, storage, image_column=image_columns(features)[0],
                              group=publisher.image_group or (lambda row: "all"),
                              reencode=publisher.reencode_image or (lambda row: False))
    attachments: dict[str, Path] = {}
    if publisher.attachments is not None:
        source = Path(input_path) if input_path is not None else publisher.demo_input
        attachments = publisher.attachments(config, source)  # validated before any shard is written

    # the new release is written into a hard-linked copy of the dataset folder and swapped in at the end with
    # one atomic exchange: a kill at any moment leaves the old or the new release whole (transaction.py)
    with staged_release(repo_dir) as stage:
        # the card template compiles and the figure's thumbnails are decoded in a side thread while the shards
        # are written (pyarrow, file reads, hashing and image decoding release the GIL); the figure lands on
        # disk only after the shards, so a failed publish leaves the old one.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="publish-side") as side:
            side.submit(card_mod.card_template, publisher)
            tap = None
            if image_columns(features) and "scenario" in features:
                from builder.publish.figure import SampleTap

                tap = SampleTap(order=tuple(getattr(features["scenario"], "names", ())),
                                label_names=tuple(getattr(features.get("category"), "names", ())),
                                submit=side.submit)
                rows = tap(rows)
            shards = write_config(rows, features, stage, config, max_shard_bytes=max_shard_bytes,
                                  progress=progress)
            for rel, src in attachments.items():
                atomic_write_text(stage / rel, Path(src).read_text(encoding="utf-8"), durable=False)
            if tap is not None:
                atomic_write_bytes(stage / card_mod.figure_path(config), tap.grid(), durable=False)

        stats = [measure_config(stage, c, crosstab=publisher.crosstab, count_columns=publisher.count_columns,
                                source_columns=publisher.source_columns)
                 for c in published_configs(stage, publisher.local_configs)]
        this = next(s for s in stats if s.config == config)
        notes = notes or f"config `{config}`: {this.num_rows} rows in {len(this.files)} file(s)"
        history = release.updated_history(previous.get("history", []), version, date, notes)
        # what this publish knows about how the config was built; other configs keep what their publish recorded
        facts = {"storage": storage.to_dict() if image_columns(features) else None, "build": build,
                 "confirmed": {name: {"flag": publisher.confirmations[name][0], "rows": n}
                               for name, n in sorted(used.items()) if name in confirmed},
                 "needs_confirmation": dict(sorted(used.items())),
                 "source_licences": dict(sorted((source_licences or {}).items())),
                 "notes": (build_info or {}).get("notes", "")}
        config_facts = {c: (v.get("build_facts") or {}) for c, v in (previous.get("configs") or {}).items()}
        config_facts[config] = facts
        text, header = card_mod.render_card(publisher, stats, version=version, repo_id=repo_id, history=history,
                                            build_info=build_info, repo_dir=stage, config_facts=config_facts)
        atomic_write_text(stage / card_mod.CARD_FILENAME, text, durable=False)

        hashes = {s.path: s.sha256 for s in shards}  # hashed while written; other configs are read once here
        for c in published_configs(stage, publisher.local_configs):
            for f in config_shards(stage, c):
                rel = f.relative_to(stage).as_posix()
                if rel not in hashes:
                    hashes[rel] = sha256_file(f)
        doc = build_croissant(stage, publisher, version=version, repo_id=repo_id, hashes=hashes, date=date)
        atomic_write_json(stage / CROISSANT_FILENAME, doc, durable=False)
        release.write_notes(stage, publisher.pretty_name, history)
        config_ids = {s.config: {"num_rows": s.num_rows, "ids_sha256": s.ids_sha256,
                                 "build_facts": config_facts.get(s.config) or {}} for s in stats}
        release.write_manifest(stage, benchmark=publisher.name, version=version, date=date, repo_id=repo_id,
                               history=history, known_hashes=hashes, configs=config_ids, exclude=local)
        refuse_image_files(publisher.name, stage, release.release_files(stage, local),  # and once more at the end
                           allows_images=publisher.allows_images)

        problems = [str(p) for p in card_mod.check_card(stage, publisher, expected_header=header)]
        problems += [f"{CROISSANT_FILENAME}: {p}" for p in structural_problems(doc)]

    before = (previous.get("configs") or {}).get(config)
    ids_changed = None if before is None else before.get("ids_sha256") != this.ids_sha256
    result = PublishResult(repo_dir=repo_dir, config=config, version=version, shards=shards, problems=problems,
                           header=header, stats={s.config: s.to_dict() for s in stats}, ids_changed=ids_changed,
                           warnings=warnings)
    if repo_id:
        result.plan = release.make_plan(repo_dir, repo_id, version, problems, exclude=local)
    if push:
        result.commit = release.push(result.plan, api=api)
    return result
