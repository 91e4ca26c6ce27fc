"""Render the results table as Markdown and one static HTML page (sortable tables, plots, significance).

The page has no external assets: CSS and a few lines of vanilla JS are inline, plots are PNG files
beside it. Opened with `#selftest`, the page sorts its first table once and records what it saw in
`<body data-*>` attributes, so a headless browser test can check that it works.
"""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_bytes, atomic_write_text
from eval_kit.leaderboard.boards import Board, board_for, coverage, lookup
from eval_kit.leaderboard.provenance import DEFAULT_CONFIG, NAME_PATTERN, SYNTHETIC_CONFIG, checked_name
from eval_kit.leaderboard.significance import pairwise_matrix
from eval_kit.textreport import pct


def _ci(result: dict[str, Any], board: Board) -> str:
    ci = lookup(result, board.ci)
    return f"[{pct(ci[0])}, {pct(ci[1])}]" if ci and None not in ci else "-"


def _counter(result: dict[str, Any], board: Board, key: str) -> str:
    """A counter's cell: the count, and for unparsed answers their share too ("3 (5.0%)")."""
    value = lookup(result, key)
    if value is None:
        return "-"
    if key == board.unparsed and (share := coverage(result, board)["share"]) is not None:
        return f"{value} ({100 * share:.1f}%)"
    return str(value)


def _labels(rows: list[dict[str, Any]], variants: list[Any] | None = None) -> list[str]:
    """Model names, with the run added where one model has several runs of the same prompt variant (runs of
    other variants are told apart by the Prompt variant column, not by a second name)."""
    variants = variants or [None] * len(rows)
    counts: dict[tuple, int] = {}
    for r, v in zip(rows, variants, strict=True):
        counts[(r["model"], v)] = counts.get((r["model"], v), 0) + 1
    return [r["model"] if counts[(r["model"], v)] == 1 else f"{r['model']} [{r['run']}]"
            for r, v in zip(rows, variants, strict=True)]


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


TOP = 10  # models drawn in a plot and compared in a significance matrix: the cell's best by the headline
SMALL_N = 20  # a breakdown cell measured on fewer samples is shown muted


def _plot_file(benchmark: str, config: str | None, name: str, index: int, version: str = "") -> Path:
    """plots/<benchmark>_<version>_<config>_<key>.png from validated names only (free text never becomes a
    path); the version part keeps only letters, digits, `-` and `_` of the version id."""
    slug = name.replace(".", "_").replace(":", "_")
    if not NAME_PATTERN.fullmatch(slug):
        slug = f"plot{index}"
    ver = "".join(c if c.isalnum() else "_" for c in version.replace("unreleased:", "u_").replace("sha256:", ""))
    ver = ver[:20] + "_" if ver else ""
    return Path("plots") / f"{checked_name(benchmark, 'benchmark')}_{ver}{config or 'unknown'}_{slug}.png"


def _support(result: dict[str, Any], key: str, metric: str | None) -> dict[str, Any]:
    """Samples behind each value of a breakdown (label -> n), where the result says: a metric breakdown's
    own `n`, `support[key]` (MovSafeBench), or the reference distribution beside a per-class recall."""
    if metric is not None:
        values = lookup(result, key)
        return {k: v.get("n") for k, v in values.items() if isinstance(v, dict)} if isinstance(values, dict) else {}
    support = lookup(result.get("support") or {}, key)
    if isinstance(support, dict):
        return support
    parent = key.rpartition(".")[0]
    found = lookup(result, f"{parent}.reference_distribution") if parent else None
    return found if isinstance(found, dict) else {}


def _wilson(values: list[float | None], counts: list[Any]) -> list[tuple[float, float] | None]:
    """95% Wilson intervals of proportions measured on `counts` samples (statsmodels), None where unknown."""
    import numpy as np

    ok = [i for i, (v, n) in enumerate(zip(values, counts, strict=True))
          if isinstance(v, int | float) and isinstance(n, int) and not isinstance(n, bool) and n > 0 and 0 <= v <= 1]
    out: list[tuple[float, float] | None] = [None] * len(values)
    if not ok:
        return out
    from statsmodels.stats.proportion import proportion_confint

    n = np.array([counts[i] for i in ok], dtype=float)
    k = np.round(np.array([values[i] for i in ok], dtype=float) * n)
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    for j, i in enumerate(ok):
        out[i] = (float(low[j]), float(high[j]))
    return out


