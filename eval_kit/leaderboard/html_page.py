"""The leaderboard as HTML: one renderer for the static page (`leaderboard render`) and the app's tabs.

Everything a submitter controls (model names, links, backends, settings) goes through `html.escape`; a link
becomes an `href` only when it is an http(s) URL. The filters, the column chooser and the static page's
version choice write one stylesheet (`#hk-dynamic`) from the controls' state, so tables that the app
re-renders obey them without any further script. Sorting is one delegated click handler.

Colours follow the MovSafeBench paper's tables 3 and 4: in a breakdown, a model's easiest value is cyan,
its hardest orange, and values below its own headline score light orange; a value measured on fewer than
`SMALL_N` samples is muted grey and left uncoloured. The best value of each ranking column is bold.
"""

from __future__ import annotations

import html
import re
from typing import Any

from eval_kit.leaderboard.render import SMALL_N, _matrix_cells, _on
from eval_kit.textreport import pct

e = html.escape
_URL = re.compile(r"https?://[^\s<>\"'`]{1,190}")
# (class, label, shown by default) of the ranking's optional columns, in the column chooser's order
OPTIONAL_COLUMNS = (("type", "Type", True), ("backend", "Backend", True), ("ci", "95% CI", True),
                    ("samples", "Samples", True), ("metric", "Other metrics", True), ("counter", "Counters", True),
                    ("config", "Config", True), ("version", "Dataset version", True),
                    ("revision", "Revision", True), ("link", "Link", True), ("settings", "Settings", False),
                    ("added", "Added", False))
KNOWN_BACKENDS = ("transformers", "vllm", "openai", "lmms-eval", "baseline")

CSS = """.hk-board{font-family:system-ui,sans-serif;color:#222;font-size:14px}
.hk-board table{border-collapse:collapse;margin:0.4em 0 1.2em;font-size:12.5px}
.hk-board .hk-scroll{max-width:100%;overflow-x:auto}
.hk-board th,.hk-board td{border:1px solid #d4d4d4;padding:3px;text-align:left;vertical-align:top}
.hk-board th{background:#eef1f7;font-weight:600;white-space:normal;max-width:5.8em;
 font-size:12px}
.hk-board th.sortable{cursor:pointer}.hk-board th.sortable:hover{background:#dde3f0}
.hk-board th[data-dir=asc]::after{content:" \\25B2"}.hk-board th[data-dir=desc]::after{content:" \\25BC"}
.hk-board td.num,.hk-board th.num{text-align:right;font-variant-numeric:tabular-nums}
.hk-board td.num{white-space:nowrap}.hk-board th small{font-weight:400;color:#555}
.hk-board td.best{font-weight:700}.hk-board .ci{color:#666;font-size:11px;white-space:nowrap}
.hk-board td.muted{color:#9a9a9a;font-style:italic}
.hk-board td.easy{background:#c8f0f4}.hk-board td.hard{background:#ffc99a}.hk-board td.below{background:#ffeedd}
.hk-board td.sig{background:#ffe08a}.hk-board td.diag{color:#aaa;text-align:center}
.hk-board td.model{min-width:7em;max-width:22em;overflow-wrap:break-word}
.hk-board td a{color:#1a4fb5;padding:0;margin:0}
.hk-board td.rev{font-family:ui-monospace,monospace;font-size:12px;overflow-wrap:anywhere;max-width:5.5em}
.hk-board td.num.c-ci,.hk-board td.num.c-counter{white-space:normal}
.hk-board .note{color:#555;margin:0.3em 0}.hk-board .legend{color:#555;font-size:12px;margin:0.2em 0 0.6em}
.hk-board .status{background:#fff3cd;border:1px solid #e0c36a;padding:4px 8px;font-weight:600}
.hk-board .meta{color:#444;background:#f4f6fa;border:1px solid #dfe3ea;padding:4px 8px;margin:0.3em 0 0.8em}
.hk-board img{max-width:100%;border:1px solid #ddd;margin:0.3em 0}
.hk-board h2{margin:1.2em 0 0.3em;font-size:1.3em}.hk-board h3{margin:0.9em 0 0.2em;font-size:1.05em}
.hk-board details{margin:0.3em 0}.hk-board summary{cursor:pointer;font-weight:600}
.hk-filters{display:flex;flex-wrap:wrap;gap:0.3em 1.4em;align-items:baseline;font-size:13px;
 padding:6px 10px;border:1px solid #dfe3ea;background:#f8f9fb;margin:0.4em 0}
.hk-filters fieldset{border:0;padding:0;margin:0}.hk-filters legend{font-weight:600;padding:0;float:left;
 margin-right:0.5em}.hk-filters label{margin-right:0.7em;white-space:nowrap}
.hk-nav{position:sticky;top:0;z-index:5;background:#1f2d4d;color:#fff;padding:6px 12px;display:flex;
 flex-wrap:wrap;gap:0.4em 1.2em;align-items:center;font-size:14px}
.hk-nav a{color:#fff;text-decoration:none;font-weight:600}.hk-nav a:hover{text-decoration:underline}
.hk-nav select{font-size:13px}.hk-nav .updated{margin-left:auto;color:#cfd8ea}
.hk-board .demo-tag{background:#fff3cd;border:1px solid #e0c36a;border-radius:3px;font-size:11px;padding:0 3px;
 font-weight:600;color:#6b5200}
.hk-no-real{display:none}
body:has(#hide-demo:checked) .hk-overview:not(:has(tbody tr[data-synthetic="0"])) .hk-no-real,
body:has(#hide-demo:checked) .hk-board:not(:has(.hk-cell[data-synthetic="0"])) > .hk-no-real{display:block}"""

