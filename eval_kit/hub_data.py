"""What `--data` / `--references` / `--samples` may name: a local path, a benchmark name, or a Hub dataset id.

- An existing path is used as it is.
- A benchmark name in either spelling (`bd-hazardvlm`, `bd_hazardvlm`) is that benchmark's LOCAL dataset
  folder (`./bd_hazardvlm`); a bare name never goes to the network.
- `ORG/NAME`, `ORG/NAME@REVISION` or `hf://datasets/ORG/NAME[@REVISION]` is a dataset on the Hugging Face Hub
  (e.g. `hazardkit/movsafebench@v0.1.0`), fetched with `huggingface_hub.snapshot_download` into its usual
  cache (`HF_HUB_CACHE` / `HF_HOME`); with `HF_HUB_OFFLINE=1` only the cache is read. Only the card and the
  requested config's Parquet are fetched. The snapshot folder is a dataset folder (`data/<config>/*.parquet`),
  so everything downstream reads it like a local one.
Anything else (a path that does not exist, say `runs/typo.jsonl`) stays a local path, which its reader then
reports as not found: never a Hub request.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from eval_kit.errors import BadInput

# ORG/NAME[@REVISION]: Hub rules for names (letters, digits, - _ .), a revision may hold slashes (refs/pr/1).
# `hf:/datasets/` too: a command-line option typed as a path (click.Path -> pathlib.Path) folds the `//` of the
# documented `hf://datasets/ORG/NAME` form into one slash before the value reaches here
HUB_ID = re.compile(r"^(?:hf:/{1,2}datasets/)?(?P<repo>[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95})"
                    r"(?:@(?P<revision>[\w./-]{1,200}))?$")
_DATA_SUFFIXES = (".jsonl", ".json", ".ndjson", ".parquet", ".csv", ".txt")
REPO_TYPE = "dataset"


@dataclass(frozen=True)
class HubDataset:
    """A Hub dataset fetched (or found in the cache): where its snapshot lies and what it was."""

    repo_id: str
    revision: str  # as asked (tag, branch or commit)
    commit: str  # the commit the snapshot is (its folder name in the cache)
    path: Path


def parse_hub_id(value: str) -> tuple[str, str | None] | None:
    """(repo id, revision or None) when `value` is written as a Hub dataset id, else None."""
    match = HUB_ID.match(value.strip())
    if not match:
        return None
    repo = match.group("repo")
    if repo.lower().endswith(_DATA_SUFFIXES):
        return None
    return repo, match.group("revision")


def offline() -> bool:
    """`HF_HUB_OFFLINE` (or `HF_DATASETS_OFFLINE`) read now, not at import: only the cache is used."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}:
            return True
    try:
        from huggingface_hub import constants

        return bool(constants.HF_HUB_OFFLINE)
    except ImportError:  # pragma: no cover - huggingface_hub is a core dependency
        return False


def fetch(repo_id: str, revision: str | None = None, *, config: str | None = None, field: str = "--data",
          token: str | None = None, extra_patterns: tuple[str, ...] = ()) -> HubDataset:
    """Snapshot of a Hub dataset (card + one config's data, or all data when no config is named, plus
    `extra_patterns`); `token` for a private repo (default: huggingface_hub's own)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    revision = revision or "main"
    patterns = ["README.md", f"data/{config}/*" if config else "data/**", "manifests/**", *extra_patterns]
    cache_dir = os.environ.get("HF_HUB_CACHE") or None
    local_only = offline()
    where = f"{repo_id}@{revision}"
    try:
        folder = snapshot_download(repo_id, repo_type=REPO_TYPE, revision=revision, allow_patterns=patterns,
                                   cache_dir=cache_dir, local_files_only=local_only, token=token)
    except LocalEntryNotFoundError:
        fix = ("unset HF_HUB_OFFLINE to download it, or fetch it once where the Hub is reachable"
               if local_only else "check your network (or set HF_HUB_OFFLINE=1 to use the cache only)")
        raise BadInput(f"Hub dataset {where} is not in the local Hugging Face cache"
                       f"{' (offline mode)' if local_only else ' and the Hub could not be reached'}",
                       field=field, fix=fix) from None
    except RevisionNotFoundError:
        raise BadInput(f"Hub dataset {repo_id} has no revision {revision!r}", field=field,
                       fix="use a published version tag (e.g. @v0.1.0), a branch or a commit") from None
    except (RepositoryNotFoundError, GatedRepoError):
        raise BadInput(f"Hub dataset {repo_id} not found (or not accessible)", field=field,
                       fix="check the id (ORG/NAME), or log in with `hf auth login` for a private one") from None
    except (EntryNotFoundError, HfHubHTTPError, OSError) as exc:
        raise BadInput(f"could not fetch Hub dataset {where}: {type(exc).__name__}: {str(exc)[:160]}",
                       field=field, fix="retry, or set HF_HUB_OFFLINE=1 to use a cached copy") from None
    path = Path(folder)
    if config and not (path / "data" / config).is_dir():
        have = sorted(p.name for p in (path / "data").iterdir() if p.is_dir()) if (path / "data").is_dir() else []
        raise BadInput(f"Hub dataset {where} has no config {config!r} (have: {', '.join(have) or 'none'})",
                       field="--config", fix="pick one of its configs")
    return HubDataset(repo_id=repo_id, revision=revision, commit=path.name, path=path)


def resolve(value: str | Path, *, config: str | None = None, revision: str | None = None,
            field: str = "--data") -> tuple[Path, HubDataset | None]:
    """(local path, the Hub dataset when it came from the Hub) for a `--data`-style value.

    `revision` applies to a Hub id written without `@REVISION`. See the module docstring for the rules.
    """
    from eval_kit import registry

    text = str(value)
    path = Path(text)
    if path.exists():
        return path, None
    bench = registry.find(text) if "/" not in text and os.sep not in text else None
    if bench is not None:
        folder = Path(bench.dataset_folder or bench.name)
        if folder.exists():
            return folder, None
        raise BadInput(f"{text!r} names the {bench.title} benchmark, but there is no local folder ./{folder}",
                       field=field, fix=f"build it (`make demo-data`), pass a path, or use its Hub id "
                                        f"{bench.hub_id or 'ORG/NAME'} (a name alone never goes to the network)")
    hub = parse_hub_id(text)
    first = Path(text.split("/", 1)[0])
    if hub is None or (first.exists() and not text.startswith("hf:/")):
        return path, None  # a local path that does not exist: the reader reports it, with its own fix
    repo_id, at_revision = hub
    dataset = fetch(repo_id, at_revision or revision, config=config, field=field)
    return dataset.path, dataset
