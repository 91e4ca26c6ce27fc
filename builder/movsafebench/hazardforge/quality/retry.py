"""Edit -> check -> retry with a new seed, up to a configured number of times (paper 3.2.5 filters; we retry).

The run engine calls `edit_until_accepted` per job. Seeds are derived, not random: attempt k of a job with seed
s uses `derive_seed(s, k)` (attempt 0 uses s itself), so a re-run reproduces every attempt exactly.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.editors.base import Editor
from builder.movsafebench.hazardforge.editors.intrusion import intrusion_edit
from builder.movsafebench.hazardforge.quality.base import Checker, Verdict


@dataclass(frozen=True)
class EditAttempt:
    """One edit, with the images and mask the checker should compare (for intrusion: the padded pair)."""

    image: Image.Image
    check_input: Image.Image
    check_output: Image.Image
    check_mask: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class RetryResult:
    """The accepted image (None when every attempt was rejected) and one record per attempt."""

    image: Image.Image | None
    mask: np.ndarray | None
    attempts: list[dict[str, Any]]

    @property
    def accepted(self) -> bool:
        return self.image is not None


def derive_seed(seed: int, attempt: int) -> int:
    if attempt == 0:
        return int(seed)
    digest = hashlib.sha256(f"{int(seed)}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def plain_attempt(editor: Editor, image: Image.Image, mask: np.ndarray, prompt: str,
                  **edit_kwargs: Any) -> Callable[[int], EditAttempt]:
    """Attempt function for an in-place edit (static, motion, distance)."""
    def run(seed: int) -> EditAttempt:
        out = editor.edit(image, mask, prompt, seed, **edit_kwargs)
        return EditAttempt(out, image, out, mask)
    return run


def intrusion_attempt(editor: Editor, image: Image.Image, *, prompt: str,
                      **geometry: Any) -> Callable[[int], EditAttempt]:
    """Attempt function for an intrusion edit; the check sees the padded pair and m_pad, as in the paper."""
    def run(seed: int) -> EditAttempt:
        res = intrusion_edit(editor, image, prompt=prompt, seed=seed, **geometry)
        return EditAttempt(res.image, res.padded_input, res.padded_output, res.padded_mask,
                           {**res.info, "final_mask": res.mask})
    return run


def edit_until_accepted(attempt: Callable[[int], EditAttempt], checker: Checker, intended_direction: str, seed: int,
                        max_retries: int = 2, expected_height: float | None = None) -> RetryResult:
    """Up to 1 + max_retries attempts; stops at the first accepted verdict.

    `expected_height` (the plan's perspective height in pixels) goes to checkers whose `check` takes it."""
    import inspect

    records: list[dict[str, Any]] = []
    check_kwargs: dict[str, Any] = {}
    if expected_height is not None and "expected_height" in inspect.signature(checker.check).parameters:
        check_kwargs["expected_height"] = expected_height
    for k in range(max_retries + 1):
        s = derive_seed(seed, k)
        t0 = time.perf_counter()
        edit = attempt(s)
        t1 = time.perf_counter()
        verdict: Verdict = checker.check(edit.check_input, edit.check_output, edit.check_mask, intended_direction,
                                         **check_kwargs)
        t2 = time.perf_counter()
        info = {k2: v for k2, v in edit.info.items() if k2 != "final_mask"}
        records.append({"attempt": k, "seed": s, "verdict": verdict.to_dict(), "edit_s": round(t1 - t0, 4),
                        "check_s": round(t2 - t1, 4), **({"geometry": info} if info else {})})
        if verdict.accepted:
            mask = edit.info.get("final_mask", edit.check_mask)
            return RetryResult(edit.image, mask, records)
    return RetryResult(None, None, records)
