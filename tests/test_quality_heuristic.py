"""Quality-check basics (parsing, crops, acceptance rule) and the heuristic checker on known edits."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from builder.movsafebench.hazardforge.editors import CompositingEditor
from builder.movsafebench.hazardforge.quality import Checker, HeuristicChecker, Verdict, crop_pair, decide
from builder.movsafebench.hazardforge.quality.base import parse_completeness, parse_direction


@pytest.mark.parametrize(("text", "expected"), [
    ("complete", "complete"), ("Incomplete.", "incomplete"), ("The object is NOT generated", "not generated"),
    ("<think>complete?</think> incomplete", "incomplete"), ("no idea", None),
])
def test_parse_completeness(text: str, expected: str | None) -> None:
    assert parse_completeness(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("left", "left"), ("Facing RIGHT.", "right"), ("forwards", "forward"), ("backward", "backward"), ("up", None),
])
def test_parse_direction(text: str, expected: str | None) -> None:
    assert parse_direction(text) == expected


def test_decide_and_crops() -> None:
    assert decide("complete", "left", "left")
    assert not decide("incomplete", "left", "left") and not decide("complete", "right", "left")
    assert not decide(None, None, "left")
    a = Image.fromarray(np.arange(10 * 20 * 3, dtype=np.uint8).reshape(10, 20, 3))
    mask = np.zeros((10, 20), bool)
    mask[2:5, 4:9] = True
    ca, _ = crop_pair(a, a, mask)
    assert ca.size == (5, 3) and np.array_equal(np.asarray(ca), np.asarray(a)[2:5, 4:9])
    with pytest.raises(ValueError, match="sizes differ"):
        crop_pair(a, a.resize((5, 5)), mask)


def _scene() -> Image.Image:
    rng = np.random.default_rng(4)
    return Image.fromarray(np.clip(110 + rng.normal(0, 5, (200, 320, 3)), 0, 255).astype(np.uint8))


def test_heuristic_outcomes() -> None:
    checker, img = HeuristicChecker(), _scene()
    assert isinstance(checker, Checker)
    mask = np.zeros((200, 320), bool)
    mask[60:195, 80:260] = True
    # nothing changed -> not generated
    v = checker.check(img, img, mask, "left")
    assert v == Verdict(False, "not generated", None, v.raw) and v.raw["object_px"] == 0
    # a compositor edit facing left, checked against left (accept) and right (reject)
    out = CompositingEditor().edit(img, mask, "Render a cat, facing left.", seed=0)
    assert checker.check(img, out, mask, "left").accepted
    wrong = checker.check(img, out, mask, "right")
    assert not wrong.accepted and wrong.completeness == "complete" and wrong.direction == "left"
    # an object cut by the mask's (interior) edge -> incomplete
    cut = np.asarray(img).copy()
    cut[100:150, 80:120] = (250, 30, 30)
    v = checker.check(img, Image.fromarray(cut), mask, "forward")
    assert v.completeness == "incomplete" and "left" in v.raw["cut_by_mask"] and not v.accepted
    # the same blob touching the IMAGE border is not "cut by the mask" (intrusion objects are meant to be)
    mask_b = np.zeros((200, 320), bool)
    mask_b[60:195, 0:120] = True
    cut_b = np.asarray(img).copy()
    cut_b[100:150, 0:40] = (250, 30, 30)
    assert checker.check(img, Image.fromarray(cut_b), mask_b, "forward").completeness == "complete"
    with pytest.raises(ValueError, match="intended direction"):
        checker.check(img, img, mask, "up")