def _settings_text(result: dict[str, Any]) -> str:
    """The submitter's generation settings and model revision (from metadata.json), as one short line."""
    sent = result.get("submission") if isinstance(result.get("submission"), dict) else {}
    parts = [f"{k}={json.dumps(v)[:40]}" for k, v in sorted((sent.get("settings") or {}).items())][:12]
    for key in ("revision", "variant"):
        if sent.get(key):
            parts.insert(0, f"model {key}={str(sent[key])[:60]}" if key == "revision" else f"variant={sent[key]}")
    return ", ".join(parts)


def build(rows: list[dict[str, Any]], out: Path, *, plots: bool = True, top: int = TOP,
          result_of: Any = None, drawn_plots: dict | None = None, pvalues: dict | None = None) -> list[dict[str, Any]]:
    """Sections per cell (benchmark, dataset version, config; demo/synthetic apart): tables as lists of cells,
    plot paths, significance. With `plots`, plots are written to out/plots (only there: their names come
    from validated names). `result_of(row)` gives a row's parsed result (the app caches them);
    `drawn_plots` (file -> what was drawn) lets a plot whose content did not change stay as it is; `pvalues`
    keeps each pair's McNemar test between builds (Holm is applied afresh to the pairs of each matrix)."""
    from eval_kit.leaderboard.cells import cells

    return [build_section(cell, out, plots=plots, top=top, result_of=result_of or _result, drawn_plots=drawn_plots,
                          pvalues=pvalues) for cell in cells(rows)]


