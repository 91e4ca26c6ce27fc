"""Output folders are never written through a link hazardkit did not make, and nothing outside them is removed.

Why: a dataset folder is often a cloned repository, and a clone can carry a symbolic link (`data -> /home/you`).
A command that creates, replaces, moves or removes `data/<config>/` through such a link writes into, or deletes,
whatever the link points at. hazardkit itself never makes a symbolic link in an output folder, so every command
that writes into a folder (publish, forge run / export, reconstruct, sources scan, saferel generate, leaderboard
render / space) calls `refuse_links` on the paths it is about to write before it writes anything: a link there is
bad input (exit 2, one line naming it), never followed. `remove_tree` is the only way a command removes a folder:
it refuses one that is a link or lies outside the folder the command was given.

A command that writes one file (`sources scan --out m.jsonl`) calls `refuse_link` on it: an atomic write would
replace the link, not write through it, but the link was not ours to replace.
The check is made before the writes, not at each system call: it protects against links that arrive with the
folder (a clone, a copy, a maintainer's mistake), not against another process racing to plant one meanwhile.

It also says where a dataset may point (`resolve_inside`): a file named by a record must lie inside the
folders it may read (publish: no `/etc/passwd` in a shard; eval: no local file sent to a model server).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

from eval_kit.errors import BadInput

LINK_FIX = "hazardkit never makes a link there and never writes through one: replace it with a real folder or " \
           "file, or pass another --out"


def refuse_link(path: str | Path, *, field: str | None = "--out", what: str = "") -> None:
    """BadInput when `path` itself is a symbolic link (a dangling one included)."""
    if os.path.islink(path):
        target = os.readlink(path)
        raise BadInput(f"{what or 'this path'} is a symbolic link (to {target}); refusing to write through it",
                       path=path, field=field, fix=LINK_FIX)


def _walk_entries(folder: Path) -> Iterable[Path]:
    """Every entry below `folder`, links reported and never entered."""
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except (NotADirectoryError, FileNotFoundError):
            continue
        for entry in entries:
            yield Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))


def refuse_links(root: str | Path, *within: str | Path, field: str | None = "--out") -> None:
    """Refuse a symbolic link at `root`, at any existing step from `root` down to each `root/<within>`, and
    anywhere in the tree below each `root/<within>` (below `root` itself when `within` is empty).

    Call it before the first write with every path the command writes, moves or removes (relative to the
    folder it was given). Missing paths are fine: the command creates them as real folders and files."""
    root = Path(root)
    refuse_link(root, field=field, what="the output folder")
    if not root.exists():
        return
    for rel in within or (".",):
        path = root
        for part in Path(rel).parts:
            if part in (".", ""):
                continue
            if part == ".." or Path(part).is_absolute():
                raise BadInput(f"{rel} leaves the output folder", path=root, field=field)
            path = path / part
            refuse_link(path, field=field, what=f"{path.relative_to(root)} in the output folder")
            if not path.exists():
                break
        else:
            if path.is_dir():
                for entry in _walk_entries(path):
                    if entry.is_symlink():
                        refuse_link(entry, field=field, what=f"{entry.relative_to(root)} in the output folder")


def is_inside(path: str | Path, folder: str | Path) -> bool:
    """Whether `path` (its parent's real location plus its own name) lies strictly inside `folder`'s real
    location: `..` and links above the last step are resolved, the last step itself is not followed."""
    path = Path(path).absolute()
    real = path.parent.resolve() / path.name
    base = Path(folder).resolve()
    return real != base and real.is_relative_to(base)


def remove_tree(path: str | Path, inside: str | Path) -> None:
    """Remove the folder `path`, which must be a real folder (not a link) inside `inside`: the only way a
    command removes a folder, so it never removes anything outside the folder it was given."""
    path = Path(path)
    if not is_inside(path, inside):
        raise BadInput(f"refusing to remove {path}: it is not inside {inside}", path=path,
                       fix="this is a bug in hazardkit: please report it")
    refuse_link(path, field=None, what="a folder to remove")
    if path.exists():
        shutil.rmtree(path)  # rmtree never follows links inside the tree; it unlinks them


def resolve_inside(path: str | Path, roots: Sequence[str | Path], *, where: str = "", field: str = "image",
                   what: str | None = None, fix: str | None = None, missing_fix: str | None = None) -> Path:
    """`path` with every link resolved, or BadInput when it is missing or outside every folder of `roots`.

    `roots` empty means no folder is allowed (the path itself is refused). `what` names the allowed folders
    in the message (default: "the dataset folder")."""
    prefix = f"{where}: " if where else ""
    path = Path(path)
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError, ValueError) as exc:  # missing, symlink loop, NUL in the name
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise BadInput(f"{prefix}cannot read image ({reason})", path=path, field=field,
                       fix=missing_fix or "keep the image inside the dataset folder") from None
    if not any(resolved.is_relative_to(Path(r).resolve()) for r in roots):
        name = what or "the dataset folder"
        listed = f" ({', '.join(str(r) for r in roots)})" if roots else ""
        raise BadInput(f"{prefix}image path is outside {name}{listed}", path=path, field=field,
                       fix=fix or "keep the images inside the dataset folder (a relative path), or store their "
                                  "bytes in the cell")
    return resolved