JS = """(function(){if(window.hkBoard)return;window.hkBoard=true;
function sortTable(th){const t=th.closest('table'),i=[...th.parentNode.children].indexOf(th),b=t.tBodies[0],
asc=th.dataset.dir!=='asc';const key=r=>{const c=r.children[i];if(!c)return '';const v=c.dataset.v??c.textContent;
const n=parseFloat(v);return isNaN(n)?v:n};const num=x=>typeof x==='number';
[...b.rows].sort((r,s)=>{const x=key(r),y=key(s);if(num(x)!==num(y))return num(x)?-1:1;
return (x>y?1:x<y?-1:0)*(asc?1:-1)}).forEach(r=>b.appendChild(r));
t.querySelectorAll('th').forEach(h=>{if(h!==th)delete h.dataset.dir});th.dataset.dir=asc?'asc':'desc'}
function apply(){const rules=[];const sel=s=>[...document.querySelectorAll(s)];
sel('.hk-filters input[data-type]').forEach(i=>{if(!i.checked)rules.push(
'.hk-board tr[data-type="'+CSS.escape(i.dataset.type)+'"]{display:none}')});
sel('.hk-filters input[data-backend]').forEach(i=>{if(!i.checked)rules.push(
'.hk-board tr[data-backend="'+CSS.escape(i.dataset.backend)+'"]{display:none}')});
sel('.hk-filters input[data-hide]').forEach(i=>{if(i.checked)rules.push(i.dataset.hide+'{display:none}')});
sel('.hk-filters input[data-col]').forEach(i=>{if(!i.checked)rules.push(
'.hk-board .c-'+CSS.escape(i.dataset.col)+'{display:none}')});
const combo=[];sel('select.hk-version').forEach(s=>{const b=CSS.escape(s.dataset.bench);combo.push(
s.dataset.bench+'='+s.value);rules.push('.hk-board .hk-cell[data-bench="'+b+'"]:not([data-version="'+
CSS.escape(s.value)+'"]){display:none}')});
if(combo.length&&document.querySelector('.hk-overview[data-combo]'))rules.push(
'.hk-board .hk-overview[data-combo]:not([data-combo="'+CSS.escape(combo.join('|'))+'"]){display:none}');
let st=document.getElementById('hk-dynamic');if(!st){st=document.createElement('style');st.id='hk-dynamic';
document.head.appendChild(st)}st.textContent=rules.join('\\n');document.body.dataset.hkRules=rules.length}
document.addEventListener('click',ev=>{const th=ev.target.closest&&ev.target.closest('.hk-board th.sortable');
if(th)sortTable(th)});
document.addEventListener('change',ev=>{if(ev.target.closest&&ev.target.closest('.hk-filters,.hk-nav'))apply()});
window.hkApply=apply;new MutationObserver(()=>{const f=document.querySelector('.hk-filters:not([data-ready])');
if(f){f.dataset.ready='1';apply()}}).observe(document.documentElement,{childList:true,subtree:true});
if(document.readyState==='loading')document.addEventListener('DOMContentLoaded',apply);else apply();
window.addEventListener('load',()=>{apply();if(location.hash!=='#selftest')return;const d=document.body.dataset,
imgs=[...document.images];d.imagesTotal=imgs.length;d.imagesLoaded=imgs.filter(m=>m.complete&&m.naturalWidth>0)
.length;d.tables=document.querySelectorAll('table').length;const t=document.querySelector('table.ranking');
if(t){const th=t.querySelector('th.c-headline');th.click();const i=[...th.parentNode.children].indexOf(th);
const v=[...t.tBodies[0].rows].map(r=>parseFloat(r.children[i].dataset.v));
d.sortedAsc=String(v.every((x,k)=>k===0||isNaN(x)||isNaN(v[k-1])||v[k-1]<=x))}d.selftest='done'})})();"""


