"""Render the results table as Markdown and one static HTML page (sortable tables, plots, significance).

The page has no external assets: CSS and a few lines of vanilla JS are inline, plots are PNG files
beside it. Opened with `#selftest`, the page sorts its first table once and records what it saw in
`<body data-*>` attributes, so a headless browser test can check that it works.
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_bytes, atomic_write_text
from eval_kit.leaderboard.boards import Board, board_for, lookup
from eval_kit.leaderboard.provenance import NAME_PATTERN, SYNTHETIC_CONFIG, checked_name
from eval_kit.leaderboard.significance import pairwise_matrix
from eval_kit.textreport import pct


def _ci(result: dict[str, Any], board: Board) -> str:
    ci = lookup(result, board.ci)
    return f"[{pct(ci[0])}, {pct(ci[1])}]" if ci and None not in ci else "-"


def _labels(rows: list[dict[str, Any]]) -> list[str]:
    """Model names, with the run added where one model has several runs."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["model"]] = counts.get(r["model"], 0) + 1
    return [r["model"] if counts[r["model"]] == 1 else f"{r['model']} [{r['run']}]" for r in rows]


def _values(result: dict[str, Any], key: str, metric: str | None = None) -> dict[str, Any]:
    """A breakdown's label -> fraction; with `metric`, each label's dict reduced to that metric."""
    values = lookup(result, key)
    if not isinstance(values, dict):
        return {}
    if metric is None:
        return values
    return {k: v.get(metric) if isinstance(v, dict) else None for k, v in values.items()}


def _editors(result: dict[str, Any]) -> str:
    """The editors of the scored dataset's edited images (`dataset_editors` of the score), as one cell."""
    editors = result.get("dataset_editors")
    if not isinstance(editors, list) or not editors:
        return "not recorded"
    return ", ".join(str(e)[:60] for e in editors[:4]) + (" ..." if len(editors) > 4 else "")


def _breakdown_keys(results: list[dict[str, Any]], key: str, order: tuple[str, ...]) -> list[str]:
    present = {k for res in results for k in _values(res, key)}
    return [k for k in order if k in present] + sorted(present - set(order))


def _plot(path: Path, title: str, labels: list[str], series: list[dict[str, Any]], columns: list[str],
          ylabel: str = "accuracy (%)") -> None:
    """Grouped bars: one group per breakdown value, one bar per model, the metric in %."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    # every label is text: model names and breakdown keys come from submitters, and "$\\foo$" would make
    # mathtext raise while drawing (a blank tab, a failed render); usetex would run LaTeX on them
    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        width = 0.8 / max(1, len(labels))
        fig, ax = plt.subplots(figsize=(min(13.0, max(8.0, 2.5 + 0.8 * len(columns))), 3.8), dpi=100)
        x = np.arange(len(columns))
        for i, (label, values) in enumerate(zip(labels, series, strict=True)):
            heights = [np.nan if values.get(c) is None else 100 * values[c] for c in columns]
            short = label if len(label) <= 40 else label[:39] + "…"
            ax.bar(x + (i - (len(labels) - 1) / 2) * width, heights, width, label=short)
        ax.set_xticks(x, [c.replace("_", " ") for c in columns], rotation=30 if len(columns) > 6 else 0, ha="right"
                      if len(columns) > 6 else "center")
        ax.set_ylabel(ylabel)
        ax.set_ylim(0, 100)
        ax.set_title(title)
        # outside the axes: the bars stay visible
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight")  # the title and an outside legend are never cut off
        plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())  # a fresh temporary name: never through a planted link


def _paired(results: list[dict[str, Any]], labels: list[str], key: str) -> dict[str, dict[str, bool]]:
    """Per model: sample id -> outcome, from per_sample["correct"] or per_sample_tasks[key]."""
    out = {}
    for label, res in zip(labels, results, strict=True):
        per = res.get("per_sample")
        if not isinstance(per, dict) or "id" not in per:
            continue
        values = per.get("correct") if key == "correct" else (res.get("per_sample_tasks") or {}).get(key)
        if isinstance(values, list) and len(values) == len(per["id"]):
            out[label] = dict(zip(per["id"], values, strict=True))
    return out


def _result(row: dict[str, Any]) -> dict[str, Any]:
    """A row's full result; a table whose JSON cannot be read is bad input, not a crash."""
    try:
        result = json.loads(row["result_json"] or "")
    except (ValueError, RecursionError, TypeError):
        result = None
    if not isinstance(result, dict):
        raise BadInput(f"row {row['model'][:40]!r}: result_json is not a JSON object", field="result_json",
                       fix="add the result again with `leaderboard add`")
    return result


