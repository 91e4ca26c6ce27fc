"""Versions, the release manifest, the release notes, and the Hub push plan.

A release has a semantic version X.Y.Z (optionally -prerelease). It is recorded three ways: in the
card's changelog, in `CHANGELOG.md` of the dataset folder, and in `release-manifest.json` (version,
date, sha256 and size of every file, the release history). The push plan lists exactly the files
that would be uploaded, their sizes, and the tag `vX.Y.Z`; `push` carries it out with
`huggingface_hub` and refuses when the tag already exists on the Hub.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from builder.publish.shards import sha256_file
from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_json, atomic_write_text

MANIFEST_FILENAME = "release-manifest.json"
NOTES_FILENAME = "CHANGELOG.md"
REPO_TYPE = "dataset"
# matched whole with re.fullmatch (never `^...$`: `$` matches before a trailing newline) and ASCII only (`\d`
# would take other scripts' digits): a version becomes a tag, a file name part and a line of the card
_SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?")
_CONFIG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
MAX_VERSION_CHARS = 64


def parse_version(text: str) -> tuple[int, int, int, str | None]:
    """(major, minor, patch, prerelease) of a semantic version; anything else is bad input."""
    match = _SEMVER.fullmatch(text) if isinstance(text, str) and len(text) <= MAX_VERSION_CHARS else None
    if not match:
        raise BadInput(f"{text!r} is not a semantic version", field="--version",
                       fix="use X.Y.Z or X.Y.Z-prerelease, e.g. 1.0.0 (no spaces, newlines or path characters)")
    major, minor, patch, pre = match.groups()
    return int(major), int(minor), int(patch), pre


def check_config_name(name: str, field: str = "--config") -> str:
    """A config name is a folder name under data/ and a card key: ASCII letters, digits, `_` and `-`, starting
    with a letter or digit, at most 64 characters, matched whole (no newline, dot or path character)."""
    if not isinstance(name, str) or not _CONFIG_NAME.fullmatch(name):
        raise BadInput(f"{name!r} is not a config name", field=field,
                       fix="use ASCII letters, digits, _ or -, starting with a letter or digit (at most 64)")
    return name


def version_key(text: str) -> tuple:
    """Sort key: a prerelease sorts before its release (1.0.0-rc.1 < 1.0.0)."""
    major, minor, patch, pre = parse_version(text)
    return (major, minor, patch, pre is None, pre or "")


def tag_of(version: str) -> str:
    """The Hub tag of a release: `v` and the version, which must be a semantic version."""
    parse_version(version)
    return f"v{version}"


def load_manifest(repo_dir: str | Path) -> dict[str, Any] | None:
    path = Path(repo_dir) / MANIFEST_FILENAME
    if not path.exists():
        return None
    from eval_kit.strictjson import read_json

    try:
        manifest = read_json(path)
    except BadInput as exc:
        raise BadInput(f"release manifest is unreadable ({exc.detail})", path=path,
                       fix="restore it from the Hub repo or delete it to start a new history") from None
    if not isinstance(manifest, dict):
        raise BadInput("release manifest is not a JSON object", path=path,
                       fix="restore it from the Hub repo or delete it to start a new history")
    return manifest


def updated_history(previous: list[dict[str, str]], version: str, date: str, notes: str) -> list[dict[str, str]]:
    """History newest first with this version added; a version older than the newest is bad input.

    Rebuilding the newest version locally (before it is pushed) replaces its entry.
    """
    parse_version(version)
    kept = [r for r in previous if r.get("version") != version]
    if kept:
        newest = max(kept, key=lambda r: version_key(r["version"]))
        if version_key(version) < version_key(newest["version"]):
            raise BadInput(f"version {version} is older than the last release {newest['version']}",
                           field="--version", fix="use a higher version")
    entry = {"version": version, "date": date, "notes": notes}
    return sorted([*kept, entry], key=lambda r: version_key(r["version"]), reverse=True)


def release_notes(pretty_name: str, history: list[dict[str, str]]) -> str:
    lines = [f"# {pretty_name} dataset changelog", "",
             "Each release is tagged `vX.Y.Z` on the Hub repo; load one with `revision=\"vX.Y.Z\"`.", ""]
    for r in history:
        lines += [f"## {r['version']} - {r['date']}", "", f"- {r['notes']}", ""]
    return "\n".join(lines)


def release_files(repo_dir: str | Path, exclude: Iterable[str] = ()) -> list[Path]:
    """Every file of the dataset folder that belongs in the Hub repo (hidden files, temp files, editor backups
    `name~` and the local-only folders `exclude`, e.g. BD-HazardVLM's `reconstructed`, left out)."""
    repo_dir = Path(repo_dir)
    skip = tuple(PurePosixPath(e).parts for e in exclude)
    files = []
    for path in sorted(repo_dir.rglob("*")):
        rel = path.relative_to(repo_dir)
        if not path.is_file() or any(part.startswith(".") for part in rel.parts) or path.suffix == ".tmp" \
                or path.name.endswith("~"):
            continue
        if any(rel.parts[:len(parts)] == parts for parts in skip):
            continue
        files.append(path)
    return files


def write_manifest(repo_dir: str | Path, *, benchmark: str, version: str, date: str, repo_id: str | None,
                   history: list[dict[str, str]], known_hashes: dict[str, str] | None = None,
                   configs: dict[str, dict[str, Any]] | None = None, exclude: Iterable[str] = ()) -> dict[str, Any]:
    """Write `release-manifest.json` with the sha256 and size of every other release file, and per config
    its row count and the sha256 of its ids (so the next release can tell whether ids changed)."""
    repo_dir = Path(repo_dir)
    known = dict(known_hashes or {})
    files = {}
    for path in release_files(repo_dir, exclude):
        rel = path.relative_to(repo_dir).as_posix()
        if rel == MANIFEST_FILENAME:
            continue
        files[rel] = {"sha256": known.get(rel) or sha256_file(path), "size": path.stat().st_size}
    manifest = {"benchmark": benchmark, "version": version, "tag": tag_of(version), "date": date,
                "repo_id": repo_id, "configs": configs or {}, "files": files, "history": history}
    atomic_write_json(repo_dir / MANIFEST_FILENAME, manifest, durable=False)  # see pipeline.py
    return manifest


def write_notes(repo_dir: str | Path, pretty_name: str, history: list[dict[str, str]]) -> None:
    atomic_write_text(Path(repo_dir) / NOTES_FILENAME, release_notes(pretty_name, history), durable=False)


def verify_manifest(repo_dir: str | Path, exclude: Iterable[str] = ()) -> list[str]:
    """Files whose sha256 no longer matches the manifest, or that are missing/unlisted."""
    repo_dir = Path(repo_dir)
    manifest = load_manifest(repo_dir)
    if manifest is None:
        return [f"{MANIFEST_FILENAME} missing"]
    problems = []
    listed = manifest.get("files", {})
    for rel, entry in listed.items():
        path = repo_dir / rel
        if not path.exists():
            problems.append(f"{rel}: listed in the manifest but missing")
        elif sha256_file(path) != entry.get("sha256"):
            problems.append(f"{rel}: sha256 differs from the manifest")
    for path in release_files(repo_dir, exclude):
        rel = path.relative_to(repo_dir).as_posix()
        if rel != MANIFEST_FILENAME and rel not in listed:
            problems.append(f"{rel}: not in the manifest")
    return problems


@dataclass
class PushPlan:
    """What `--push` does: one commit adding these files to the repo, then the tag."""

    repo_id: str
    version: str
    repo_dir: Path
    files: list[tuple[str, int]]  # (path in repo, size in bytes)
    commit_message: str
    problems: list[str] = field(default_factory=list)
    exclude: tuple[str, ...] = ()  # local-only folders, never uploaded

    @property
    def tag(self) -> str:
        return tag_of(self.version)

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self.files)

    def operations(self) -> list[Any]:
        from huggingface_hub import CommitOperationAdd

        return [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=str(self.repo_dir / rel))
                for rel, _ in self.files]

    def render(self) -> str:
        lines = [
            f"push plan for https://huggingface.co/datasets/{self.repo_id} (repo_type=dataset)",
            f"  commit to main: {self.commit_message!r}",
        ]
        for rel, size in self.files:
            lines.append(f"  add {rel} ({size} bytes)")
        lines.append("  delete remote files under data/ that this release does not have (listed at push time)")
        lines.append(f"  tag {self.tag} on that commit")
        lines.append(f"  {len(self.files)} files, {self.total_bytes} bytes in all")
        if self.problems:
            lines.append("  REFUSED: the card or schema check failed:")
            lines += [f"    - {p}" for p in self.problems]
        return "\n".join(lines)


