"""What the operator of a leaderboard app chooses, read from the environment (a Space's variables and secrets)
or given on the `hazardkit leaderboard serve` command line.

Environment (every one optional):
  HAZARDKIT_SPACE_DIR        folder holding results.parquet and submissions/ (default: ./space_data)
  HAZARDKIT_REFERENCES       per benchmark, `NAME=SOURCE[#CONFIG]`, separated by `;` or newlines; SOURCE is a
                             local dataset folder / Parquet / JSON Lines file, or `hf://datasets/ORG/NAME[@REV]`
                             (downloaded through huggingface_hub and its cache; a private repo needs HF_TOKEN)
  HAZARDKIT_MAX_UPLOAD_MB    largest upload (default 20)
  HAZARDKIT_MAX_ROWS         most lines in a predictions file (default 50000)
  HAZARDKIT_DAILY_LIMIT      submissions per user per 24 hours (default 5)
  HAZARDKIT_SCORE_TIMEOUT    seconds a submission may take to validate and score, in a worker process that
                             is killed past it (default 20; 0: no limit, scored in the app's process)
  HAZARDKIT_MODERATION       1: a scored submission waits as pending until `hazardkit leaderboard approve`
  HAZARDKIT_RESULTS_REPO     ORG/NAME of a Hub dataset repo that also keeps results.parquet (pulled when the
                             folder has none, pushed after every change; needs a write HF_TOKEN)
  HAZARDKIT_TRUSTED_PROXIES  comma-separated IPs / networks of the reverse proxies in front of the app: only a
                             connection from one of them may name the client in X-Forwarded-For (default none:
                             the connection's own address is the user, even from localhost)
  HAZARDKIT_DISK_CAP_MB      most megabytes the upload folder and the stored submissions may hold together;
                             uploads past it are refused (default 2048; 0: no cap)
  HAZARDKIT_UPLOAD_TTL       seconds an upload that did not become a submission is kept (default 600)
  HAZARDKIT_HOST_NAMES       comma-separated host names the app answers to besides its bound address and
                             `localhost` (a domain in front of it; a Space's own domain, SPACE_HOST, is added);
                             a request with any other Host header is refused (DNS rebinding)
  HF_TOKEN                   (secret) token for private reference repos
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from eval_kit.errors import BadInput

HUB_PREFIX = "hf://datasets/"
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}")
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]{0,99}")


@dataclass(frozen=True)
class Reference:
    """Where one benchmark's references come from: a local path, or a Hub dataset repo at a revision."""

    benchmark: str
    source: str
    config: str | None = None
    origin: str = field(default="HAZARDKIT_REFERENCES", compare=False)  # the flag or variable it came from

    @property
    def hub_id(self) -> str | None:
        return self.source[len(HUB_PREFIX):].partition("@")[0] if self.source.startswith(HUB_PREFIX) else None

    @property
    def hub_revision(self) -> str | None:
        if not self.source.startswith(HUB_PREFIX):
            return None
        return self.source[len(HUB_PREFIX):].partition("@")[2] or None

    def local_path(self, token: str | None = None) -> Path:
        """The references on this machine: the path itself, or the Hub repo's snapshot (cached)."""
        if self.hub_id is None:
            path = Path(self.source)
            if not path.exists():
                raise BadInput("references not found", path=path, field=self.origin,
                               fix=f"point {self.benchmark} at a dataset folder or {HUB_PREFIX}ORG/NAME")
            return path
        from eval_kit.hub_data import fetch

        # the same fetch as every `--references` option (offline-aware, one-line errors), plus the release
        # manifest (the dataset version a row shows) and root JSON Lines references
        return fetch(self.hub_id, self.hub_revision, config=self.config, field=self.origin, token=token,
                     extra_patterns=("release-manifest.json", "*.jsonl")).path


def parse_references(text: str, origin: str = "HAZARDKIT_REFERENCES") -> dict[str, Reference]:
    """`movsafebench=./movsafebench#default; bd-hazardvlm=hf://datasets/org/bd@v1.0.0#demo_annotations`;
    `origin`: the flag or variable the text came from, named by every error about it."""
    from eval_kit import registry

    found: dict[str, Reference] = {}
    for item in re.split(r"[;\n]", text or ""):
        item = item.strip()
        if not item:
            continue
        name, sep, source = item.partition("=")
        if not sep or not source.strip():
            raise BadInput(f"{item[:60]!r} is not NAME=SOURCE", field=origin,
                           fix="e.g. movsafebench=./movsafebench#default")
        try:
            bench = registry.get(name.strip())
        except BadInput as exc:
            raise BadInput(exc.detail, field=origin, fix=exc.fix) from None
        source, _, config = source.strip().partition("#")
        if source.startswith(HUB_PREFIX):
            repo, _, revision = source[len(HUB_PREFIX):].partition("@")
            if not _HUB_ID.fullmatch(repo) or (revision and not _REVISION.fullmatch(revision)):
                raise BadInput(f"{source[:80]!r} is not {HUB_PREFIX}ORG/NAME[@REVISION]", field=origin)
        if config:
            from eval_kit.leaderboard.provenance import checked_name

            try:
                checked_name(config, "config")
            except BadInput as exc:
                raise BadInput(exc.detail, field=origin, fix=exc.fix) from None
        found[bench.name] = Reference(bench.name, source, config or None, origin)
    return found


