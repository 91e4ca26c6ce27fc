"""What keeps a hostile client from filling the operator's disk or posing as many users: the app's upload
folder, a sweep of uploads that never became submissions, a disk cap, and which proxy may name the client.

- Uploads land in `<data dir>/uploads` (Gradio's GRADIO_TEMP_DIR, set before the app is built). Gradio keeps
  every POST to /gradio_api/upload there, submitted or not; `UploadSweeper` removes files older than the
  upload time-to-live, and the submit handler removes its upload as soon as the submission is stored (the
  store keeps the one copy: `submissions/<id>/upload.*`).
- Gradio keeps identical bytes at one path (`uploads/<sha256>/<name>`), so two users who upload the same file
  share it: `UploadClaims` records which page sessions hold each upload, and a submission removes the file
  only when no other session still holds it (the sweep removes it once it expires).
- `UploadGuard` (ASGI middleware in front of Gradio) refuses an upload request that has no Content-Length,
  is larger than one upload may be, or would take the upload folder and the submission store over the disk
  cap (HTTP 411 / 413 / 507, with a one-line body).
- `HostGuard` (ASGI middleware) answers only requests whose Host header names the app: its bound address,
  `localhost`, the names the operator gives (`--host-name`, HAZARDKIT_HOST_NAMES) and a Space's own domain
  (SPACE_HOST); any IP address as well when it listens on all interfaces (0.0.0.0 / ::), since a browser
  sends an IP Host only to a page loaded from that address. Anything else is 403: a DNS-rebinding page (a
  hostile domain that resolves to 127.0.0.1) cannot read or drive a server bound to localhost.
- The client address: uvicorn rewrites it from X-Forwarded-For only when the connection comes from an
  address in FORWARDED_ALLOW_IPS, which defaults to localhost (so anyone on the host, or a local tunnel,
  could be any number of users). `trust_proxies` sets it to exactly the proxies the operator names, and to
  none when they name none.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
UPLOADS = "uploads"
UPLOAD_PATH_SUFFIX = "/gradio_api/upload"
MULTIPART_SLACK = 64 * 1024  # a multipart request's headers and boundaries around one file


def folder_bytes(folder: Path) -> int:
    """Bytes of the regular files under `folder` (links not followed; 0 when it does not exist)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                info = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            total += info.st_size
    return total


def sweep(folder: Path, max_age_s: float, now: float | None = None,
          keep: Callable[[], set[str]] | None = None) -> int:
    """Remove files under `folder` not modified for `max_age_s` seconds, then empty folders; returns the count.
    `keep` names files to leave (Gradio's own cache copies of the page's plots share the folder)."""
    now = time.time() if now is None else now
    removed = 0
    if not folder.is_dir():
        return 0
    kept = {os.path.realpath(p) for p in (keep() if keep else ())}
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            path = os.path.join(root, name)
            if kept and os.path.realpath(path) in kept:
                continue
            try:
                if now - os.lstat(path).st_mtime > max_age_s:
                    os.unlink(path)
                    removed += 1
            except OSError:
                continue
        for name in dirs:
            with contextlib.suppress(OSError):
                os.rmdir(os.path.join(root, name))  # only when empty
    return removed


def discard_upload(path: str | Path | None, folder: Path) -> None:
    """Remove an uploaded file once its submission is stored or refused, and its folder when empty; never a
    path outside the upload folder."""
    if not path:
        return
    try:
        target = Path(path).resolve()
        root = folder.resolve()
    except OSError:
        return
    if root not in target.parents:
        return
    try:
        target.unlink()
        parent = target.parent
        if parent != root:
            parent.rmdir()
    except OSError:
        pass


class UploadClaims:
    """Which page sessions hold each uploaded file (one path for identical bytes): a file is removed after a
    submission only when its last holder has submitted, cleared it or left."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders: dict[str, set[str]] = {}

    @staticmethod
    def _key(path: str | Path) -> str:
        return os.path.realpath(str(path))

    def claim(self, path: str | Path | None, session: str | None) -> None:
        if path and session:
            with self._lock:
                self._holders.setdefault(self._key(path), set()).add(session)

    def release(self, path: str | Path | None, session: str | None) -> bool:
        """Drop `session`'s hold on `path`; True when nobody else holds it (the file may go)."""
        if not path:
            return False
        key = self._key(path)
        with self._lock:
            holders = self._holders.get(key, set())
            holders.discard(session or "")
            if holders:
                return False
            self._holders.pop(key, None)
            return True

    def release_all(self, session: str | None) -> list[str]:
        """Drop every hold of a session that left; the paths nobody holds any more."""
        freed = []
        with self._lock:
            for key, holders in list(self._holders.items()):
                if session in holders:
                    holders.discard(session)
                    if not holders:
                        del self._holders[key]
                        freed.append(key)
        return freed

    def held(self, path: str | Path) -> bool:
        with self._lock:
            return bool(self._holders.get(self._key(path)))