def build_section(cell: Any, out: Path, *, plots: bool = True, top: int = TOP, result_of: Any = _result,
                  drawn_plots: dict | None = None, pvalues: dict | None = None) -> dict[str, Any]:
    """One cell's section: ranking, breakdowns (value, n and CI per cell), top-`top` plots and significance."""
    from eval_kit.leaderboard.cells import model_type, short_revision, version_label

    benchmark, config, synthetic, version = cell.benchmark, cell.config, cell.synthetic, cell.version
    plots_dir = (out / "plots").resolve()
    board = board_for(benchmark)
    brows = sorted(cell.rows, key=lambda r: (r["headline"] is None, -(r["headline"] or 0.0), r["model"], r["run"]))
    results = [result_of(r) for r in brows]
    variants = [res.get("variant") if isinstance(res.get("variant"), str) else None for res in results]
    labels = _labels(brows, variants)
    head = ["#", "Model", "Backend", f"{board.headline_label} (%)", "95% CI", board.headline_over_label.capitalize(),
            *(title for _, title in board.columns), *(title for _, title in board.counters),
            "Config", "Dataset version", "Revision"]
    keys = ["rank", "model", "backend", "headline", "ci", "samples", *(f"metric:{k}" for k, _ in board.columns),
            *(f"counter:{k}" for k, _ in board.counters), "config", "version", "revision"]
    rank = ranks([r["headline"] for r in brows])
    main = [[rank[i], label, r["backend"] or "-", pct(r["headline"]), _ci(res, board),
             str(coverage(res, board)["over"] or r["num_samples"]), *(pct(lookup(res, k)) for k, _ in board.columns),
             *(_counter(res, board, k) for k, _ in board.counters),
             r.get("config") or "unknown", r.get("dataset_version") or "local (unreleased)",
             r.get("dataset_revision") or "unknown"]
            for i, (label, r, res) in enumerate(zip(labels, brows, results, strict=True))]
    if any(res.get("dataset_editors") for res in results):  # MovSafeBench: which editor made the images
        head.append("Editor")
        keys.append("editor")
        for cells_, res in zip(main, results, strict=True):
            cells_.append(_editors(res))
    if any(variants):  # SafeRelBench: one model, one row per prompt variant
        head.append("Prompt variant")
        keys.append("variant")
        for cells_, v in zip(main, variants, strict=True):
            cells_.append(v or "-")
    if any(r.get("link") for r in brows):  # submitted through the app: the model's link, as text
        head.append("Link")
        keys.append("link")
        for cells_, r in zip(main, brows, strict=True):
            cells_.append(r.get("link") or "-")
    meta = [{"model": r["model"], "run": r["run"], "label": label, "link": r.get("link"), "rank": rank[i],
             "backend": r.get("backend"), "type": model_type(r), "text_only": bool(r.get("text_only")),
             "synthetic": bool(r.get("synthetic")), "revision": r.get("dataset_revision"),
             "revision_short": short_revision(r.get("dataset_revision")), "added_at": r.get("added_at"),
             "headline": r["headline"], "ci": (r["ci_low"], r["ci_high"]), "settings": _settings_text(res),
             "variant": variants[i]}
            for i, (label, r, res) in enumerate(zip(labels, brows, results, strict=True))]
    breakdowns = []
    bkeys = board.breakdowns or tuple((k, k.replace("_", " "), ()) for k in sorted(
        {k for res in results for k, v in res.items() if k.startswith("by_") and isinstance(v, dict)}))
    orders: dict[str, tuple[str, ...]] = {}
    for key, title, order, *metric in bkeys:
        metric_name = metric[0] if metric else None
        name = f"{key}:{metric_name}" if metric_name else key
        orders[name] = order
        columns = _breakdown_keys(results, key, order)
        if not columns:
            continue
        table, detail = [], []
        for label, res in zip(labels, results, strict=True):
            values, support = _values(res, key, metric_name), _support(res, key, metric_name)
            vs = [values.get(c) for c in columns]
            ns = [support.get(c) for c in columns]
            table.append([label, *(pct(v) for v in vs)])
            detail.append([{"v": v, "n": n if isinstance(n, int) and not isinstance(n, bool) else None, "ci": ci}
                           for v, n, ci in zip(vs, ns, _wilson(vs, ns), strict=True)])
        breakdowns.append({"key": name, "title": title, "head": ["Model", *columns], "rows": table,
                           "cells": detail})
    best = list(range(min(top, len(brows))))  # brows are ranked: the first `top`
    drawn = []
    for index, name in enumerate(board.plots or tuple(b["key"] for b in breakdowns[:1])):
        key, _, metric_name = name.partition(":")
        columns = _breakdown_keys([results[i] for i in best], key, orders.get(name, ()))
        if not columns:
            continue
        apart = synthetic and not SYNTHETIC_CONFIG.search(config or "")  # beside a real config of that name
        file = _plot_file(benchmark, f"{config}_synthetic" if apart else config, name, index, version)
        if (out / file).resolve().parent != plots_dir:  # a last guard: never write outside out/plots
            raise BadInput(f"plot path {file} leaves the output folder", field="benchmark")
        what = metric_name or ("recall" if "recall" in key else "accuracy")
        table_title = next((b["title"] for b in breakdowns if b["key"] == name), None)
        where = key.split(".")[-1].replace("by_", "by ").replace("_", " ")
        shown = f", top {len(best)} of {len(brows)}" if len(best) < len(brows) else ""
        title = (f"{board.title} ({config or 'unknown config'}, {version_label(version)}{shown}): "
                 f"{table_title or f'{what} {where}'} per model")
        series = [_values(results[i], key, metric_name or None) for i in best]
        if plots:
            content = json.dumps([title, [labels[i] for i in best], series, columns], sort_keys=True, default=str)
            if drawn_plots is None or drawn_plots.get(file.as_posix()) != content or not (out / file).is_file():
                _plot(out / file, title, [labels[i] for i in best], series, columns, ylabel=f"{what} (%)")
                if drawn_plots is not None:
                    drawn_plots[file.as_posix()] = content
        drawn.append({"file": file.as_posix(), "title": title, "labels": [labels[i] for i in best], "series": series,
                      "columns": columns, "ylabel": f"{what} (%)"})
    matrices = []
    for key, title in board.significance:
        paired = _paired([results[i] for i in best], [labels[i] for i in best], key)
        if len(paired) >= 2:
            ids = {labels[i]: (key, brows[i]["run"], brows[i]["model"], brows[i].get("added_at"), brows[i]["headline"])
                   for i in best}
            matrices.append({"title": title, "matrix": pairwise_matrix(paired, cache=pvalues, ids=ids),
                             "of": len(brows)})
    heading = f"{board.title}: config {config}" if config else f"{board.title}: config unknown"
    if synthetic:
        status = ("Demo / synthetic data: these rows are not benchmark results and are ranked only among "
                  "themselves, never with real configs.")
    elif config is None:
        status = "Provenance unknown: added before the dataset config and revision were recorded."
    else:
        status = ""
    heading += " (demo / synthetic data)" if synthetic else ""
    heading += f" · dataset {version_label(version)}"
    return {"benchmark": benchmark, "config": config, "version": version, "version_label": version_label(version),
            "anchor": cell.anchor, "synthetic": synthetic, "heading": heading, "status": status, "board": board,
            "head": head, "keys": keys, "rows": main, "meta": meta, "breakdowns": breakdowns, "plots": drawn,
            "matrices": matrices, "count": len(brows), "top": len(best)}


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


