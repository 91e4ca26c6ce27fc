"""What the app shows, as plain data: per benchmark, the page's sections (the same `render.build` the static
page uses) turned into table frames; the About text. No Gradio here, so it is tested without a browser.

Every user-provided string reaches the browser as a table cell or a text box value, which Gradio renders as
text (never as HTML or Markdown); Markdown on the page is written only from the kit's own strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.leaderboard.space.pipeline import Leaderboard


@dataclass
class Frame:
    """A table for gr.Dataframe: headers, rows (numbers as floats so columns sort numerically), datatypes."""

    headers: list[str]
    rows: list[list[Any]]
    datatypes: list[str]


def _number(cell: str) -> float | None:
    """The cell as a number when it is exactly one ("80.0", "3"), else None ("[75.0, 85.0]", "left")."""
    try:
        return float(cell) if cell.strip() == cell and cell not in ("nan", "inf", "-inf") else None
    except ValueError:
        return None


def frame(head: list[str], rows: list[list[str]]) -> Frame:
    """Columns whose cells are all numbers (or "-") become number columns, so they sort as numbers."""
    datatypes = ["number" if rows and all(r[i] == "-" or _number(r[i]) is not None for r in rows) else "str"
                 for i in range(len(head))]
    converted = [[(_number(c) if datatypes[i] == "number" else c) for i, c in enumerate(r)] for r in rows]
    return Frame(list(head), converted, datatypes)


def tab_benchmarks(lb: Leaderboard, rows: list[dict[str, Any]]) -> list[str]:
    """The benchmarks that get a tab: those taking submissions and those with rows, in registry order."""
    from eval_kit import registry

    wanted = set(lb.benchmarks()) | {r["benchmark"] for r in rows}
    known = [b.name for b in registry.benchmarks() if b.name in wanted]
    return known + sorted(wanted - set(known))


class Views:
    """Sections per benchmark, rebuilt (with plots) only when that benchmark's rows change."""

    def __init__(self, lb: Leaderboard) -> None:
        self.lb = lb
        self._cache: dict[str, tuple[tuple, list[dict[str, Any]]]] = {}

    @property
    def site(self) -> Path:
        return self.lb.settings.data_dir / "site"

    def rows(self) -> list[dict[str, Any]]:
        from eval_kit.leaderboard.results import read_table

        return read_table(self.lb.settings.table)

    def sections(self, benchmark: str, rows: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        from eval_kit.leaderboard.render import build

        mine = [r for r in (self.rows() if rows is None else rows) if r["benchmark"] == benchmark]
        signature = tuple(sorted((r["run"], r["model"], r.get("config"), r["headline"], r["added_at"])
                                 for r in mine))
        cached = self._cache.get(benchmark)
        if cached is None or cached[0] != signature:
            self._cache[benchmark] = (signature, build(mine, self.site) if mine else [])
        return self._cache[benchmark][1]

    def plot_path(self, plot: dict[str, Any]) -> Path:
        return self.site / plot["file"]


def matrix_frame(matrix: dict[str, Any]) -> Frame:
    from eval_kit.leaderboard.render import _matrix_cells

    head, rows = _matrix_cells(matrix)
    return Frame(head, rows, ["str"] * len(head))


def about_markdown() -> str:
    """How scores are computed and what to cite, from each registered benchmark's board and spec."""
    from eval_kit import registry
    from eval_kit.leaderboard.boards import board_for

    parts = ["## How scores are computed", "",
             "Every submission is checked by the same validator as `hazardkit validate` and scored by the same "
             "scorer as `hazardkit score run` (the hazardkit library, version shown below), against the "
             "references the operator configured. Scores are in %; JSON results keep fractions in [0, 1].", "",
             "- Each dataset config is ranked on its own; rows on demo or synthetic data are shown apart and are "
             "never ranked with real data.",
             "- Equal scores share a rank.",
             "- Each row shows the dataset config, release version and revision it was scored on.",
             "- Pairwise significance: exact McNemar test on paired per-sample correctness, Holm-adjusted over "
             "all pairs of a table; * marks p < 0.05.", ""]
    for bench in registry.benchmarks():
        board = board_for(bench.name)
        parts += [f"### {bench.title}", "", f"Ranked by **{board.headline_label}**. {board.note}", ""]
    parts += ["## Citation", ""]
    for bench in registry.benchmarks():
        citation = bench.part("citation") if bench.citation else ""
        if citation:
            parts += [f"{bench.title}:", "", "```bibtex", citation, "```", ""]
    from eval_kit import __version__

    parts += [f"hazardkit {__version__}"]
    return "\n".join(parts)


def submit_help(lb: Leaderboard) -> str:
    from eval_kit.leaderboard.space.uploads import human_size

    s = lb.settings
    return "\n".join([
        "Upload the `predictions.jsonl` that `hazardkit eval` writes (one JSON object per line: `id` and "
        "`prediction` or `response`), or the whole run folder as a `.zip` (its `metadata.json` is then checked "
        "against the references too). Check it first with `hazardkit validate BENCHMARK -r REFERENCES -p FILE`: "
        "the app reports problems exactly as that command does (file, line, field, fix).", "",
        f"Limits: {human_size(s.max_upload_bytes)} per upload, {s.max_rows} lines, one pending submission per "
        f"user, {s.daily_limit} submissions per user per 24 hours."
        + (" Submissions are reviewed by an operator before they are listed." if s.moderation else ""),
    ])
