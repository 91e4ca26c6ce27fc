"""Giving a file to a Gradio File component from Playwright, reliably on a loaded machine.

Why a helper: `page.set_input_files` is not always taken. Under load the File component can be re-rendered
just after the Submit tab is shown, and a file set on the old input is lost: the file's name never shows
(seen in a full test run beside two CPU hogs, and once on a quiet machine). Waiting longer does not help then.
While Gradio does upload a file, it replaces the file input with the upload's progress. So a missing input
means "uploading, only slow": keep waiting. An input still there and empty after `TAKEN_S` means "lost":
set the file again, at most `retries` times. Every wait is on a condition, never a sleep.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

TAKEN_S = 30  # seconds to see the file's name before asking whether the file was taken at all
UPLOAD_S = 300  # the bound on an upload under way (a loaded machine), never reached when things work


def set_file(page, component: str, path: Path, timeout_error: type[Exception], *, retries: int = 2,
             note: Callable[[str], None] = print) -> int:
    """Set `path` on the File component whose element matches `component` (e.g. "#submit-file") and wait
    until it shows the file's name; returns how many times the file had to be set again (0 normally)."""
    file_input = f"{component} input[type=file]"
    shown = f"{component} :text('{path.name}')"
    for attempt in range(retries + 1):
        page.set_input_files(file_input, str(path))
        try:
            page.wait_for_selector(shown, timeout=TAKEN_S * 1000)
            return attempt
        except timeout_error:
            pass
        if page.locator(file_input).count() == 0 or page.locator(shown).count():
            page.wait_for_selector(shown, timeout=UPLOAD_S * 1000)  # uploading: slow, not lost
            return attempt
        if attempt < retries:
            note(f"note: {path.name}: the file box was still empty after {TAKEN_S} s; file set again")
    page.wait_for_selector(shown, timeout=UPLOAD_S * 1000)  # raises Playwright's own error, with its call log
    return retries
