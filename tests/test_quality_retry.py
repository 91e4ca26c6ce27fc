"""Retry with derived seeds until the checker accepts; intrusion jobs are checked on the padded pair."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.editors import CompositingEditor
from builder.movsafebench.hazardforge.quality import HeuristicChecker, Verdict
from builder.movsafebench.hazardforge.quality.retry import (
    derive_seed,
    edit_until_accepted,
    intrusion_attempt,
    plain_attempt,
)


class ScriptedChecker:
    """Accepts from the n-th call on; records the sizes it was shown."""

    def __init__(self, accept_from: int) -> None:
        self.accept_from = accept_from
        self.seen: list[tuple[tuple[int, int], tuple[int, ...]]] = []

    def check(self, input_image: Image.Image, output_image: Image.Image, mask: np.ndarray,
              intended_direction: str) -> Verdict:
        self.seen.append((output_image.size, mask.shape))
        ok = len(self.seen) > self.accept_from
        return Verdict(ok, "complete" if ok else "incomplete", intended_direction, {"call": len(self.seen)})

    def provenance(self) -> dict[str, Any]:
        return {"checker": "scripted"}


def _scene() -> tuple[Image.Image, np.ndarray]:
    rng = np.random.default_rng(2)
    img = Image.fromarray(np.clip(100 + rng.normal(0, 5, (120, 200, 3)), 0, 255).astype(np.uint8))
    mask = np.zeros((120, 200), bool)
    mask[40:118, 60:140] = True
    return img, mask


def test_seeds_are_derived_and_stable() -> None:
    assert derive_seed(7, 0) == 7
    assert derive_seed(7, 1) == derive_seed(7, 1) != derive_seed(7, 2) != 7
    assert 0 <= derive_seed(123, 5) < 2**31


def test_retries_until_accepted_then_stops() -> None:
    img, mask = _scene()
    checker = ScriptedChecker(accept_from=2)
    result = edit_until_accepted(plain_attempt(CompositingEditor(), img, mask, "Render a dog, facing left."),
                                 checker, "left", seed=11, max_retries=4)
    assert result.accepted and len(result.attempts) == 3
    assert [a["seed"] for a in result.attempts] == [derive_seed(11, k) for k in range(3)]
    assert [a["verdict"]["accepted"] for a in result.attempts] == [False, False, True]
    assert result.mask is mask and result.image.size == img.size


def test_gives_up_after_max_retries() -> None:
    img, mask = _scene()
    result = edit_until_accepted(plain_attempt(CompositingEditor(), img, mask, "Render a dog, facing left."),
                                 ScriptedChecker(accept_from=99), "left", seed=0, max_retries=1)
    assert not result.accepted and result.image is None and len(result.attempts) == 2


def test_intrusion_checked_on_padded_pair_and_heuristic_accepts() -> None:
    img, _ = _scene()
    checker = ScriptedChecker(accept_from=0)
    attempt = intrusion_attempt(CompositingEditor(), img, prompt="Render a deer, facing right.", side="left", r=60,
                                half_width=40, rows=(30, 118), outpaint=False)
    result = edit_until_accepted(attempt, checker, "right", seed=3)
    assert checker.seen == [((260, 120), (120, 260))]
    assert result.image.size == (200, 120) and result.mask.shape == (120, 200)
    assert result.attempts[0]["geometry"]["padded_size"] == [260, 120]
    # the real heuristic checker accepts the compositor's intrusion object on the padded pair
    real = edit_until_accepted(attempt, HeuristicChecker(), "right", seed=3, max_retries=2)
    assert real.accepted, real.attempts


def test_packages_import_without_heavy_libraries() -> None:
    code = ("import sys, builder.movsafebench.sources, builder.movsafebench.sources.commands, "
            "builder.movsafebench.hazardforge.editors, builder.movsafebench.hazardforge.quality, "
            "builder.movsafebench.hazardforge.quality.retry; "
            "heavy = [m for m in ('torch', 'diffusers', 'transformers', 'cv2') if m in sys.modules]; "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)