def make_plan(repo_dir: str | Path, repo_id: str, version: str, problems: list[str] | None = None,
              exclude: Iterable[str] = ()) -> PushPlan:
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*", repo_id or "", flags=re.ASCII):
        raise BadInput(f"{repo_id!r} is not a Hub repo id", field="--repo-id", fix="use ORG/NAME")
    repo_dir = Path(repo_dir)
    exclude = tuple(exclude)
    files = [(p.relative_to(repo_dir).as_posix(), p.stat().st_size) for p in release_files(repo_dir, exclude)]
    return PushPlan(repo_id=repo_id, version=version, repo_dir=repo_dir, files=files,
                    commit_message=f"Release {tag_of(version)}", problems=list(problems or []), exclude=exclude)


def existing_tags(api: Any, repo_id: str) -> set[str] | None:
    """Tags of the Hub repo, or None when the repo does not exist yet."""
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        refs = api.list_repo_refs(repo_id, repo_type=REPO_TYPE)
    except RepositoryNotFoundError:
        return None
    return {ref.name for ref in refs.tags}


def push(plan: PushPlan, api: Any | None = None) -> str:
    """Upload the plan as one commit and tag it; returns the commit id. Refuses on problems or an existing tag."""
    from huggingface_hub import CommitOperationDelete, HfApi

    if plan.problems:
        raise BadInput("refusing to push: " + "; ".join(plan.problems), fix="fix the card/schema problems first")
    changed = verify_manifest(plan.repo_dir, plan.exclude)
    if changed:
        raise BadInput("refusing to push: files changed since the release was built: " + "; ".join(changed),
                       path=plan.repo_dir, fix="publish again to rebuild the manifest")
    api = api or HfApi()
    tags = existing_tags(api, plan.repo_id)
    if tags is not None and plan.tag in tags:
        raise BadInput(f"version {plan.version} already exists on {plan.repo_id} (tag {plan.tag})",
                       field="--version", fix="bump the version")
    if tags is None:
        api.create_repo(plan.repo_id, repo_type=REPO_TYPE, exist_ok=True)
        remote: list[str] = []
    else:
        remote = list(api.list_repo_files(plan.repo_id, repo_type=REPO_TYPE))
    local = {rel for rel, _ in plan.files}
    deletions = [CommitOperationDelete(path_in_repo=rel) for rel in sorted(remote)
                 if rel.startswith("data/") and rel not in local]
    info = api.create_commit(plan.repo_id, operations=[*plan.operations(), *deletions],
                             commit_message=plan.commit_message, repo_type=REPO_TYPE)
    commit = getattr(info, "oid", None)
    api.create_tag(plan.repo_id, tag=plan.tag, tag_message=plan.commit_message, revision=commit,
                   repo_type=REPO_TYPE)
    return commit or ""
