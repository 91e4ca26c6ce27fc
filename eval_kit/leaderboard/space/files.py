"""The files a Hugging Face Space needs to run the leaderboard: app.py, requirements.txt, README.md (with the
Space's YAML header). `hazardkit leaderboard space --out DIR` writes them; push DIR as a Gradio Space.

app.py has no settings of its own: everything comes from the Space's variables and secrets (see
`settings.py`), so the same file runs unchanged locally (`python app.py`) and on the Hub.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_text

GRADIO_VERSION = "6.31.0"  # the version the `space` extra pins and the browser tests run

APP = '''"""hazardkit leaderboard Space: every setting comes from the environment (the Space's variables and secrets).

HAZARDKIT_REFERENCES, HAZARDKIT_SPACE_DIR, HAZARDKIT_MAX_UPLOAD_MB, HAZARDKIT_MAX_ROWS, HAZARDKIT_DAILY_LIMIT,
HAZARDKIT_MODERATION and the secret HF_TOKEN: see README.md. Runs unchanged locally: `python app.py`.
"""

from eval_kit.leaderboard.space.app import launch

if __name__ == "__main__":
    launch()
'''

README = """---
title: {title}
emoji: 🚦
colorFrom: yellow
colorTo: red
sdk: gradio
sdk_version: {gradio_version}
app_file: app.py
pinned: false
hf_oauth: true
hf_oauth_expiration_minutes: 480
---

# {title}

The hazardkit leaderboard (MovSafeBench, BD-HazardVLM, SafeRelBench): submissions are uploaded, validated and
scored by the hazardkit library (`hazardkit validate` and `hazardkit score run`), and listed per dataset config.

## Settings (Space variables)

| Variable | Meaning | Default |
|---|---|---|
| `HAZARDKIT_REFERENCES` | per benchmark `NAME=SOURCE[#CONFIG]`, `;`-separated (see below) | none |
| `HAZARDKIT_SPACE_DIR` | results.parquet and submissions/ (use `/data/...` with persistent storage) | `space_data` |
| `HAZARDKIT_MAX_UPLOAD_MB` | largest upload | 20 |
| `HAZARDKIT_MAX_ROWS` | most lines per predictions file | 50000 |
| `HAZARDKIT_DAILY_LIMIT` | submissions per user per 24 hours | 5 |
| `HAZARDKIT_SCORE_TIMEOUT` | seconds a submission may take to validate and score (0: no limit) | 20 |
| `HAZARDKIT_MODERATION` | `1`: scored submissions wait for `hazardkit leaderboard approve` | 0 |
| `HAZARDKIT_RESULTS_REPO` | ORG/NAME of a Hub dataset repo that also keeps results.parquet | none |
| `HAZARDKIT_HOST_NAMES` | other host names the app answers to (comma-separated; SPACE_HOST is added) | none |

SOURCE is a path in the Space or `hf://datasets/ORG/NAME[@REVISION]` (fetched with huggingface_hub), e.g.
`movsafebench=hf://datasets/ORG/movsafebench@v1.0.0#default`.

## Secrets

| Secret | Meaning |
|---|---|
| `HF_TOKEN` | token: read for private reference repos, write for the results repo |

Submitters log in with their Hugging Face account (`hf_oauth`); one pending submission per user at a time.
Without persistent storage, results are lost when the Space restarts: enable it and set `HAZARDKIT_SPACE_DIR`.
"""


def write_space(out: Path, *, requirement: str | None = None, wheel: Path | None = None,
                title: str = "hazardkit leaderboard") -> list[Path]:
    """Write app.py, requirements.txt and README.md into `out` (and copy `wheel` there); returns the paths."""
    if wheel is not None and (not wheel.is_file() or wheel.suffix != ".whl"):
        raise BadInput("not a wheel file", path=wheel, fix="build one with `python -m build --wheel`")
    from eval_kit.safe_paths import refuse_links

    refuse_links(out, "app.py", "requirements.txt", "README.md", *([wheel.name] if wheel is not None else []))
    if out.exists() and not out.is_dir():
        raise BadInput("--out is a file", path=out, fix="pass a folder")
    out.mkdir(parents=True, exist_ok=True)
    if wheel is not None:
        shutil.copyfile(wheel, out / wheel.name)
        requirement = f"./{wheel.name}[space]"
    from eval_kit import __version__

    requirement = requirement or f"hazardkit[space]=={__version__}"
    if "\n" in requirement or "\r" in requirement:
        raise BadInput("the requirement must be one line", field="--requirement")
    if "\n" in title or "---" in title or len(title) > 60:
        raise BadInput("the title must be one short line without '---'", field="--title")
    files = {
        "app.py": APP,
        "requirements.txt": f"{requirement}\n",
        "README.md": README.format(title=title, gradio_version=GRADIO_VERSION),
    }
    written = []
    for name, text in files.items():
        atomic_write_text(out / name, text)
        written.append(out / name)
    return written