def ranks(values: list[float | None]) -> list[str]:
    """Competition ranks ("1", "1", "3"): equal scores share a rank; a row without a score has none ("-")."""
    scored = [v for v in values if v is not None]
    return ["-" if v is None else str(1 + sum(other > v for other in scored)) for v in values]


def _sections_of(rows: list[dict[str, Any]]) -> list[tuple[str, str | None, bool, list[dict[str, Any]]]]:
    """(benchmark, config, synthetic, rows) per ranking group: each dataset config of a benchmark is ranked
    on its own, and demo/synthetic rows never with real ones; real configs first, then rows of unknown
    provenance, then demo/synthetic data."""
    groups: dict[tuple[str, str | None, bool], list[dict[str, Any]]] = {}
    for r in rows:
        checked_name(r["benchmark"], "benchmark")
        if r.get("config") is not None:
            checked_name(r["config"], "config")
        groups.setdefault((r["benchmark"], r.get("config"), bool(r.get("synthetic"))), []).append(r)

    def order(key: tuple[str, str | None, bool]) -> tuple:
        benchmark, config, synthetic = key
        return benchmark, 2 if synthetic else int(config is None), config or ""

    return [(*key, groups[key]) for key in sorted(groups, key=order)]


def _plot_file(benchmark: str, config: str | None, name: str, index: int) -> Path:
    """plots/<benchmark>_<config>_<key>.png from validated names only (free text never becomes a path)."""
    slug = name.replace(".", "_").replace(":", "_")
    if not NAME_PATTERN.fullmatch(slug):
        slug = f"plot{index}"
    return Path("plots") / f"{checked_name(benchmark, 'benchmark')}_{config or 'unknown'}_{slug}.png"


def build(rows: list[dict[str, Any]], out: Path, *, plots: bool = True) -> list[dict[str, Any]]:
    """Sections per benchmark and config (tables as lists of cells, plot paths, significance); with `plots`,
    the plots are written to out/plots (only there: their names come from validated names)."""
    sections = []
    plots_dir = (out / "plots").resolve()
    for benchmark, config, synthetic, group in _sections_of(rows):
        board = board_for(benchmark)
        brows = sorted(group, key=lambda r: (r["headline"] is None, -(r["headline"] or 0.0), r["model"], r["run"]))
        results = [_result(r) for r in brows]
        labels = _labels(brows)
        head = ["#", "Model", "Backend", f"{board.headline_label} (%)", "95% CI", "Samples",
                *(title for _, title in board.columns), *(title for _, title in board.counters),
                "Config", "Dataset version", "Revision", "Editor"]
        rank = ranks([r["headline"] for r in brows])
        main = [[rank[i], label, r["backend"] or "-", pct(r["headline"]), _ci(res, board),
                 str(r["num_samples"]), *(pct(lookup(res, k)) for k, _ in board.columns),
                 *(str(v) if (v := lookup(res, k)) is not None else "-" for k, _ in board.counters),
                 r.get("config") or "unknown", r.get("dataset_version") or "local (unreleased)",
                 r.get("dataset_revision") or "unknown", _editors(res)]
                for i, (label, r, res) in enumerate(zip(labels, brows, results, strict=True))]
        if any(r.get("link") for r in brows):  # submitted through the app: the model's link, as text
            head.append("Link")
            for cells, r in zip(main, brows, strict=True):
                cells.append(r.get("link") or "-")
        breakdowns = []
        keys = board.breakdowns or tuple((k, k.replace("_", " "), ()) for k in sorted(
            {k for res in results for k, v in res.items() if k.startswith("by_") and isinstance(v, dict)}))
        orders: dict[str, tuple[str, ...]] = {}
        for key, title, order, *metric in keys:
            metric_name = metric[0] if metric else None
            name = f"{key}:{metric_name}" if metric_name else key
            orders[name] = order
            columns = _breakdown_keys(results, key, order)
            if not columns:
                continue
            table = [[label, *(pct(_values(res, key, metric_name).get(c)) for c in columns)]
                     for label, res in zip(labels, results, strict=True)]
            breakdowns.append({"key": name, "title": title, "head": ["Model", *columns], "rows": table})
        drawn = []
        for index, name in enumerate(board.plots or tuple(b["key"] for b in breakdowns[:1])):
            key, _, metric_name = name.partition(":")
            columns = _breakdown_keys(results, key, orders.get(name, ()))
            if not columns:
                continue
            apart = synthetic and not SYNTHETIC_CONFIG.search(config or "")  # beside a real config of that name
            file = _plot_file(benchmark, f"{config}_synthetic" if apart else config, name, index)
            if (out / file).resolve().parent != plots_dir:  # a last guard: never write outside out/plots
                raise BadInput(f"plot path {file} leaves the output folder", field="benchmark")
            what = metric_name or ("recall" if "recall" in key else "accuracy")
            table_title = next((b["title"] for b in breakdowns if b["key"] == name), None)
            where = key.split(".")[-1].replace("by_", "by ").replace("_", " ")
            title = f"{board.title} ({config or 'unknown config'}): {table_title or f'{what} {where}'} per model"
            if plots:
                _plot(out / file, title, labels, [_values(res, key, metric_name or None) for res in results],
                      columns, ylabel=f"{what} (%)")
            drawn.append({"file": file.as_posix(), "title": title})
        matrices = []
        for key, title in board.significance:
            paired = _paired(results, labels, key)
            if len(paired) >= 2:
                matrices.append({"title": title, "matrix": pairwise_matrix(paired)})
        heading = f"{board.title}: config {config}" if config else f"{board.title}: config unknown"
        if synthetic:
            status = ("Demo / synthetic data: these rows are not benchmark results and are ranked only among "
                      "themselves, never with real configs.")
        elif config is None:
            status = "Provenance unknown: added before the dataset config and revision were recorded."
        else:
            status = ""
        anchor = f"{benchmark}-{config or 'unknown'}" + ("-synthetic" if synthetic else "")
        heading += " (demo / synthetic data)" if synthetic else ""
        sections.append({"benchmark": benchmark, "config": config, "anchor": anchor, "synthetic": synthetic,
                         "heading": heading,
                         "status": status, "board": board, "head": head, "rows": main, "breakdowns": breakdowns,
                         "plots": drawn, "matrices": matrices})
    return sections


