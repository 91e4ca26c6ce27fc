"""User-facing error type: bad input that the CLI reports in one line with exit code 2."""

from __future__ import annotations

from pathlib import Path


class BadInput(Exception):
    """Input the user can fix. The CLI prints `error: <message>` and exits 2, without a traceback.

    The message names the file, the line (1-based) and the field when they are known, then the fix.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.path = short(str(path), 160) if path is not None else None
        self.line = line
        self.field = short(field, 80) if field is not None else None
        self.fix = short(fix, 300) if fix is not None else None
        self.detail = short(message, 400)
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.path:
            where.append(self.path)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        text = (": ".join([", ".join(where), self.detail]) if where else self.detail)
        if self.fix:
            text += f" ({self.fix})"
        return text


def short(text: str, limit: int) -> str:
    """One printable line of at most about `limit` characters: an error never echoes a 50 MB value, a
    newline or a control character from its input."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text[: limit * 4])
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)}+ characters)"
