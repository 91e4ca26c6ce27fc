"""Keeping the results table in a Hub dataset repo as well as in the app's folder (HAZARDKIT_RESULTS_REPO).

A Space without persistent storage loses its folder on restart: with a results repo, the app pulls
`results.parquet` from it when its own table is missing, and pushes the table after every change. A Hub
commit replaces the file whole, so the repo holds either the old table or the new one. Pushes run in a
background thread (a slow Hub never delays a submitter) and one at a time; a failed push is logged and the
next change pushes the whole table again.
"""

from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path

log = logging.getLogger(__name__)
PATH_IN_REPO = "results.parquet"
_lock = threading.Lock()


def pull(repo_id: str, table: Path, token: str | None) -> bool:
    """Fetch the repo's results table to `table` when there is none locally; whether one was fetched."""
    if table.exists():
        return False
    from huggingface_hub import hf_hub_download

    try:
        cached = hf_hub_download(repo_id, PATH_IN_REPO, repo_type="dataset", token=token)
    except Exception as exc:  # a new repo has no table yet; offline; no access
        log.warning("no results table pulled from %s (%s)", repo_id, type(exc).__name__)
        return False
    table.parent.mkdir(parents=True, exist_ok=True)
    tmp = table.with_name(f".{table.name}.pulled")
    shutil.copyfile(cached, tmp)
    tmp.replace(table)
    return True


def push(repo_id: str, table: Path, token: str | None, message: str) -> None:
    """Upload the table as one commit; errors are logged, never raised (the local table is the truth)."""
    from huggingface_hub import HfApi

    with _lock:
        try:
            HfApi(token=token).upload_file(path_or_fileobj=table.read_bytes(), path_in_repo=PATH_IN_REPO,
                                           repo_id=repo_id, repo_type="dataset", commit_message=message)
        except Exception as exc:
            log.warning("results table not pushed to %s (%s: %s)", repo_id, type(exc).__name__, str(exc)[:200])


def push_soon(repo_id: str, table: Path, token: str | None, message: str) -> threading.Thread:
    thread = threading.Thread(target=push, args=(repo_id, table, token, message), daemon=True)
    thread.start()
    return thread