# what GitHub's renderer (cmark-gfm with its autolink extension) turns into a link inside plain text: a URL
# (http://, https://, ftp://), `www.`, an e-mail address (also after mailto: or xmpp:). `<...>` autolinks
# cannot form: `<` is always written as an entity.
_LINK_FORM = re.compile(r"(?i)://|www\.|@")


def md_text(text: str) -> str:
    """Text as Markdown that renders as that text: no raw HTML (a model named `<script>` shows as such),
    no link or image (`](` and `][` are broken), no table break (`|`, newlines).

    Text holding a link form (`https://...`, `www.`, an e-mail address) becomes a code span: GFM autolinks
    text after inline parsing, through backslash escapes and entities alike, but never inside code."""
    text = str(text).replace("\r", " ").replace("\n", " ")
    if _LINK_FORM.search(text):
        longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
        fence = "`" * (longest + 1)
        code = text.replace("|", "\\|")  # inside code only `|` needs escaping (a table's cell separator)
        return f"{fence} {code} {fence}"
    return text.translate(_MD_SPECIAL).replace("](", "]\\(").replace("][", "]\\[")


def markdown(sections: list[dict[str, Any]]) -> str:
    def table(head: list[str], rows: list[list[str]]) -> list[str]:
        esc = [[md_text(c) for c in r] for r in [head, *rows]]
        return ["| " + " | ".join(esc[0]) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |"
                                                                           for r in esc[1:]]

    lines = ["# hazardkit leaderboard", "", "Scores in %; JSON results keep fractions in [0, 1]. Each (benchmark, "
             "dataset version, config) is ranked on its own; equal scores share a rank.", ""]
    for s in sections:
        board = s["board"]
        lines += [f"## {md_text(s['heading'])}", ""] + ([f"**{md_text(s['status'])}**", ""] if s["status"] else [])
        lines += [md_text(board.note), ""] if board.note else []
        lines += [*table(s["head"], s["rows"]), ""]
        for b in s["breakdowns"]:
            lines += [f"### {md_text(b['title'])}", "", *table(b["head"], b["rows"]), ""]
        for m in s["matrices"]:
            shown = len(m["matrix"]["models"])
            among = f" among the top {shown} of {m['of']}" if m["of"] > shown else ""
            lines += [f"### Pairwise significance{md_text(_on(m['title']))} (Holm-adjusted exact McNemar p{among}; "
                      "* &lt; 0.05; (row right & column wrong / row wrong & column right))", ""]
            lines += [*table(*_matrix_cells(m["matrix"])), ""]
        for p in s["plots"]:
            lines += [f"![{md_text(p['title'])}]({p['file']})", ""]
    return "\n".join(lines)


