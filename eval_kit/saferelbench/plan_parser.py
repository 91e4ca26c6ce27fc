"""The plan parser: a model's raw text -> a list of actions, or a recorded failure; never drops a line silently.

Bound: the parser reads at most `MAX_CHARS` characters (the *last* ones, where the final plan is) after
removing `<think>...</think>` blocks; every step is a single left-to-right pass (no regular expression
that can backtrack over the input), so its cost is linear in the input: `"A" + 160k spaces` or 280 KB of
repeated `<think>` parse in milliseconds. The number of characters cut is reported (`cut_chars`).

Forms (the *final* plan wins over earlier drafts):
1. JSON: a list of objects with an action name under `action` / `name` / `act` / `skill` / `function` and
   arguments under `args` / `arguments` / `objects` / `params` / `parameters` / `object` / `target`
   (a string or a list), or strings like "GRASP(x)"; possibly wrapped in {"plan": [...]} (or "actions",
   "steps"). The last JSON plan in the text is taken when no line plan follows it.
2. Lines: calls `NAME(arg, ...)` with NAME in any spelling (`TOGGLE-ON`, `toggle_on`, `place next to`),
   decorated or not (`1.`, `-`, `Step 2:`, `Action 3:`, `**bold**`, `` `code` ``), followed by an
   explanation or not (`1. GRASP(x) - pick it up`), several on one line (`A -> B`, `A, B`, `A; B`,
   `A then B`); YAML-like `- action: GRASP` + `args: [x]` pairs.
   A new draft starts at a fence, at a numbering restart (`1.` after a higher number) or at a prose line
   announcing one (a header with "final", "revised", "corrected", "instead"... that ends with ':' or names
   the plan); the last draft with an action wins.
Every non-blank line of the winning draft that holds no action is counted in `unparsed_lines` (with the
first few kept in `unparsed`), every other non-blank line in `ignored_lines`: the scorer reports both.
An empty or unparseable plan returns `PlanParse(actions=None, error=...)`: the scorer records it as a
failure (SR = SSR = 0); it is never dropped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eval_kit.saferelbench.actions import KNOWN_ACTIONS, Action, make_action, normalise_name

MAX_CHARS = 100_000
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_- ")
_MAX_NAME = 40
_NAME_KEYS = ("action", "name", "act", "skill", "function")
_ARG_KEYS = ("args", "arguments", "objects", "params", "parameters", "object", "target", "obj")
_DRAFT_WORDS = ("final", "revised", "corrected", "instead", "updated", "let me redo", "actually")


@dataclass(frozen=True)
class PlanParse:
    actions: list[Action] | None
    error: str | None = None
    form: str | None = None  # "json" or "lines"
    unparsed_lines: int = 0
    ignored_lines: int = 0
    unparsed: tuple[str, ...] = field(default_factory=tuple)
    cut_chars: int = 0


def strip_think(text: str) -> str:
    """Remove `<think>...</think>` blocks (and everything before a dangling `</think>`), in one pass."""
    lower = text.lower()
    last_close = lower.rfind("</think>")
    if last_close >= 0:
        text, lower = text[last_close + len("</think>"):], lower[last_close + len("</think>"):]
    out, pos = [], 0
    while True:
        start = lower.find("<think>", pos)
        if start < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        end = lower.find("</think>", start)
        if end < 0:  # an unclosed reasoning block runs to the end
            break
        pos = end + len("</think>")
    return "".join(out)


def _valid_name(raw: str) -> str | None:
    name = raw.strip().strip("-_ ").strip()
    if not name:
        return None
    words = name.split()
    for i in range(len(words)):  # drop leading prose words: "then PLACE_ON_TOP" -> "PLACE_ON_TOP"
        candidate = " ".join(words[i:])
        if normalise_name(candidate) in KNOWN_ACTIONS:
            return candidate
        key = candidate.replace(" ", "_").replace("-", "_")
        if key.isupper() and key.replace("_", "").isalpha() and " " not in candidate and len(key) >= 3:
            return candidate  # an unknown upper-case name (TELEPORT): the executor rejects it, visibly
    return None


def calls_in(line: str, objects: Mapping[str, str] | None) -> list[Action]:
    """Every `NAME(args)` call in a line, left to right (linear: each '(' is looked at once)."""
    clean = line.replace("*", "").replace("`", "")
    out: list[Action] = []
    pos = 0
    while True:
        open_at = clean.find("(", pos)
        if open_at < 0:
            break
        close_at = clean.find(")", open_at + 1)
        if close_at < 0:
            break
        inner = clean[open_at + 1:close_at]
        if "(" in inner:  # nested: restart at the inner parenthesis
            pos = open_at + 1 + inner.rfind("(")
            continue
        start = open_at
        while start > 0 and open_at - start < _MAX_NAME and clean[start - 1] in _NAME_CHARS:
            start -= 1
        name = _valid_name(clean[start:open_at])
        if name is not None:
            out.append(make_action(name, [a.strip() for a in inner.split(",") if a.strip()], objects))
        pos = close_at + 1
    return out


def _yaml_action(line: str) -> tuple[str | None, list[str] | None]:
    """`- action: GRASP` -> ("GRASP", None); `args: [a, b]` -> (None, ["a", "b"])."""
    body = line.strip().lstrip("-").strip()
    key, sep, value = body.partition(":")
    if not sep:
        return None, None
    key = key.strip().strip("\"'").lower()
    value = value.strip()
    if key in _NAME_KEYS and value and "(" not in value:
        return value.strip("\"'"), None
    if key in _ARG_KEYS:
        value = value.strip("[]")
        return None, [a.strip().strip("\"'") for a in value.split(",") if a.strip()]
    return None, None


def _step_number(line: str) -> int | None:
    body = line.strip().lstrip("-*•#").strip().replace("*", "")
    lowered = body.lower()
    for prefix in ("step", "action"):
        if lowered.startswith(prefix):
            body = body[len(prefix):].strip()
            break
    digits = ""
    for ch in body:
        if ch.isdigit() and len(digits) < 6:
            digits += ch
        else:
            break
    if digits and body[len(digits):len(digits) + 1] in (".", ")", ":", " ", "-"):
        return int(digits)
    return None


@dataclass
class _Draft:
    actions: list[Action] = field(default_factory=list)
    lines: list[tuple[str, bool]] = field(default_factory=list)  # (line, held an action)
    last_number: int = 0


def _line_drafts(text: str, objects: Mapping[str, str] | None) -> list[_Draft]:
    drafts = [_Draft()]
    pending: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("```"):
            drafts.append(_Draft())
            continue
        current = drafts[-1]
        number = _step_number(line)
        if number is not None and number <= 1 and current.last_number >= 1:
            current = _Draft()
            drafts.append(current)
        if number is not None:
            current.last_number = number
        found = calls_in(line, objects)
        if not found:
            name, args = _yaml_action(line)
            if name is not None:
                if pending is not None:
                    found = [make_action(pending, [], objects)]
                pending = name
                current.lines.append((line, True))
                current.actions += found
                continue
            if args is not None and pending is not None:
                found = [make_action(pending, args, objects)]
                pending = None
        if found:
            current.actions += found
            current.lines.append((line, True))
            continue
        lowered = line.lower()
        if current.actions and any(w in lowered for w in _DRAFT_WORDS) and (
                lowered.rstrip().endswith(":") or "plan" in lowered):  # a header: "Final plan:", "Revised:"
            current = _Draft()
            drafts.append(current)
        current.lines.append((line, False))
    if pending is not None:
        drafts[-1].actions.append(make_action(pending, [], objects))
    return drafts


def _json_plan(value: Any, objects: Mapping[str, str] | None) -> list[Action] | None:
    if isinstance(value, dict):
        for key in ("plan", "actions", "steps", "final_plan"):
            if isinstance(value.get(key), list):
                value = value[key]
                break
        else:
            return None
    if not isinstance(value, list) or not value:
        return None
    actions = []
    for item in value:
        if isinstance(item, dict):
            name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
            if name is None:
                return None
            args = next((item[k] for k in _ARG_KEYS if k in item), [])
            if isinstance(args, str):
                args = [args]
            if "(" in name:  # {"action": "GRASP(x)"}
                inner = calls_in(name, objects)
                if not inner:
                    return None
                actions += inner
                continue
            actions.append(make_action(name, [str(a) for a in (args or [])], objects))
        elif isinstance(item, str) and (found := calls_in(item, objects)):
            actions += found
        else:
            return None
    return actions


def _json_plans(text: str, objects: Mapping[str, str] | None, limit: int = 200) -> list[tuple[int, int, list[Action]]]:
    """(start, end, actions) of JSON plans in the text, trying at most `limit` opening brackets."""
    decoder = json.JSONDecoder()
    out, pos, tries = [], 0, 0
    while tries < limit:
        candidates = [i for i in (text.find("[", pos), text.find("{", pos)) if i >= 0]
        if not candidates:
            break
        start = min(candidates)
        tries += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = start + 1
            continue
        plan = _json_plan(value, objects)
        if plan:
            out.append((start, end, plan))
        pos = end if plan else start + 1
    return out


def parse_plan(text: str | None, objects: Mapping[str, str] | None = None) -> PlanParse:
    """Parse a raw response into actions (arguments normalised against `objects` when given)."""
    if text is None or not str(text).strip():
        return PlanParse(None, "empty response")
    body = strip_think(str(text))
    cut = max(0, len(body) - MAX_CHARS)
    body = body[cut:].strip()
    json_plans = _json_plans(body, objects)
    line_text = body
    if json_plans:
        start, end, plan = json_plans[-1]
        after = body[end:]
        tail = _line_drafts(after, objects)
        if not any(d.actions for d in tail):
            ignored = sum(1 for line in (body[:start] + "\n" + after).splitlines() if line.strip()
                          and not line.strip().startswith("```"))
            return PlanParse(plan, None, "json", 0, ignored, (), cut)
        line_text = after
    drafts = _line_drafts(line_text, objects)
    chosen = next((d for d in reversed(drafts) if d.actions), None)
    if chosen is None:
        ignored = sum(len(d.lines) for d in drafts)
        return PlanParse(None, "no plan found (expected a JSON list of {action, args} or lines like GRASP(x))",
                         None, 0, ignored, (), cut)
    first = next(i for i, (_, ok) in enumerate(chosen.lines) if ok)
    last = max(i for i, (_, ok) in enumerate(chosen.lines) if ok)
    inside = chosen.lines[first:last + 1]
    unparsed = [line for line, ok in inside if not ok]
    ignored = sum(len(d.lines) for d in drafts) - len(inside)
    return PlanParse(chosen.actions, None, "lines", len(unparsed), ignored, tuple(unparsed[:5]), cut)