def parse_proxies(text: str | list[str] | tuple[str, ...], field: str = "HAZARDKIT_TRUSTED_PROXIES"
                  ) -> tuple[str, ...]:
    """Trusted proxy addresses or networks (`10.0.0.5, 10.1.0.0/16`); anything else is bad input."""
    import ipaddress

    items = re.split(r"[,\s]+", text) if isinstance(text, str) else [x for t in text for x in re.split(r"[,\s]+", t)]
    found = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        try:
            ipaddress.ip_network(item, strict=False) if "/" in item else ipaddress.ip_address(item)
        except ValueError:
            raise BadInput(f"{item[:60]!r} is not an IP address or network", field=field,
                           fix="e.g. 10.0.0.5 or 10.0.0.0/8 (the proxy's address as the app sees it)") from None
        found.append(item)
    return tuple(found)


def parse_host_names(text: str | list[str] | tuple[str, ...], field: str = "HAZARDKIT_HOST_NAMES"
                     ) -> tuple[str, ...]:
    """Host names (`board.example.org, 10.0.0.5`) the app answers to, lower-case, without a port."""
    items = re.split(r"[,\s]+", text) if isinstance(text, str) else [x for t in text for x in re.split(r"[,\s]+", t)]
    found = []
    for item in (i.strip().lower().rstrip(".") for i in items):
        if not item:
            continue
        if not _HOST_NAME.fullmatch(item):
            raise BadInput(f"{item[:60]!r} is not a host name", field=field,
                           fix="a name without scheme, port or path, e.g. board.example.org")
        found.append(item)
    return tuple(found)


_HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\]")


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        raise BadInput(f"{name}={raw[:20]!r} is not a number", field=name) from None
    if value < 0:
        raise BadInput(f"{name} must not be negative", field=name)
    return value


@dataclass
class SpaceSettings:
    """The operator's choices. `token` is never shown (repr) and never written to disk."""

    data_dir: Path = Path("space_data")
    references: dict[str, Reference] = field(default_factory=dict)
    max_upload_bytes: int = 20 * 1024 * 1024
    max_rows: int = 50_000
    daily_limit: int = 5
    moderation: bool = False
    results_repo: str | None = None
    token: str | None = field(default=None, repr=False)
    title: str = "hazardkit leaderboard"
    n_bootstrap: int = 1000
    score_timeout: float | None = None  # seconds a submission may take to validate and score (None: no limit)
    trusted_proxies: tuple[str, ...] = ()  # addresses whose X-Forwarded-For names the client
    disk_cap_bytes: int | None = 2048 * 1024 * 1024  # uploads + stored submissions (None: no cap)
    upload_ttl_s: float = 600.0  # an upload not submitted within this is removed
    host_names: tuple[str, ...] = ()  # Host headers answered besides the bound address and localhost

    @property
    def uploads(self) -> Path:
        """Where Gradio puts uploads (GRADIO_TEMP_DIR): swept, and emptied by each submission."""
        return self.data_dir / "uploads"

    @property
    def table(self) -> Path:
        return self.data_dir / "results.parquet"

    @property
    def submissions(self) -> Path:
        return self.data_dir / "submissions"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> SpaceSettings:
        env = os.environ if env is None else env
        settings = cls(
            data_dir=Path(env.get("HAZARDKIT_SPACE_DIR") or "space_data"),
            references=parse_references(env.get("HAZARDKIT_REFERENCES", "")),
            max_upload_bytes=int(_number(env, "HAZARDKIT_MAX_UPLOAD_MB", 20) * 1024 * 1024),
            max_rows=int(_number(env, "HAZARDKIT_MAX_ROWS", 50_000)),
            daily_limit=int(_number(env, "HAZARDKIT_DAILY_LIMIT", 5)),
            score_timeout=_number(env, "HAZARDKIT_SCORE_TIMEOUT", 20) or None,
            moderation=(env.get("HAZARDKIT_MODERATION") or "0").strip().lower() in {"1", "true", "yes", "on"},
            results_repo=env.get("HAZARDKIT_RESULTS_REPO") or None,
            token=env.get("HF_TOKEN") or None,
            trusted_proxies=parse_proxies(env.get("HAZARDKIT_TRUSTED_PROXIES", "")),
            disk_cap_bytes=int(_number(env, "HAZARDKIT_DISK_CAP_MB", 2048) * 1024 * 1024) or None,
            upload_ttl_s=_number(env, "HAZARDKIT_UPLOAD_TTL", 600) or 600.0,
            host_names=parse_host_names(env.get("HAZARDKIT_HOST_NAMES", ""))
            + parse_host_names(env.get("SPACE_HOST", ""), field="SPACE_HOST"),
        )
        for key, value in overrides.items():
            if value is not None:
                setattr(settings, key, value)
        if settings.data_dir.exists() and not settings.data_dir.is_dir():
            raise BadInput("the app's data folder is a file", path=settings.data_dir, field="HAZARDKIT_SPACE_DIR")
        if settings.results_repo is not None and not _HUB_ID.fullmatch(settings.results_repo):
            raise BadInput(f"{settings.results_repo[:80]!r} is not ORG/NAME", field="HAZARDKIT_RESULTS_REPO")
        return settings
