"""What the app shows, as HTML strings built by the same renderer as the static page (`html_page`), and
rebuilt only where something changed. No Gradio here, so it is tested without a browser.

A change updates only what it changes: the table is re-read only when its file changed (size and mtime);
each row's result JSON is parsed once; a cell's section (ranking, breakdowns, top-10 significance and
plots) is rebuilt only when that cell's rows changed, each pair's significance test is computed once, and
plots are inline SVG drawn from the section's numbers (no matplotlib in the app). Every user-provided
string is escaped by `html_page`; Markdown on the page is written only from the kit's own strings.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from eval_kit.leaderboard.space.pipeline import Leaderboard


def tab_benchmarks(lb: Leaderboard, rows: list[dict[str, Any]]) -> list[str]:
    """The benchmarks that get a tab: those taking submissions and those with rows, in registry order."""
    from eval_kit import registry

    wanted = set(lb.benchmarks()) | {r["benchmark"] for r in rows}
    known = [b.name for b in registry.benchmarks() if b.name in wanted]
    return known + sorted(wanted - set(known))


def _table_signature(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return ()
    return st.st_size, st.st_mtime_ns, st.st_ino


class Views:
    """The app's HTML per (benchmark, version) and per choice of versions (overview), kept up to date cheaply."""

    def __init__(self, lb: Leaderboard) -> None:
        self.lb = lb
        self._lock = threading.RLock()
        self._signature: tuple | None = None
        self._rows: list[dict[str, Any]] = []
        self._results: dict[tuple, dict[str, Any]] = {}
        self._sections: dict[tuple, tuple[tuple, dict[str, Any]]] = {}
        self._html: dict[tuple, tuple[tuple, str]] = {}
        self._pvalues: dict[tuple, tuple] = {}  # each pair's McNemar test, computed once
        self.builds = 0  # sections built (a test reads it: a change rebuilds only its own cell)

    @property
    def site(self) -> Path:
        return self.lb.settings.data_dir / "site"

    # --- the table -------------------------------------------------------------------------------
    def refresh(self) -> tuple:
        """Re-read the table if its file changed; returns its signature (what a client compares)."""
        from eval_kit.leaderboard.results import read_table

        with self._lock:
            signature = _table_signature(self.lb.settings.table)
            if signature != self._signature:
                self._rows = read_table(self.lb.settings.table)
                self._signature = signature
                live = {self._row_key(r) for r in self._rows}
                self._results = {k: v for k, v in self._results.items() if k in live}
            return self._signature

    def rows(self) -> list[dict[str, Any]]:
        self.refresh()
        return self._rows

    @staticmethod
    def _row_key(row: dict[str, Any]) -> tuple:
        return row["benchmark"], row.get("config"), row["model"], row["run"], row.get("added_at"), row["headline"]

    def _result_of(self, row: dict[str, Any]) -> dict[str, Any]:
        from eval_kit.leaderboard.render import _result

        key = self._row_key(row)
        if key not in self._results:
            self._results[key] = _result(row)
        return self._results[key]

    # --- versions and sections -------------------------------------------------------------------
    def versions(self, benchmark: str) -> list[tuple[str, str, int]]:
        from eval_kit.leaderboard.cells import versions

        return versions([r for r in self.rows() if r["benchmark"] == benchmark])

    def default_version(self, benchmark: str) -> str | None:
        """The version a page shows first: that of the references submissions are scored on (the data the
        operator serves), when it has results, else the newest."""
        from eval_kit.errors import BadInput
        from eval_kit.leaderboard.cells import version_id
        from eval_kit.leaderboard.provenance import dataset_version

        found = [v for v, _, _ in self.versions(benchmark)]
        current = None
        if benchmark in self.lb.benchmarks():
            try:
                path, _ = self.lb.references(benchmark)
                current = version_id({"dataset_version": dataset_version(path),
                                      "dataset_revision": self.lb.revision(benchmark)})
            except BadInput:
                current = None
        return current if current in found else (found[0] if found else None)

    def sections(self, benchmark: str, version: str | None = None) -> list[dict[str, Any]]:
        """The sections of one benchmark at one version (default: `default_version`), each rebuilt only when
        its cell's rows changed."""
        from eval_kit.leaderboard.cells import cells
        from eval_kit.leaderboard.render import build_section

        with self._lock:
            found = self.versions(benchmark)
            if not found:
                return []
            version = version if version in {v for v, _, _ in found} else self.default_version(benchmark)
            out = []
            for cell in cells([r for r in self._rows if r["benchmark"] == benchmark]):
                if cell.version != version:
                    continue
                signature = tuple(sorted(self._row_key(r) for r in cell.rows))
                cached = self._sections.get(cell.key)
                if cached is None or cached[0] != signature:
                    section = build_section(cell, self.site, plots=False, result_of=self._result_of,
                                            pvalues=self._pvalues)
                    self.builds += 1
                    section["build_id"] = self.builds
                    self._sections[cell.key] = (signature, section)
                out.append(self._sections[cell.key][1])
            return out

    # --- HTML ------------------------------------------------------------------------------------
    def updated(self) -> str | None:
        from eval_kit.leaderboard.render import last_updated

        return last_updated(self.rows())

    def board_html(self, benchmark: str, version: str | None = None) -> str:
        """A benchmark tab: the version line, then every config's section at that version."""
        from eval_kit.leaderboard import html_page as hp

        with self._lock:
            sections = self.sections(benchmark, version)
            found = self.versions(benchmark)
            key = (benchmark, sections[0]["version"] if sections else None)
            signature = (tuple(s["build_id"] for s in sections), tuple(found), self.updated())
            cached = self._html.get(key)
            if cached is not None and cached[0] == signature:
                return cached[1]
            if not sections:
                text = "<div class='hk-board'><p class='note'>No results yet: be the first to submit.</p></div>"
            else:
                shown = sections[0]["version_label"]
                head = hp.meta_line(versions=f"{shown} shown; all versions: {hp.versions_summary(found)}",
                                    updated=self.updated())
                text = (f"<div class='hk-board'>{head}{hp.NO_REAL}"
                        + "".join(hp.section_html(s, "svg") for s in sections) + "</div>")
            self._html[key] = (signature, text)
            return text

    def overview_html(self, benchmarks: list[str], chosen: dict[str, str | None]) -> str:
        """The overview at the chosen version of each benchmark."""
        from eval_kit import registry
        from eval_kit.leaderboard import html_page as hp
        from eval_kit.leaderboard.overview import overview
        from eval_kit.leaderboard.render import primary_section

        with self._lock:
            picked = {b: primary_section(self.sections(b, chosen.get(b))) for b in benchmarks}
            titles = {b: (registry.find(b).title if registry.find(b) else b) for b in benchmarks}
            shown = "; ".join(f"{titles[b]} {s['version_label']}" for b, s in picked.items() if s is not None)
            head = hp.meta_line(versions=shown or "none yet", updated=self.updated())
            return f"<div class='hk-board'>{head}{hp.overview_table(overview(picked, titles))}</div>"

    def row_html(self, row: dict[str, Any]) -> str:
        """The row a submission adds, as it will read in the ranking (without a rank of its own)."""
        from eval_kit.leaderboard import html_page as hp
        from eval_kit.leaderboard.cells import cells
        from eval_kit.leaderboard.render import build_section

        section = build_section(cells([row])[0], self.site, plots=False)
        return f"<div class='hk-board hk-added'>{hp.ranking_table(section)}</div>"


def about_markdown() -> str:
    """How scores are computed and what to cite, from each registered benchmark's board and spec."""
    from eval_kit import registry
    from eval_kit.leaderboard.boards import board_for
    from eval_kit.leaderboard.html_page import ABOUT_POINTS

    parts = ["## How scores are computed", "", *(f"- {point}" for point in ABOUT_POINTS), ""]
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
        "From a run folder's `metadata.json`, the model name, backend, settings and dataset revision are taken as "
        "written: the form's Model name and Backend only fill in what the metadata leaves out. The one exception: "
        "a metadata.json that names the model by a local path (written before `hazardkit eval --model-name`); "
        "then the form's Model name wins, else the folder's name. A local path is never shown.", "",
        f"Limits: {human_size(s.max_upload_bytes)} per upload, {s.max_rows} lines, one pending submission per "
        f"user, {s.daily_limit} submissions per user per 24 hours."
        + (" Submissions are reviewed by an operator before they are listed." if s.moderation else ""),
    ])
