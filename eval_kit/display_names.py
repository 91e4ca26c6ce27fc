"""A model's display name: what metadata, the leaderboard and exports show, and never a local path.

Why: `hazardkit eval --model /home/alice/private-project/internvl3` loads weights from a folder whose path can
carry a user name or a private project. The path is what loads the model (recorded in run.json, never shown);
the display name is `--model-name`, by default the Hub id or, for a local folder, the folder's own name.
The board reduces any absolute or home-relative path still found in a name (an upload made by an older
version, a hand-written result) to its last component, so no path reaches a page, a table or a Markdown file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# an absolute POSIX path, a home-relative path (~ or ~user), a Windows drive or UNC path, or a file: URL;
# starts a name or follows a space or an opening bracket; runs to the next space or closing bracket
_PATH = re.compile(r"(?:^|(?<=[\s(\[{'\"=,;:]))"
                   r"(?:file:/+|~[\w.-]*(?:[/\\]|(?=$|[\s)\]}'\",;]))|[A-Za-z]:[\\/]|\\\\|/(?=[\w.~-]))"
                   r"[^\s)\]}'\",;]*")


def is_local_folder(model: str) -> bool:
    """Whether `--model` names a folder on this machine rather than a Hub id: it exists as a directory, or it
    is written as a path (absolute, home-relative, `./`, `../`)."""
    if not model:
        return False
    if looks_like_path(model) or model.startswith(("./", "../", ".\\", "..\\")) or model in (".", ".."):
        return True
    try:
        return Path(model).expanduser().is_dir()
    except OSError:
        return False


def looks_like_path(text: str) -> bool:
    """Whether `text` holds an absolute or home-relative path anywhere (what a shown name must not)."""
    return bool(_PATH.search(text or ""))


def _last_part(path: str) -> str:
    parts = [p for p in re.split(r"[\\/]+", path) if p and p not in (".", "..", "~") and not re.fullmatch(
        r"[A-Za-z]:|file:|~[\w.-]*", p)]
    return parts[-1] if parts else ""


def reduce_paths(name: str) -> str:
    """`name` with every absolute or home-relative path in it replaced by the path's last component
    ("/tmp/models/internvl3" -> "internvl3"); unchanged when it holds none."""
    if not looks_like_path(name):
        return name
    reduced = _PATH.sub(lambda m: _last_part(m.group(0)), name)
    reduced = " ".join(reduced.split())
    return reduced or "unnamed-model"


def default_display_name(model: str) -> tuple[str, str | None]:
    """(display name, note or None) for `--model` when no `--model-name` is given: a Hub id as it is; a local
    folder by its folder name, with a note saying so (its path is recorded in run.json only)."""
    if not is_local_folder(model):
        return model, None
    try:
        name = Path(os.path.abspath(os.path.expanduser(model))).name
    except (OSError, ValueError):
        name = ""
    name = name or _last_part(model) or "local-model"
    return name, (f"the model is shown as {name!r} (its folder's name; the path stays in run.json); "
                  "choose another name with --model-name")


def display_name(model: str, chosen: str | None) -> tuple[str, str | None]:
    """(display name, note or None): `chosen` (`--model-name`) when given, else `default_display_name`.
    A chosen name that holds a path is bad input (a display name is shown to people)."""
    from eval_kit.errors import BadInput
    from eval_kit.leaderboard.provenance import checked_text

    if chosen is None:
        return default_display_name(model)
    chosen = chosen.strip()
    checked_text(chosen, "--model-name", required=True)
    if looks_like_path(chosen):
        raise BadInput(f"{chosen[:60]!r} holds a local path; a display name is shown to people",
                       field="--model-name", fix=f"use a plain name, e.g. --model-name {reduce_paths(chosen)}")
    return chosen, None