class UploadSweeper:
    """A daemon thread that sweeps the upload folder every `every_s` seconds."""

    def __init__(self, folder: Path, max_age_s: float, every_s: float | None = None,
                 keep: Callable[[], set[str]] | None = None) -> None:
        self.folder = folder
        self.keep = keep
        self.max_age_s = max_age_s
        self.every_s = every_s if every_s is not None else max(1.0, min(60.0, max_age_s / 4))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> UploadSweeper:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="upload-sweeper", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                removed = sweep(self.folder, self.max_age_s, keep=self.keep)
                if removed:
                    log.info("removed %d upload(s) that did not become submissions", removed)
            except Exception:  # a sweep must never stop: log and try again next round
                log.exception("upload sweep failed")


class UploadGuard:
    """ASGI middleware: bounds every POST to Gradio's upload route before Gradio reads its body."""

    def __init__(self, app: Any, *, uploads: Path, store: Path, max_request_bytes: int, disk_cap_bytes: int | None,
                 max_age_s: float) -> None:
        self.app = app
        self.uploads = uploads
        self.store = store
        self.max_request_bytes = max_request_bytes
        self.disk_cap_bytes = disk_cap_bytes
        self.max_age_s = max_age_s

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") == "POST" and \
                str(scope.get("path", "")).rstrip("/").endswith(UPLOAD_PATH_SUFFIX):
            problem = self.problem(dict(scope.get("headers") or []).get(b"content-length"))
            if problem is not None:
                status, text = problem
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
                await send({"type": "http.response.body", "body": text.encode()})
                return
        await self.app(scope, receive, send)

    def problem(self, content_length: bytes | None) -> tuple[int, str] | None:
        """(HTTP status, one line) when an upload request of this length is refused, else None."""
        from eval_kit.leaderboard.space.uploads import human_size

        try:
            length = int(content_length) if content_length is not None else None
        except ValueError:
            length = None
        if length is None or length < 0:
            return 411, "error: an upload needs a Content-Length header"
        if length > self.max_request_bytes:
            return 413, (f"error: upload request of {human_size(length)} is over the "
                         f"{human_size(self.max_request_bytes)} limit")
        if self.disk_cap_bytes is None:
            return None
        used = folder_bytes(self.uploads) + folder_bytes(self.store)
        if used + length > self.disk_cap_bytes:
            sweep(self.uploads, self.max_age_s)  # stale uploads first, then count again
            used = folder_bytes(self.uploads) + folder_bytes(self.store)
        if used + length > self.disk_cap_bytes:
            log.warning("upload refused: the disk cap of %s is reached", human_size(self.disk_cap_bytes))
            return 507, "error: the leaderboard's storage is full; try again later (the operator is told)"
        return None


WILDCARDS = ("0.0.0.0", "::", "")


def allowed_hosts(bound: str | None, names: Iterable[str] = ()) -> frozenset[str]:
    """The Host names (lower-case, no port) a server bound to `bound` answers to, besides `names`."""
    bound = (bound or "127.0.0.1").strip().lower().strip("[]")
    found = {"localhost", bound, *(n.strip().lower().rstrip(".").strip("[]") for n in names if n and n.strip())}
    if bound in ("127.0.0.1", "localhost"):
        found |= {"127.0.0.1", "localhost"}
    if bound in ("::1",):
        found |= {"::1", "localhost"}
    return frozenset(found)


def host_of(header: bytes | None) -> str | None:
    """The host part of a Host header, lower-case, without the port or IPv6 brackets (None: absent)."""
    if not header:
        return None
    text = header.decode("latin-1").strip().lower()
    if text.startswith("["):
        return text[1:].partition("]")[0]
    return text.rpartition(":")[0] if text.count(":") == 1 else text


def _is_ip(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class HostGuard:
    """ASGI middleware: refuses (403, one line) every HTTP or WebSocket request whose Host is not one of `hosts`
    (or, when `any_ip`, an IP address)."""

    def __init__(self, app: Any, *, hosts: frozenset[str], any_ip: bool = False) -> None:
        self.app = app
        self.hosts = hosts
        self.any_ip = any_ip

    def allows(self, header: bytes | None) -> bool:
        host = host_of(header)
        if host is None:
            return False
        host = host.rstrip(".")
        return host in self.hosts or (self.any_ip and _is_ip(host))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        header = dict(scope.get("headers") or []).get(b"host")
        if scope.get("type") in ("http", "websocket") and not self.allows(header):
            shown = (header or b"").decode("latin-1")[:80]
            log.warning("refused a request for Host %r (not one this app answers to)", shown)
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            text = (f"error: this server does not answer to Host {shown!r}; the operator adds a name with "
                    "`hazardkit leaderboard serve --host-name NAME` (or HAZARDKIT_HOST_NAMES)\n")
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
            await send({"type": "http.response.body", "body": text.encode()})
            return
        await self.app(scope, receive, send)


def trust_proxies(proxies: Iterable[str]) -> None:
    """Honour X-Forwarded-For only from `proxies` (IPs or networks): uvicorn reads FORWARDED_ALLOW_IPS when the
    server starts. With none named, no address is trusted (a value no client address can equal)."""
    names = [p.strip() for p in proxies if p and p.strip()]
    os.environ["FORWARDED_ALLOW_IPS"] = ",".join(names) if names else "none"
