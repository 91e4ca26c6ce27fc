"""Editing prompts (paper 3.1, 3.2.4): build them, parse them back, and restrict categories per scenario.

Contract shared with the compositing editor: `Render a {category}, facing {direction}.`, and for the distance
scenario's far object the paper's t_dist appended: `Render a {category}, facing {direction}, make the object
smaller.` (paper: Concat(t, t_dist) with t_dist = "make the object smaller"). `parse_prompt` is the inverse.
"""

from __future__ import annotations

import re

from eval_kit.errors import BadInput
from eval_kit.movsafebench.spec import CATEGORIES, SCENARIO_CATEGORIES, SCENARIO_GROUND_TRUTHS

DIRECTIONS: tuple[str, ...] = ("left", "right", "forward", "backward")
FRONT_FACING = "forward"  # the paper's "front-facing view": the object faces the camera
DISTANCE_SUFFIX = "make the object smaller"
_PROMPT = re.compile(
    r"^Render a (?P<category>[a-z_]+), facing (?P<direction>left|right|forward|backward)"
    r"(?P<far>, make the object smaller)?\.$"
)


def build_prompt(category: str, direction: str, *, far: bool = False) -> str:
    """The prompt t (or Concat(t, t_dist) when `far`) for one object."""
    if category not in CATEGORIES:
        raise BadInput(f"unknown category {category!r}", field="category", fix=f"use one of {', '.join(CATEGORIES)}")
    if direction not in DIRECTIONS:
        raise BadInput(
            f"unknown direction {direction!r}", field="direction", fix=f"use one of {', '.join(DIRECTIONS)}"
        )
    suffix = f", {DISTANCE_SUFFIX}" if far else ""
    return f"Render a {category}, facing {direction}{suffix}."


def parse_prompt(text: str) -> tuple[str, str, bool]:
    """(category, direction, is_far) of a prompt made by `build_prompt`; ValueError for anything else."""
    match = _PROMPT.match(text.strip())
    if match is None or match.group("category") not in CATEGORIES:
        raise ValueError(f"not a HazardForge prompt: {text!r}")
    return match.group("category"), match.group("direction"), match.group("far") is not None


def check_scenario(scenario: str, ground_truth: str, category: str | None = None) -> None:
    """Raise BadInput unless the scenario exists, allows this ground truth and (if given) this category (table 2)."""
    if scenario not in SCENARIO_CATEGORIES or scenario == "no_edit":
        allowed = [s for s in SCENARIO_CATEGORIES if s != "no_edit"]
        raise BadInput(f"unknown scenario {scenario!r}", field="scenario", fix=f"use one of {', '.join(allowed)}")
    truths = SCENARIO_GROUND_TRUTHS[scenario]
    if ground_truth not in truths:
        raise BadInput(
            f"ground truth {ground_truth!r} is not allowed for the {scenario} scenario", field="ground_truth",
            fix=f"{scenario} needs one of {', '.join(truths)}",
        )
    if category is not None and category not in SCENARIO_CATEGORIES[scenario]:
        if category not in CATEGORIES:
            raise BadInput(
                f"unknown category {category!r}", field="category", fix=f"use one of {', '.join(CATEGORIES)}"
            )
        raise BadInput(
            f"category {category!r} is not used in the {scenario} scenario (paper table 2)", field="category",
            fix=f"use one of {', '.join(SCENARIO_CATEGORIES[scenario])}",
        )
