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
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        self.fix = fix
        self.detail = message
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