def link_href(link: str | None) -> str | None:
    """The link as an href, only when it is a plain http(s) URL (anything else stays text or is dropped)."""
    return link if isinstance(link, str) and _URL.fullmatch(link) else None


def _short_link(link: str) -> str:
    text = re.sub(r"^https?://(www\.)?", "", link).rstrip("/")
    return text if len(text) <= 28 else text[:27] + "…"


def _v(value: float | None) -> str:
    return "" if value is None else f' data-v="{value:.6g}"'


def _row_attrs(meta: dict[str, Any]) -> str:
    backend = (meta.get("backend") or "").lower()
    group = backend if backend in KNOWN_BACKENDS else "other"
    return (f' data-type="{e(meta["type"])}" data-backend="{e(group)}" data-text-only="{int(meta["text_only"])}"'
            f' data-synthetic="{int(meta["synthetic"])}" data-model="{e(meta["model"])}"')


def _model_cell(meta: dict[str, Any]) -> str:
    href = link_href(meta.get("link"))
    hover = [f"run {meta['run']}"]
    if meta.get("settings"):
        hover.append(meta["settings"])
    name = e(meta["label"])
    inner = f'<a href="{e(href)}" target="_blank" rel="noopener noreferrer nofollow">{name}</a>' if href else name
    return f'<td class="model c-model" title="{e("; ".join(hover))}" data-v="{e(meta["label"])}">{inner}</td>'


