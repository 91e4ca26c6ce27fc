"""MkDocs hook: `<!-- hazardkit-prompt: NAME -->` in a page becomes the prompt the code sends, so the docs
never drift from the code (MovSafeBench's question for a vehicle, BD-HazardVLM's prompt, SafeRelBench's base
prompt for the first demo sample)."""

from __future__ import annotations

import json
import re
from pathlib import Path

MARKER = re.compile(r"<!-- hazardkit-prompt: (\w+) -->")
ROOT = Path(__file__).resolve().parents[2]


def _prompt(name: str) -> str:
    if name == "movsafebench":
        from eval_kit.movsafebench.spec import build_question

        return build_question("vehicle")
    if name == "bd_hazardvlm":
        from eval_kit.bd_hazardvlm.spec import PROMPT

        return PROMPT
    if name == "saferelbench":
        from eval_kit.saferelbench.prompts import build_prompt

        first = (ROOT / "manifests" / "saferelbench" / "demo.jsonl").read_text(encoding="utf-8").splitlines()[0]
        return build_prompt(json.loads(first), "base")
    raise ValueError(f"unknown prompt {name!r} in a hazardkit-prompt marker (movsafebench, bd_hazardvlm, saferelbench)")


def on_page_markdown(markdown: str, **_: object) -> str:
    return MARKER.sub(lambda m: "```{.text .hazardkit-prompt}\n" + _prompt(m.group(1)).rstrip("\n") + "\n```", markdown)