def primary_section(found: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The section of one benchmark and version the overview shows: a real config (`default` first, else the
    one with most results), else the first demo/synthetic one."""
    real = [s for s in found if not s["synthetic"] and s["config"] is not None]
    if real:
        return min(real, key=lambda s: (s["config"] != DEFAULT_CONFIG, -s["count"], s["config"]))
    return found[0] if found else None


MAX_OVERVIEW_COMBINATIONS = 64  # the static page precomputes the overview for every choice of versions up to this


def last_updated(rows: list[dict[str, Any]]) -> str | None:
    """When the newest row was added, as "2026-12-01 22:10 UTC"."""
    stamps = [str(r.get("added_at")) for r in rows if r.get("added_at")]
    if not stamps:
        return None
    newest = max(stamps)
    return newest[:16].replace("T", " ") + " UTC"


def page(sections: list[dict[str, Any]], *, updated: str | None = None) -> str:
    """The static page: navigation bar (with a version choice per benchmark), filters and column chooser,
    the overview, each benchmark's cells (only the chosen version shown), About."""
    import itertools

    from eval_kit import registry
    from eval_kit.leaderboard import html_page as hp
    from eval_kit.leaderboard.overview import overview

    e = html.escape
    benches: dict[str, list[dict[str, Any]]] = {}
    for s in sections:
        benches.setdefault(s["benchmark"], []).append(s)
    titles = {b: s[0]["board"].title for b, s in benches.items()}
    versions: dict[str, list[tuple[str, str, int]]] = {}
    for b, found in benches.items():
        counts: dict[str, tuple[str, int]] = {}
        for s in found:  # sections are in version order (newest first)
            label, n = counts.get(s["version"], (s["version_label"], 0))
            counts[s["version"]] = (label, n + s["count"])
        versions[b] = [(v, label, n) for v, (label, n) in counts.items()]
    nav = ["<nav class='hk-nav'><a href='#overview'>Overview</a>"]
    nav += [f"<a href='#bench-{e(b)}'>{e(titles[b])}</a>" for b in benches]
    nav.append("<a href='#about'>About</a>")
    for b, found in versions.items():
        options = "".join(f"<option value='{e(v)}'{' selected' if i == 0 else ''}>{e(label)} ({n} result"
                          f"{'s' * (n != 1)})</option>" for i, (v, label, n) in enumerate(found))
        nav.append(f"<label>{e(titles[b])} version <select class='hk-version' data-bench='{e(b)}'>{options}"
                   "</select></label>")
    nav.append(f"<span class='updated'>last updated {e(updated or 'never')}</span></nav>")
    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'><title>hazardkit leaderboard</title>",
             f"<style>body{{margin:0}}main{{margin:0 2em 2em}}{hp.CSS}</style></head><body class='hk-board'>",
             "".join(nav), "<main><h1>hazardkit leaderboard</h1>",
             "<p class='note'>Scores in %. Each (benchmark, dataset version, config) is ranked on its own; equal "
             "scores share a rank. Click a column header to sort; filters hide rows (ranks stay those of the whole "
             "table).</p>", hp.filter_bar(sorted({m.get("backend") or "" for s in sections for m in s["meta"]}))]
    parts.append("<section id='overview'><h2>Overview</h2>")
    parts.append(hp.meta_line(versions="choose one per benchmark in the bar above ("
                              + "; ".join(f"{titles[b]}: {hp.versions_summary(v)}" for b, v in versions.items())
                              + ")", updated=updated))
    choices = [[v for v, _, _ in versions[b]] for b in benches]
    combos = list(itertools.product(*choices))
    if len(combos) > MAX_OVERVIEW_COMBINATIONS:
        combos = [tuple(c[0] for c in choices)]
        parts.append("<p class='note'>Too many version combinations: the overview shows the newest version of "
                     "each benchmark.</p>")
    for combo in combos:
        chosen = {b: primary_section([s for s in benches[b] if s["version"] == v]) for b, v in zip(benches, combo,
                                                                                                   strict=True)}
        key = "|".join(f"{b}={v}" for b, v in zip(benches, combo, strict=True)) if len(combos) > 1 else None
        parts.append(hp.overview_table(overview(chosen, titles), key))
    parts.append("</section>")
    for b, found in benches.items():
        parts.append(f"<div class='hk-bench' id='bench-{e(b)}'><h2>{e(titles[b])}</h2>")
        parts.append(hp.meta_line(versions=hp.versions_summary(versions[b]), updated=updated))
        parts += [hp.section_html(s) for s in found]
        parts.append("</div>")
    parts.append("<section id='about'><h2>About</h2><ul>" + "".join(f"<li>{e(t)}</li>" for t in hp.ABOUT_POINTS)
                 + "</ul>")
    for b in benches:
        bench = registry.find(b)
        citation = bench.part("citation") if bench is not None and bench.citation else ""
        if citation:
            parts.append(f"<h3>{e(titles[b])}</h3><pre>{e(citation)}</pre>")
    parts.append(f"</section></main><script>{hp.JS}</script></body></html>")
    return "\n".join(parts)


def render(rows: list[dict[str, Any]], out: Path) -> dict[str, Path]:
    """Write out/leaderboard.md, out/index.html and out/plots/*.png; returns their paths."""
    from eval_kit.safe_paths import refuse_links

    refuse_links(out, "leaderboard.md", "index.html", "plots")  # never written through a planted link
    if out.exists() and not out.is_dir():
        raise BadInput("--out is a file", path=out, fix="pass a folder")
    out.mkdir(parents=True, exist_ok=True)
    sections = build(rows, out)
    md, index = out / "leaderboard.md", out / "index.html"
    atomic_write_text(md, markdown(sections) + "\n")
    atomic_write_text(index, page(sections, updated=last_updated(rows)))
    return {"markdown": md, "html": index, "plots": out / "plots"}
