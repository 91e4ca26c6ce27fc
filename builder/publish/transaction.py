"""A publish as a transaction: build the new release beside the old one, then swap them in one step.

The new release is written into a stage folder next to the dataset folder
(`.<name>.hazardkit-stage-<pid>-<random hex>`, holding a marker file `.hazardkit-stage`), which starts as a
hard-linked copy of the old release (cheap: no bytes copied; every publish write replaces a file by rename, so
the old release's files are never modified through a link). When everything is written and checked, the stage
and the dataset folder are exchanged with one `renameat2(RENAME_EXCHANGE)` system call: a SIGKILL at any moment
leaves the dataset folder holding either the whole old release or the whole new one, and `load_dataset` loads one
of them. The marker then moves into the old release (now in the stage folder), which is removed.

Where the file system cannot exchange (not Linux, or a file system without RENAME_EXCHANGE) the swap falls
back to two renames, with a window of a few microseconds in which the folder is absent; that is said once
on stderr.

Only our own debris is ever removed: a stage folder of a dead publish is recognised by its name (which no person
would choose) AND the marker inside it. Everything else in and beside the dataset folder, a maintainer's
`.draft.tmp`, `.env.tmp` or `notes~` included, is carried into the new release byte for byte (hard links). A
symbolic link anywhere in the dataset folder is refused before anything is written (`eval_kit.safe_paths`):
the swap moves and removes the whole folder, and would carry out whatever a planted link points at.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import json
import os
import re
import secrets
import shutil
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from eval_kit.errors import BadInput
from eval_kit.folder_lock import folder_lock
from eval_kit.safe_paths import refuse_link, refuse_links, remove_tree

RENAME_EXCHANGE = 2
AT_FDCWD = -100
MARKER = ".hazardkit-stage"  # inside every stage folder, and only there


def _stage_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"^\.{re.escape(name)}\.hazardkit-stage-(?P<pid>\d+)-[0-9a-f]{{16}}$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _marker_of(folder: Path) -> dict | None:
    """The marker a stage folder holds (a regular file, not a link), or None."""
    path = folder / MARKER
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 4096:
            return None
        marker = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def _is_our_stage(entry: Path, name: str) -> bool:
    """A stage of a dead publish of dataset folder `name`: our name pattern, a real folder, and our marker
    naming this folder inside it (or nothing at all inside: killed between creating it and writing the marker)."""
    match = _stage_pattern(name).match(entry.name)
    if not match or int(match["pid"]) == os.getpid() or _alive(int(match["pid"])):
        return False
    if entry.is_symlink() or not entry.is_dir():
        return False
    marker = _marker_of(entry)
    if marker is not None:
        return marker.get("stage") == entry.name and marker.get("dataset") == name
    return not any(entry.iterdir())


def remove_leftovers(repo_dir: Path) -> list[Path]:
    """Remove what killed publishes of `repo_dir` left beside it (their stage folders); nothing else.

    A marker left inside the dataset folder itself (a kill between the swap and handing the marker to the old
    release) is moved back into the stage it names, which is then removed like any other."""
    removed: list[Path] = []
    parent, name = repo_dir.parent, repo_dir.name
    stray = _marker_of(repo_dir) if repo_dir.is_dir() else None
    if stray is not None and stray.get("dataset") == name and isinstance(stray.get("stage"), str):
        stage = parent / stray["stage"]
        if _stage_pattern(name).match(stage.name) and stage.is_dir() and not stage.is_symlink() \
                and not (stage / MARKER).exists():
            os.rename(repo_dir / MARKER, stage / MARKER)
        elif not stage.exists() and _stage_pattern(name).match(stage.name):
            (repo_dir / MARKER).unlink()
    if parent.is_dir():
        for entry in parent.iterdir():
            if _is_our_stage(entry, name):
                remove_tree(entry, parent)
                removed.append(entry)
    return removed


def _new_stage(target: Path) -> Path:
    """Create the stage folder (umask honoured) with its marker inside."""
    stage = target.with_name(f".{target.name}.hazardkit-stage-{os.getpid()}-{secrets.token_hex(8)}")
    stage.mkdir()
    marker = {"dataset": target.name, "stage": stage.name, "pid": os.getpid(),
              "what": "a hazardkit publish in progress; removed by the next publish if this process died"}
    (stage / MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")
    return stage


def _link_copy(src: Path, dst: Path, *, top: bool = True) -> None:
    """Fill the existing folder `dst` with a copy of `src` whose files are hard links to the old release's.

    Every entry is copied (a maintainer's temp-looking files too); a symbolic link is never copied or followed
    (the caller has refused any, and one planted meanwhile is refused here)."""

    def link(source: str, target: str) -> None:
        try:
            os.link(source, target, follow_symlinks=False)
        except OSError:  # a file system without hard links: copy the bytes
            shutil.copy2(source, target, follow_symlinks=False)

    for entry in os.scandir(src):
        if top and entry.name == MARKER:  # a stray marker of ours (see remove_leftovers): never carried on
            continue
        target = dst / entry.name
        if entry.is_symlink():
            refuse_link(entry.path, what="a path in the dataset folder")
        if entry.is_dir(follow_symlinks=False):
            os.mkdir(target)
            _link_copy(Path(entry.path), target, top=False)
            shutil.copystat(entry.path, target, follow_symlinks=False)
        else:
            link(entry.path, str(target))


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths; False when the platform or file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP}:
        return False
    raise OSError(err, f"cannot swap in the new release: {os.strerror(err)}", str(b))


def swap_in(stage: Path, repo_dir: Path) -> None:
    """Make `stage` the dataset folder; afterwards `stage` holds the old release (or nothing)."""
    if not repo_dir.exists():
        os.rename(stage, repo_dir)
        return
    if _exchange(stage, repo_dir):
        return
    print("note: this file system cannot exchange folders atomically; swapping with two renames",
          file=sys.stderr)
    aside = stage.with_name(stage.name + ".old")
    os.rename(repo_dir, aside)
    os.rename(stage, repo_dir)
    os.rename(aside, stage)


@contextmanager
def staged_release(repo_dir: str | Path) -> Iterator[Path]:
    """Yield a stage folder holding a copy of the current release; write the new release there.

    On a normal exit the stage is swapped in and the old release removed; on an exception the stage is
    removed and the dataset folder is left exactly as it was. A symbolic link at the dataset folder or
    anywhere in it is bad input, refused before anything is written.
    """
    target = Path(repo_dir).absolute()
    refuse_links(target)
    if target.exists() and not target.is_dir():
        raise BadInput("the dataset folder is a file", path=repo_dir, fix="pass --out a folder")
    if target == Path.cwd().absolute():
        raise BadInput("cannot publish into the current directory itself", path=repo_dir,
                       fix="pass --out a named dataset folder (e.g. movsafebench)")
    target.parent.mkdir(parents=True, exist_ok=True)
    # one publisher per dataset folder; the lock lives beside the folder, which is swapped as a whole
    with folder_lock(target.parent, f"publish {target.name}", lock_name=f".{target.name}.hazardkit.lock"):
        refuse_links(target)  # again, with the lock held: nothing of ours is writing it now
        remove_leftovers(target)
        stage = _new_stage(target)
        try:
            if target.exists():
                _link_copy(target, stage)
            yield stage
            swap_in(stage, target)
            # the new release holds the marker now: hand it to the old one (removed next), or drop it
            if stage.exists():
                os.rename(target / MARKER, stage / MARKER)
            else:
                (target / MARKER).unlink()
        finally:
            if stage.is_dir() and not stage.is_symlink():
                remove_tree(stage, target.parent)
