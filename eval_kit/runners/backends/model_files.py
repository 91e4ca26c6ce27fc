"""The checkpoint's own files that shape a run's inputs or weights, read before anything loads.

A model folder's `preprocessor_config.json` (resize, pixel budget, tiles), `processor_config.json`,
`video_preprocessor_config.json`, chat template and config.json's `quantization_config` change what the model
sees or computes as surely as a command-line flag. Editing one must not resume into an old run, so
`checkpoint_settings()` is part of the backend's settings (every request key, metadata.json): the processor
configs as they are, the quantization config, and a digest of the chat template. Files come from a local
folder, or for a Hub id from one snapshot of its small config files in the huggingface_hub cache.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

PROCESSOR_FILES = ("preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json")
TEMPLATE_FILES = ("chat_template.jinja", "chat_template.json")
_MAX_BYTES = 4 << 20  # these are small config files; a bigger one is not read


_SNAPSHOTS: dict[tuple[str, str | None], Path] = {}


def _hub_folder(model: str, revision: str | None) -> Path:
    """The Hub repo's small config files in one local snapshot (the cache; fetched once when not there).

    One `snapshot_download` of the JSON / template files: the same files `from_pretrained` reads first, so a
    run costs no extra download, and an unreachable Hub is one line of bad input, not minutes of retries.
    """
    key = (model, revision)
    if key not in _SNAPSHOTS:
        from huggingface_hub import snapshot_download

        from eval_kit.runners.backends import setup_checks

        try:
            folder = snapshot_download(model, revision=revision, local_files_only=setup_checks.hub_offline(),
                                       allow_patterns=["config.json", "tokenizer_config.json", *PROCESSOR_FILES,
                                                       *TEMPLATE_FILES])
        except Exception as exc:  # network, auth, unknown repo: all mean "cannot read this model here"
            raise setup_checks.load_error(model, exc) from None
        _SNAPSHOTS[key] = Path(folder)
    return _SNAPSHOTS[key]


def read_text_file(model: str, name: str, revision: str | None = None) -> str | None:
    """The text of `name` in the model folder or Hub repo; None when it has no such file."""
    folder = Path(model).expanduser()
    path = folder / name if folder.is_dir() else _hub_folder(model, revision) / name
    if not path.is_file() or path.stat().st_size > _MAX_BYTES:
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def read_json_file(model: str, name: str, revision: str | None = None) -> dict[str, Any] | None:
    text = read_text_file(model, name, revision)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def checkpoint_settings(model: str, revision: str | None = None) -> dict[str, Any]:
    """{file: content} of the processor configs present, the quantization config, the template's digest."""
    out: dict[str, Any] = {}
    for name in PROCESSOR_FILES:
        value = read_json_file(model, name, revision)
        if value is not None:
            out[name] = value
    config = read_json_file(model, "config.json", revision) or {}
    if config.get("quantization_config"):
        out["quantization_config"] = config["quantization_config"]
    for name in TEMPLATE_FILES:
        text = read_text_file(model, name, revision)
        if text is not None:
            out[f"{name} sha256"] = hashlib.sha256(text.encode()).hexdigest()[:16]
    template = (read_json_file(model, "tokenizer_config.json", revision) or {}).get("chat_template")
    if template:  # older checkpoints keep the template here
        out["tokenizer_config.json chat_template sha256"] = hashlib.sha256(
            json.dumps(template, sort_keys=True).encode()).hexdigest()[:16]
    return out
