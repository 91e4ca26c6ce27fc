"""`eval_kit.testing.gradio_upload.set_file` decides from the page whether a file was lost or is uploading.

A fake page stands in for Playwright: its waits answer at once (raise on an unmet condition), so each case's
expected number of `set_input_files` calls is exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval_kit.testing.gradio_upload import set_file


class Timeout(Exception):
    pass


class FakePage:
    """A File component: `lost` first settings are dropped; the name shows once a setting is taken;
    `uploading` hides the input (Gradio's progress) and shows the name only on the long wait."""

    def __init__(self, lost: int = 0, uploading: bool = False) -> None:
        self.lost, self.uploading = lost, uploading
        self.sets, self.taken, self.long_waits = 0, False, 0

    def set_input_files(self, selector: str, path: str) -> None:
        assert selector == "#submit-file input[type=file]"
        self.sets += 1
        if self.sets > self.lost:
            self.taken = True

    def wait_for_selector(self, selector: str, timeout: float) -> None:
        assert selector == "#submit-file :text('p.jsonl')"
        if timeout > 30_000:
            self.long_waits += 1
            if self.uploading and self.taken:
                return
        if self.taken and not self.uploading:
            return
        raise Timeout(selector)

    def locator(self, selector: str):
        page = self

        class Locator:
            def count(self) -> int:
                if selector.endswith("input[type=file]"):
                    return 0 if (page.uploading and page.taken) else 1
                return int(page.taken and not page.uploading)

        return Locator()


def run(page: FakePage) -> tuple[int, list[str]]:
    notes: list[str] = []
    again = set_file(page, "#submit-file", Path("p.jsonl"), Timeout, note=notes.append)
    return again, notes


def test_a_taken_file_is_set_once():
    page = FakePage()
    assert run(page) == (0, []) and page.sets == 1


def test_a_lost_file_is_set_again_with_a_note():
    page = FakePage(lost=1)  # the first setting is dropped (a re-rendered input): one more, and it shows
    again, notes = run(page)
    assert (again, page.sets, len(notes)) == (1, 2, 1)
    assert "still empty after 30 s" in notes[0]


def test_an_upload_under_way_is_waited_for_never_set_again():
    page = FakePage(uploading=True)  # the input is gone: slow, not lost
    assert run(page) == (0, []) and page.sets == 1 and page.long_waits == 1


def test_gives_up_after_the_retries_with_playwrights_error():
    page = FakePage(lost=10)
    with pytest.raises(Timeout):
        run(page)
    assert page.sets == 3  # the first setting and two more, then the last long wait raises
