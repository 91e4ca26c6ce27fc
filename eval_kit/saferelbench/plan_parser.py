"""The plan parser: a model's raw text -> a list of actions, or a recorded failure.

Accepted forms, tried in order (reasoning blocks `<think>...</think>` are dropped first):
1. JSON: a list of `{"action": ..., "args": [...]}` (or `{"plan": [...]}`), the whole text, the first
   fenced block that holds JSON, or the outermost `[...]` in the text; list items may also be strings like
   "GRASP(apple.n.01_1)";
2. lines like `PLACE_INSIDE(apple.n.01_1, fridge.n.01_1)`, optionally numbered or bulleted ("1.", "-",
   "Step 2:"), inside or outside a fenced block. A line counts when its name is upper-case or a known
   primitive (or alias), so prose around the plan is ignored.
An empty or unparseable plan returns `PlanParse(actions=None, error=...)`: the scorer records it as a
failure (SR = SSR = 0); it is never dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eval_kit.saferelbench.actions import KNOWN_ACTIONS, Action, action_from_json, make_action, normalise_name

_THINK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_CALL = re.compile(
    r"^\s*(?:[-*•]\s*|(?:step\s*)?\d+\s*[.):]\s*|step\s*\d+\s*[-:]\s*)*`?"
    r"(?P<name>[A-Za-z][A-Za-z_ ]*?)\s*\((?P<args>[^()]*)\)`?\s*[,;.]?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PlanParse:
    actions: list[Action] | None
    error: str | None = None
    form: str | None = None  # "json" or "lines"


def _split_args(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


def _from_call(text: str, objects: Mapping[str, str] | None) -> Action | None:
    match = _CALL.match(text)
    if not match:
        return None
    raw_name = match.group("name").strip()
    if not (raw_name.replace(" ", "_").isupper() or normalise_name(raw_name) in KNOWN_ACTIONS):
        return None
    return make_action(raw_name, _split_args(match.group("args")), objects)


def _from_json_value(value: Any, objects: Mapping[str, str] | None) -> list[Action] | None:
    if isinstance(value, dict):
        for key in ("plan", "actions", "steps"):
            if isinstance(value.get(key), list):
                value = value[key]
                break
        else:
            return None
    if not isinstance(value, list):
        return None
    actions = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("action"), str):
            actions.append(action_from_json(item, objects))
        elif isinstance(item, str) and (call := _from_call(item, objects)) is not None:
            actions.append(call)
        else:
            return None
    return actions


def _try_json(text: str, objects: Mapping[str, str] | None) -> list[Action] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return _from_json_value(value, objects)


def _from_lines(text: str, objects: Mapping[str, str] | None) -> list[Action]:
    return [a for line in text.splitlines() if (a := _from_call(line, objects)) is not None]


def parse_plan(text: str | None, objects: Mapping[str, str] | None = None) -> PlanParse:
    """Parse a raw response into actions (arguments normalised against `objects` when given)."""
    if text is None or not str(text).strip():
        return PlanParse(None, "empty response")
    body = _THINK.sub(" ", str(text))
    if "</think>" in body.lower():
        body = body[body.lower().rfind("</think>") + len("</think>"):]
    body = body.strip()
    fences = [m.group(1).strip() for m in _FENCE.finditer(body)]
    candidates = [body, *fences]
    start, end = body.find("["), body.rfind("]")
    if 0 <= start < end:
        candidates.append(body[start:end + 1])
    for candidate in candidates:
        actions = _try_json(candidate, objects)
        if actions is not None:
            return PlanParse(actions, None, "json") if actions else PlanParse(None, "empty plan", "json")
    for candidate in [*fences, body]:
        actions = _from_lines(candidate, objects)
        if actions:
            return PlanParse(actions, None, "lines")
    return PlanParse(None, "no plan found (expected a JSON list of {action, args} or lines like GRASP(x))")
