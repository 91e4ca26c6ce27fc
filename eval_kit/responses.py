"""What every answer parser does first: drop the reasoning, bound the rest, fold look-alike punctuation.

Parsers run on untrusted model output, sometimes megabytes of it (a reasoning model that never closes its
`<think>`, a degenerate repetition). Everything here is linear in the input: reasoning tags are found with one
scan (no `<think>.*?</think>` regex, which is quadratic on many unclosed tags), and a parser then reads at
most `head + tail` characters of the answer that remains (`bound`).
"""

from __future__ import annotations

import re

_THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)

# Look-alike characters models emit in place of ASCII punctuation (curly quotes, full-width forms).
_FOLD = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\uff1a": ":", "\uff0c": ",", "\u3002": ".",
    "\uff08": "(", "\uff09": ")", "\uff1b": ";", "\uff01": "!", "\uff1f": "?", "\u3001": ",",
})


def strip_reasoning(text: str) -> str:
    """The answer part of a response: `<think>...</think>` blocks removed; a `</think>` without an opening
    tag means everything before it was reasoning; an unclosed `<think>` means only what came before it is an
    answer. One scan over the tags."""
    kept: list[str] = []
    start = 0
    inside = False
    for tag in _THINK_TAG.finditer(text):
        closing = tag.group(1) == "/"
        if not closing and not inside:
            kept.append(text[start: tag.start()])
            inside = True
        elif closing:
            if not inside:  # a lone close: all so far was reasoning
                kept.clear()
            inside = False
            start = tag.end()
    if not inside:
        kept.append(text[start:])
    return " ".join(part for part in kept if part).strip()


def bound(text: str, head: int, tail: int) -> str:
    """At most the first `head` and the last `tail` characters (joined by a newline) of a long answer:
    answers come first ("B. go straight ...") or last ("... Therefore, B.")."""
    if len(text) <= head + tail:
        return text
    return text[:head] + "\n" + text[len(text) - tail:]


def fold_punctuation(text: str) -> str:
    """Curly quotes and full-width punctuation to their ASCII forms (same length, so positions agree)."""
    return text.translate(_FOLD)
