"""Plain-text reports of the CLI: rich tables rendered to a string, and how numbers are shown in them.

Scores are fractions in JSON and percentages in rendered tables (DESIGN contract); every command that
prints tables goes through these two helpers so they all look the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def pct(value: Any) -> str:
    """A fraction as a percentage with one decimal ("-" when missing)."""
    return "-" if not isinstance(value, (int, float)) else f"{100 * value:.1f}"


def render(draw: Callable[[Any], None], *, width: int = 200) -> str:
    """Call `draw(console)` on a rich Console that writes plain text (no colour codes) and return the text."""
    from io import StringIO

    from rich.console import Console

    buffer = StringIO()
    draw(Console(file=buffer, width=width, force_terminal=False, color_system=None))
    return buffer.getvalue()