def _on(title: str) -> str:
    return f": {title}" if title else ""


def _matrix_cells(matrix: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    names = matrix["models"]
    rows = []
    for a in names:
        cells = [a]
        for b in names:
            cell = matrix["pairs"].get((a, b))
            if a == b:
                cells.append("—")
            elif cell is None:
                cells.append("n/a")
            else:
                mark = "*" if cell["significant"] else ""
                cells.append(f"{cell['p_holm']:.3g}{mark} ({cell['wins']}/{cell['losses']})")
        rows.append(cells)
    return ["Row vs column", *names], rows


_MD_SPECIAL = str.maketrans({"\\": "\\\\", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;", "\n": " ",
                             "\r": " "})


def md_text(text: str) -> str:
    """Text as Markdown that renders as that text: no raw HTML (a model named `<script>` shows as such),
    no link or image (`](` and `][` are broken), no table break (`|`, newlines)."""
    return str(text).translate(_MD_SPECIAL).replace("](", "]\\(").replace("][", "]\\[")


def markdown(sections: list[dict[str, Any]]) -> str:
    def table(head: list[str], rows: list[list[str]]) -> list[str]:
        esc = [[md_text(c) for c in r] for r in [head, *rows]]
        return ["| " + " | ".join(esc[0]) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |"
                                                                           for r in esc[1:]]

    lines = ["# hazardkit leaderboard", "", "Scores in %; JSON results keep fractions in [0, 1]. Each dataset "
             "config is ranked on its own; equal scores share a rank.", ""]
    for s in sections:
        board = s["board"]
        lines += [f"## {md_text(s['heading'])}", ""] + ([f"**{md_text(s['status'])}**", ""] if s["status"] else [])
        lines += [md_text(board.note), ""] if board.note else []
        lines += [*table(s["head"], s["rows"]), ""]
        for b in s["breakdowns"]:
            lines += [f"### {md_text(b['title'])}", "", *table(b["head"], b["rows"]), ""]
        for m in s["matrices"]:
            lines += [f"### Pairwise significance{md_text(_on(m['title']))} (Holm-adjusted exact McNemar p; "
                      "* &lt; 0.05; (row right & column wrong / row wrong & column right))", ""]
            lines += [*table(*_matrix_cells(m["matrix"])), ""]
        for p in s["plots"]:
            lines += [f"![{md_text(p['title'])}]({p['file']})", ""]
    return "\n".join(lines)


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
th.sortable{cursor:pointer;background:#eef}th.sortable:hover{background:#dde}tr:nth-child(even){background:#fafafa}
.sig{background:#ffe9a8}td.t,th{text-align:left}
img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}.note{color:#555}
.status{background:#fff3cd;border:1px solid #e0c36a;padding:4px 8px;font-weight:600}"""

_JS = """function sortTable(th){const t=th.closest('table'),i=[...th.parentNode.children].indexOf(th),
b=t.tBodies[0],asc=th.dataset.dir!=='asc';const key=c=>{const v=c.children[i].dataset.v??c.children[i].textContent;
const n=parseFloat(v);return isNaN(n)?v:n};[...b.rows].sort((r,s)=>{const x=key(r),y=key(s);
return (x>y?1:x<y?-1:0)*(asc?1:-1)}).forEach(r=>b.appendChild(r));th.dataset.dir=asc?'asc':'desc'}
document.querySelectorAll('th.sortable').forEach(th=>th.addEventListener('click',()=>sortTable(th)));
window.addEventListener('load',()=>{if(location.hash!=='#selftest')return;const d=document.body.dataset,
imgs=[...document.images];d.imagesTotal=imgs.length;d.imagesLoaded=imgs.filter(m=>m.complete&&m.naturalWidth>0).length;
d.tables=document.querySelectorAll('table').length;const t=document.querySelector('table.sortable-table');
if(t){const th=t.querySelectorAll('th.sortable')[3];th.click();const v=[...t.tBodies[0].rows].map(r=>
parseFloat(r.children[3].dataset.v));d.sortedAsc=String(v.every((x,k)=>k===0||isNaN(x)||isNaN(v[k-1])||v[k-1]<=x))}
d.selftest='done'});"""


def page(sections: list[dict[str, Any]]) -> str:
    e = html.escape

    def table(head: list[str], rows: list[list[str]], *, sortable: bool = True, sig: set | None = None) -> str:
        cls = ' class="sortable-table"' if sortable else ""
        ths = "".join(f'<th class="sortable">{e(h)}</th>' if sortable else f"<th>{e(h)}</th>" for h in head)
        body = []
        for ri, r in enumerate(rows):
            tds = []
            for ci, c in enumerate(r):
                num = c.split(" ")[0].rstrip("*")
                v = f' data-v="{e(num)}"' if num.replace(".", "", 1).replace("e-", "", 1).isdigit() else ""
                klass = ' class="sig"' if sig and (ri, ci) in sig else ("" if v else ' class="t"')
                tds.append(f"<td{v}{klass}>{e(c)}</td>")
            body.append("<tr>" + "".join(tds) + "</tr>")
        return f"<table{cls}><thead><tr>{ths}</tr></thead><tbody>{''.join(body)}</tbody></table>"

    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'><title>hazardkit leaderboard</title>",
             f"<style>{_CSS}</style></head><body><h1>hazardkit leaderboard</h1>",
             "<p class='note'>Scores in %. Click a column header to sort.</p>"]
    for s in sections:
        board = s["board"]
        parts.append(f"<section id='{e(s['anchor'])}'><h2>{e(s['heading'])}</h2>")
        if s["status"]:
            parts.append(f"<p class='status'>{e(s['status'])}</p>")
        if board.note:
            parts.append(f"<p class='note'>{e(board.note)}</p>")
        parts.append(table(s["head"], s["rows"]))
        for b in s["breakdowns"]:
            parts.append(f"<h3>{e(b['title'])}</h3>" + table(b["head"], b["rows"]))
        for m in s["matrices"]:
            head, rows = _matrix_cells(m["matrix"])
            sig = {(ri, ci) for ri, r in enumerate(rows) for ci, c in enumerate(r) if "*" in c}
            parts.append(f"<h3>Pairwise significance{e(_on(m['title']))}</h3><p class='note'>Holm-adjusted exact "
                         "McNemar p-values on "
                         "paired per-sample correctness; * and shading: &lt; 0.05; in brackets: samples only the "
                         "row model got right / only the column model got right.</p>")
            parts.append(table(head, rows, sortable=False, sig=sig))
        for p in s["plots"]:
            parts.append(f"<figure><img src='{e(p['file'])}' alt='{e(p['title'])}'>"
                         f"<figcaption>{e(p['title'])}</figcaption></figure>")
        parts.append("</section>")
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)


def render(rows: list[dict[str, Any]], out: Path) -> dict[str, Path]:
    """Write out/leaderboard.md, out/index.html and out/plots/*.png; returns their paths."""
    if out.exists() and not out.is_dir():
        raise BadInput("--out is a file", path=out, fix="pass a folder")
    out.mkdir(parents=True, exist_ok=True)
    sections = build(rows, out)
    md, index = out / "leaderboard.md", out / "index.html"
    atomic_write_text(md, markdown(sections) + "\n")
    atomic_write_text(index, page(sections))
    return {"markdown": md, "html": index, "plots": out / "plots"}
