"""An advisory lock on a folder, so two hazardkit commands never write the same folder at once.

`with folder_lock(folder, "eval movsafebench"):` takes an exclusive `fcntl.flock` on
`<folder>/.hazardkit.lock` and writes the holder's PID and command into it. A second command on the same
folder gets bad input naming that PID. The kernel drops a flock when its process dies, so a lock file left
behind by a killed process never blocks (it is simply taken over). On release the file is removed; a taker
checks that the file it locked is still the one at the path, so removal cannot let two holders in.
Not re-entrant: a process that locks a folder it already holds is refused like any other.
POSIX only (fcntl); on a file system without flock support (some network mounts) the lock may not hold.
The lock file is never opened through a link: a symbolic link planted at its name (which would make the
command truncate and write the link's target) or a hard link to another file is bad input, not followed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from eval_kit.errors import BadInput

LOCK_NAME = ".hazardkit.lock"


def _holder(fd: int) -> dict:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        return json.loads(os.read(fd, 4096).decode("utf-8") or "{}")
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def folder_lock(folder: Path, command: str, *, lock_name: str = LOCK_NAME) -> Iterator[Path]:
    """Hold `<folder>/<lock_name>` (creating the folder) for the duration of the block; yields its path.

    `lock_name` lets a command lock a sibling of the folder it replaces as a whole (publish swaps the dataset
    folder itself, so its lock lives beside it: `.<name>.hazardkit.lock` in the parent)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / lock_name
    while True:
        fd = open_lock_file(path, folder)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            pid = holder.get("pid", "unknown")
            who = "this process" if pid == os.getpid() else f"process {pid}"
            what = f" (`hazardkit {holder['command']}`)" if holder.get("command") else ""
            raise BadInput(f"{who}{what} is already using this folder", path=folder,
                           fix="wait for it to finish, or use another folder") from None
        try:
            same = os.path.exists(path) and os.stat(path).st_ino == os.fstat(fd).st_ino
        except OSError:
            same = False
        if same:
            break
        os.close(fd)  # the holder we waited on removed the file meanwhile: lock the new one
    try:
        os.ftruncate(fd, 0)
        record = {"pid": os.getpid(), "command": command, "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.pwrite(fd, json.dumps(record).encode("utf-8"), 0)
        yield path
    finally:
        with contextlib.suppress(OSError):
            if os.lstat(path).st_ino == os.fstat(fd).st_ino:  # ours still (never someone else's file)
                os.unlink(path)
        os.close(fd)  # closing drops the flock


def open_lock_file(path: Path, folder: Path) -> int:
    """A lock file's descriptor, created if absent; refused when the name is a link (never written through).

    Every lock file of the kit is opened here (the folder lock, the leaderboard table's lock)."""
    fix = f"remove {path} (hazardkit never makes a link there), or use another folder"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        if os.path.islink(path):
            raise BadInput(f"the lock file {path.name} is a symbolic link",
                           path=folder, fix=fix) from None
        raise BadInput(f"cannot open the lock file ({exc.strerror or exc})", path=path) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        what = "not a regular file" if not stat.S_ISREG(info.st_mode) else "a hard link to another file"
        raise BadInput(f"the lock file {path.name} is {what}", path=folder, fix=fix)
    os.set_blocking(fd, True)
    return fd
