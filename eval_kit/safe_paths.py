"""Where a dataset may point: a file named by a record must lie inside the folders it is allowed to read.

One check for the whole project. Publish uses it so a record cannot smuggle `/etc/passwd` or `../../x` into a
shard; eval uses it so an image cell cannot make the runner read a local file and send its bytes to a model
server. Symbolic links are resolved first, so a link inside the dataset that points outside is refused too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from eval_kit.errors import BadInput


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
