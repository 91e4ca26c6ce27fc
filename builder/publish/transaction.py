"""A publish as a transaction: build the new release beside the old one, then swap them in one step.

The new release is written into a stage folder next to the dataset folder (`.<name>.publish-<pid>-<n>`),
which starts as a hard-linked copy of the old release (cheap: no bytes copied; every publish write replaces
a file by rename, so the old release's files are never modified through a link). When everything is written
and checked, the stage and the dataset folder are exchanged with one `renameat2(RENAME_EXCHANGE)` system call:
a SIGKILL at any moment leaves the dataset folder holding either the whole old release or the whole new one,
and `load_dataset` loads one of them. The old release, now in the stage folder, is then removed.

Where the file system cannot exchange (not Linux, or a file system without RENAME_EXCHANGE) the swap falls
back to two renames, with a window of a few microseconds in which the folder is absent; that is said once
on stderr. Stage folders and temp files that a killed publish left behind are removed by the next one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import itertools
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from eval_kit.errors import BadInput
from eval_kit.folder_lock import folder_lock

RENAME_EXCHANGE = 2
AT_FDCWD = -100
_counter = itertools.count()
# what a killed publish (this version or an older one) leaves inside a dataset folder
_LEFTOVER_INSIDE = re.compile(r"^\.(.+)\.(tmp-.+|old-\d+)$|^\..+\.tmp$")


def _stage_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"^\.{re.escape(name)}\.publish-(?P<pid>\d+)-\d+$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(repo_dir: Path) -> list[Path]:
    """Remove stage folders of dead publishes beside `repo_dir` and temp files/folders inside it."""
    removed: list[Path] = []
    parent, name = repo_dir.parent, repo_dir.name
    pattern = _stage_pattern(name)
    if parent.is_dir():
        for entry in parent.iterdir():
            match = pattern.match(entry.name)
            if match and int(match["pid"]) != os.getpid() and not _alive(int(match["pid"])):
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
    for folder in (repo_dir, repo_dir / "data"):
        if not folder.is_dir():
            continue
        for entry in folder.iterdir():
            if _LEFTOVER_INSIDE.match(entry.name):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
                removed.append(entry)
    return removed


def _link_copy(src: Path, dst: Path) -> None:
    """`dst` as a copy of `src` whose files are hard links (symlinks copied as symlinks, leftovers skipped)."""

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if _LEFTOVER_INSIDE.match(n)]

    def link(source: str, target: str) -> None:
        try:
            os.link(source, target, follow_symlinks=False)
        except OSError:  # a file system without hard links: copy the bytes
            shutil.copy2(source, target, follow_symlinks=False)

    shutil.copytree(src, dst, symlinks=True, copy_function=link, ignore=ignore)


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
    removed and the dataset folder is left exactly as it was.
    """
    target = Path(repo_dir).absolute()
    if target.is_symlink():
        target = target.resolve()
    if target.exists() and not target.is_dir():
        raise BadInput("the dataset folder is a file", path=repo_dir, fix="pass --out a folder")
    if target == Path.cwd().absolute():
        raise BadInput("cannot publish into the current directory itself", path=repo_dir,
                       fix="pass --out a named dataset folder (e.g. movsafebench)")
    target.parent.mkdir(parents=True, exist_ok=True)
    # one publisher per dataset folder; the lock lives beside the folder, which is swapped as a whole
    with folder_lock(target.parent, f"publish {target.name}", lock_name=f".{target.name}.hazardkit.lock"):
        remove_leftovers(target)
        stage = target.with_name(f".{target.name}.publish-{os.getpid()}-{next(_counter)}")
        if target.exists():
            _link_copy(target, stage)
        else:
            stage.mkdir()
        try:
            yield stage
            swap_in(stage, target)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