def _best(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def ranking_table(section: dict[str, Any]) -> str:
    """The cell's ranking: rank, linked model, type, backend, headline with CI, metrics, provenance."""
    board = section["board"]
    meta = section["meta"]
    heads = ['<th class="sortable num c-rank">#</th>', '<th class="sortable c-model">Model</th>',
             '<th class="sortable c-type">Type</th>', '<th class="sortable c-backend">Backend</th>',
             *(['<th class="sortable c-variant">Prompt variant</th>'] if "variant" in section["keys"] else []),
             f'<th class="sortable num c-headline">{e(board.headline_label)} (%)</th>',
             '<th class="num c-ci">95% CI</th>', f'<th class="sortable num c-samples">{e(section["head"][5])}</th>']
    heads += [f'<th class="sortable num c-metric">{e(title)}</th>' for _, title in board.columns]
    heads += [f'<th class="sortable num c-counter">{e(title)}</th>' for _, title in board.counters]
    heads += ['<th class="sortable c-config">Config</th>', '<th class="sortable c-version">Dataset version</th>',
              '<th class="c-revision">Revision</th>']
    has_link = "link" in section["keys"]
    if has_link:
        heads.append('<th class="c-link">Link</th>')
    heads += ['<th class="c-settings">Settings</th>', '<th class="sortable c-added">Added</th>']
    metric_values: dict[str, list[float | None]] = {k: [] for k, _ in board.columns}
    for cells in section["rows"]:
        for j, (k, _) in enumerate(board.columns):
            text = cells[6 + j]
            metric_values[k].append(None if text == "-" else float(text))
    best_head = _best([m["headline"] for m in meta])
    best_metric = {k: _best(v) for k, v in metric_values.items()}
    body = []
    n_cols = len(board.columns)
    for i, (cells, m) in enumerate(zip(section["rows"], meta, strict=True)):
        head_cls = " best" if m["headline"] is not None and m["headline"] == best_head else ""
        tds = [f'<td class="num c-rank"{_v(float(m["rank"]) if m["rank"] != "-" else None)}>{e(m["rank"])}</td>',
               _model_cell(m), f'<td class="c-type">{e(m["type"])}</td>',
               f'<td class="c-backend">{e(m.get("backend") or "-")}</td>',
               *([f'<td class="c-variant">{e(m.get("variant") or "-")}</td>'] if "variant" in section["keys"] else []),
               f'<td class="num c-headline{head_cls}"{_v(m["headline"])}>{pct(m["headline"])}</td>',
               f'<td class="num c-ci">{e(cells[4])}</td>',
               f'<td class="num c-samples"{_v(float(cells[5]))}>{e(cells[5])}</td>']
        for j, (k, _) in enumerate(board.columns):
            value = metric_values[k][i]
            cls = " best" if value is not None and value == best_metric[k] else ""
            tds.append(f'<td class="num c-metric{cls}"{_v(value)}>{e(cells[6 + j])}</td>')
        for j in range(len(board.counters)):
            text = cells[6 + n_cols + j]
            tds.append(f'<td class="num c-counter"{_v(float(text.split()[0])) if text != "-" else ""}>{e(text)}</td>')
        base = 6 + n_cols + len(board.counters)
        version = "unreleased" if cells[base + 1] == "local (unreleased)" else cells[base + 1]
        tds += [f'<td class="c-config">{e(cells[base])}</td>', f'<td class="c-version">{e(version)}</td>',
                f'<td class="rev c-revision" title="{e(m.get("revision") or "")}">{e(m["revision_short"])}</td>']
        if has_link:
            href = link_href(m.get("link"))
            tds.append(f'<td class="c-link"><a href="{e(href)}" target="_blank" rel="noopener noreferrer nofollow">'
                       f'{e(_short_link(href))}</a></td>' if href else f'<td class="c-link">{e(m.get("link") or "-")}'
                       '</td>')
        tds += [f'<td class="c-settings">{e(m.get("settings") or "-")}</td>',
                f'<td class="c-added">{e((m.get("added_at") or "-")[:10])}</td>']
        body.append(f"<tr{_row_attrs(m)}>{''.join(tds)}</tr>")
    return (f'<div class="hk-scroll"><table class="ranking sortable-table"><thead><tr>{"".join(heads)}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def breakdown_table(section: dict[str, Any], breakdown: dict[str, Any]) -> str:
    """A breakdown: value per label, n and 95% Wilson CI on hover (n beside), paper-style colours."""
    heads = ['<th class="sortable c-model">Model</th>'] + [
        f'<th class="sortable num">{e(str(h).replace("_", " "))}</th>' for h in breakdown["head"][1:]]
    body = []
    for m, cells in zip(section["meta"], breakdown["cells"], strict=True):
        solid = [c["v"] for c in cells if c["v"] is not None and not (c["n"] is not None and c["n"] < SMALL_N)]
        top, bottom = (max(solid), min(solid)) if len(solid) >= 3 else (None, None)  # 2 columns: no extremes
        tds = [_model_cell(m)]
        for c in cells:
            v, n, ci = c["v"], c["n"], c["ci"]
            if v is None:
                tds.append('<td class="num">-</td>')
                continue
            hover = [f"n = {n}" if n is not None else "n unknown"]
            if ci is not None:
                hover.append(f"95% CI [{pct(ci[0])}, {pct(ci[1])}] (Wilson)")
            classes = ["num"]
            if n is not None and n < SMALL_N:
                classes.append("muted")
                hover.append(f"fewer than {SMALL_N} samples")
            elif top is not None and top != bottom and v == top:
                classes.append("easy")
            elif top is not None and top != bottom and v == bottom:
                classes.append("hard")
            elif m["headline"] is not None and v < m["headline"]:
                classes.append("below")
            beside = f' <span class="ci">n={n}</span>' if n is not None else ""
            tds.append(f'<td class="{" ".join(classes)}"{_v(v)} title="{e("; ".join(hover))}">{pct(v)}{beside}</td>')
        body.append(f"<tr{_row_attrs(m)}>{''.join(tds)}</tr>")
    return (f'<div class="hk-scroll"><table class="breakdown sortable-table"><thead><tr>{"".join(heads)}</tr>'
            f'</thead><tbody>{"".join(body)}</tbody></table></div>')


def matrix_table(matrix: dict[str, Any]) -> str:
    head, rows = _matrix_cells(matrix)
    ths = "".join(f"<th>{e(h)}</th>" for h in head)
    body = []
    for r in rows:
        tds = [f'<td class="model">{e(r[0])}</td>']
        for c in r[1:]:
            cls = "diag" if c == "—" else ("num sig" if "*" in c else "num")
            tds.append(f'<td class="{cls}">{e(c)}</td>')
        body.append(f"<tr>{''.join(tds)}</tr>")
    return (f'<div class="hk-scroll"><table class="matrix"><thead><tr>{ths}</tr></thead><tbody>{"".join(body)}'
            "</tbody></table></div>")


LEGEND = (f"Breakdown colours as in the MovSafeBench paper (tables 3 and 4): cyan is the model's easiest value, "
          f"orange its hardest, light orange below its own headline score; grey italics: fewer than {SMALL_N} "
          "samples (uncoloured). n beside each value; hover for its 95% Wilson interval.")


def section_html(section: dict[str, Any], image_src: Any = None, *, open_details: bool = False) -> str:
    """One cell: heading, status, ranking, breakdowns, significance matrices, plots (`image_src`: None for the
    PNG files beside the static page, "svg" for inline SVG drawn from the same data, as the app does)."""
    board = section["board"]
    ver = e(section["version"])
    parts = [f'<section class="hk-cell" id="{e(section["anchor"])}" data-bench="{e(section["benchmark"])}" '
             f'data-version="{ver}" data-synthetic="{int(section["synthetic"])}">',
             f"<h2>{e(section['heading'])}</h2>"]
    if section["status"]:
        parts.append(f"<p class='status'>{e(section['status'])}</p>")
    if board.note:
        parts.append(f"<p class='note'>{e(board.note)}</p>")
    parts.append(ranking_table(section))
    opened = " open" if open_details else ""
    if section["breakdowns"]:
        parts.append(f"<p class='legend'>{e(LEGEND)}</p>")
    for b in section["breakdowns"]:
        parts.append(f"<details class='hk-breakdown'{opened}><summary>{e(b['title'])}</summary>"
                     f"{breakdown_table(section, b)}</details>")
    for m in section["matrices"]:
        among = (f" among the top {len(m['matrix']['models'])} of {m['of']} by {board.headline_label}"
                 if m["of"] > len(m["matrix"]["models"]) else "")
        parts.append(f"<details class='hk-significance'{opened}><summary>Pairwise significance{e(_on(m['title']))}"
                     f"</summary><p class='note'>Holm-adjusted exact McNemar p-values on paired per-sample "
                     f"outcomes{e(among)} (Holm over the pairs shown); * and shading: p &lt; 0.05; in brackets: "
                     "samples only the row model got right / only the column model got right.</p>"
                     f"{matrix_table(m['matrix'])}</details>")
    for p in section["plots"]:
        if image_src == "svg":
            parts.append(f"<figure>{svg_bars(p)}</figure>")
            continue
        src = image_src(p) if image_src else p["file"]
        if src:
            parts.append(f"<figure><img src='{e(src)}' alt='{e(p['title'])}'><figcaption>{e(p['title'])}"
                         "</figcaption></figure>")
    parts.append("</section>")
    return "".join(parts)


def meta_line(*, versions: str, updated: str | None, extra: str = "") -> str:
    """The line every tab starts with: which dataset version is shown, what others exist, last update."""
    text = f"Dataset version: {versions}" + (f" · last updated {updated}" if updated else "") + extra
    return f"<p class='meta'>{e(text)}</p>"


def overview_table(ov: dict[str, Any], combo: str | None = None) -> str:
    """One row per model: the headline of each benchmark (CI, rank within its cell), mean rank, coverage."""
    attr = f' data-combo="{e(combo)}"' if combo is not None else ""
    heads = ['<th class="sortable num c-rank">#</th>', '<th class="sortable c-model">Model</th>',
             '<th class="sortable c-type">Type</th>', '<th class="sortable c-backend">Backend</th>']
    for col in ov["columns"]:
        tag = ' <span class="demo-tag">demo</span>' if col.get("synthetic") else ""
        heads.append(f'<th class="sortable num" title="{e(col["title"])}">{e(col["name"])}{tag}<br>'
                     f'<small>{e(col["label"])} (%)</small></th>')
    heads += ['<th class="sortable num">Mean rank</th>', '<th class="sortable num">Benchmarks</th>']
    body = []
    bests = [_best([r["cells"][j]["headline"] if r["cells"][j] else None for r in ov["rows"]])
             for j in range(len(ov["columns"]))]
    for r in ov["rows"]:
        tds = [f'<td class="num c-rank" data-v="{r["rank"]}">{r["rank"]}</td>', _model_cell(r["meta"]),
               f'<td class="c-type">{e(r["meta"]["type"])}</td>',
               f'<td class="c-backend">{e(r["meta"].get("backend") or "-")}</td>']
        for j, c in enumerate(r["cells"]):
            if c is None:
                tds.append('<td class="num" data-v="">–</td>')
                continue
            low, high = c["ci"]
            ci = f" [{pct(low)}, {pct(high)}]" if low is not None else ""
            cls = " best" if c["headline"] is not None and c["headline"] == bests[j] else ""
            tds.append(f'<td class="num{cls}"{_v(c["headline"])} title="rank {e(c["rank"])} of {c["of"]} in '
                       f'{e(ov["columns"][j]["title"])}">{pct(c["headline"])} <span class="ci">{e(ci.strip())} '
                       f'#{e(c["rank"])}</span></td>')
        tds += [f'<td class="num"{_v(r["mean_rank"])}>{r["mean_rank"]:.1f}</td>',
                f'<td class="num" data-v="{r["covered"]}">{r["covered"]} of {len(ov["columns"])}</td>']
        body.append(f"<tr{_row_attrs(r['meta'])}>{''.join(tds)}</tr>")
    if not ov["rows"]:
        return f'<div class="hk-overview"{attr}><p class="note">No results yet.</p></div>'
    warning = f'<p class="status hk-demo-note">{e(ov["demo_warning"])}</p>' if ov.get("demo_warning") else ""
    return (f'<div class="hk-overview"{attr}>{warning}<p class="note">{e(ov["note"])}</p>{NO_REAL}'
            f'<div class="hk-scroll"><table class="overview sortable-table"><thead><tr>{"".join(heads)}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div></div>')


# shown (by CSS) where "hide demo data" leaves a table with no row: an empty table must not look like a bug
NO_REAL = '<p class="note hk-no-real">No non-demo results yet: every result here is demo / synthetic data.</p>'


def filter_bar(backends: list[str] | None = None) -> str:
    """Model type, backend, hide baselines / text-only / demo, and the column chooser."""
    from eval_kit.leaderboard.cells import MODEL_TYPES

    groups = sorted({b if b in KNOWN_BACKENDS else "other" for b in (backends or [])} | {*KNOWN_BACKENDS, "other"},
                    key=lambda b: (b == "other", b))
    types = "".join(f'<label><input type="checkbox" checked data-type="{e(t)}"> {e(t)}</label>' for t in MODEL_TYPES)
    backs = "".join(f'<label><input type="checkbox" checked data-backend="{e(b)}"> {e(b)}</label>' for b in groups)
    hides = "".join(f'<label><input type="checkbox" data-hide="{e(rule)}" id="{e(ident)}"> {e(text)}</label>'
                    for ident, text, rule in (
                        ("hide-baselines", "hide baselines", '.hk-board tr[data-type="baseline"]'),
                        ("hide-text-only", "hide text-only", '.hk-board tr[data-text-only="1"]'),
                        ("hide-demo", "hide demo data",
                         '.hk-board tr[data-synthetic="1"],.hk-board .hk-cell[data-synthetic="1"]')))
    cols = "".join(f'<label><input type="checkbox"{" checked" if shown else ""} data-col="{e(key)}"> {e(label)}'
                   "</label>" for key, label, shown in OPTIONAL_COLUMNS)
    return (f'<div class="hk-filters" id="hk-filters"><fieldset><legend>Model type</legend>{types}</fieldset>'
            f'<fieldset><legend>Backend</legend>{backs}</fieldset><fieldset>{hides}</fieldset>'
            f'<fieldset class="hk-columns"><legend>Columns</legend>{cols}</fieldset></div>')


def versions_summary(found: list[tuple[str, str, int]]) -> str:
    """ "v0.2.0 (1 result, shown by default), v0.1.0 (3 results)": what each version holds, newest first."""
    return ", ".join(f"{label} ({n} result{'s' * (n != 1)}{', newest' if i == 0 and len(found) > 1 else ''})"
                     for i, (_, label, n) in enumerate(found))


ABOUT_POINTS = (
    "Every submission is checked by the same validator as `hazardkit validate` and scored by the same scorer as "
    "`hazardkit score run`. Scores are in %; JSON results keep fractions in [0, 1].",
    "Only comparable results are compared: each (benchmark, dataset version, config) is ranked on its own, with its "
    "own plots and significance tests; rows on demo or synthetic data are shown apart and never ranked with real "
    "data. The newest dataset version is shown by default; choose another per benchmark.",
    "Equal scores share a rank. Filters hide rows; ranks stay those of the whole table.",
    "Backend, model, settings and dataset revision are what the submission's metadata.json says; a form value "
    "only fills in what it leaves out.",
    "Pairwise significance: exact McNemar test on paired per-sample outcomes among a table's top "
    "10 models, Holm-adjusted over the pairs shown; * marks p < 0.05.",
    "Breakdown cells show n beside the value and a 95% Wilson interval on hover; cells on fewer than "
    f"{SMALL_N} samples are muted.",
)


_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf")


def svg_bars(plot: dict[str, Any]) -> str:
    """A grouped bar chart (one group per breakdown value, one bar per model, 0-100 %) as inline SVG: what the
    static page draws with matplotlib, drawn in milliseconds, with every label escaped as text."""
    labels, series, columns = plot["labels"], plot["series"], plot["columns"]
    left, top, height = 48, 28, 220
    group = max(64, 14 * len(labels) + 16, (560 - left) // max(1, len(columns)) if len(columns) <= 6 else 0)
    legend_w = 16 + 7 * min(40, max((len(x) for x in labels), default=0))
    width = int(max(left + group * len(columns) + 20 + legend_w, 40 + 7.5 * len(plot["title"])))
    bar = (group - 12) / max(1, len(labels))
    parts = [f'<svg class="hk-plot" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 70}" '
             f'role="img" aria-label="{e(plot["title"])}" font-family="system-ui,sans-serif" font-size="11">',
             f'<text x="{left}" y="16" font-size="13" font-weight="600">{e(plot["title"])}</text>']
    for tick in range(0, 101, 20):
        y = top + height - height * tick / 100
        parts.append(f'<line x1="{left}" x2="{left + group * len(columns)}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="#ddd"/><text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
    parts.append(f'<text transform="translate(12,{top + height / 2}) rotate(-90)" text-anchor="middle">'
                 f'{e(plot["ylabel"])}</text>')
    for j, column in enumerate(columns):
        x0 = left + j * group + 6
        for i, values in enumerate(series):
            value = values.get(column)
            if not isinstance(value, int | float):
                continue
            h = height * max(0.0, min(1.0, float(value)))
            parts.append(f'<rect x="{x0 + i * bar:.1f}" y="{top + height - h:.1f}" width="{max(1.0, bar - 1):.1f}" '
                         f'height="{h:.1f}" fill="{_PALETTE[i % len(_PALETTE)]}"><title>{e(labels[i])}, '
                         f'{e(str(column))}: {pct(value)}%</title></rect>')
        cx = left + j * group + group / 2
        parts.append(f'<text transform="translate({cx:.1f},{top + height + 12}) rotate(30)" font-size="10">'
                     f'{e(str(column).replace("_", " "))}</text>')
    lx = left + group * len(columns) + 20
    for i, label in enumerate(labels):
        y = top + 10 + 16 * i
        short = label if len(label) <= 40 else label[:39] + "…"
        parts.append(f'<rect x="{lx}" y="{y - 9}" width="10" height="10" fill="{_PALETTE[i % len(_PALETTE)]}"/>'
                     f'<text x="{lx + 14}" y="{y}">{e(short)}</text>')
    parts.append("</svg>")
    return "".join(parts)
