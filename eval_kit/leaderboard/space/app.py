"""The Gradio app: an Overview tab, one tab per benchmark (ranked tables per dataset version and config,
breakdowns, pairwise significance, plots), a Submit tab and an About tab, with a dataset-version choice per
benchmark and the filters above them. `hazardkit leaderboard serve` and a Space's app.py both call `launch`.

Gradio is imported here only, when the app is built. The boards are gr.HTML written by `html_page`, the
renderer of the static page, which escapes every string a submitter controls, so a model name cannot
inject markup.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.leaderboard.space.pipeline import Leaderboard
from eval_kit.leaderboard.space.settings import SpaceSettings
from eval_kit.leaderboard.space.views import Views, about_markdown, submit_help, tab_benchmarks

BACKENDS = ["transformers", "vllm", "openai", "baseline", "lmms-eval", "other"]

def _css() -> str:
    from eval_kit.leaderboard.html_page import CSS

    return CSS + ".hk-added .c-rank{display:none}"


def _head() -> str:
    """The page's one script (sorting, filters, column chooser), loaded once in the page's <head>."""
    from eval_kit.leaderboard.html_page import JS

    return f"<script>{JS}</script>"


def on_space() -> bool:
    """Running as a Hugging Face Space (it sets SPACE_ID): submitters must log in."""
    return bool(os.environ.get("SPACE_ID"))


def _user(request: Any) -> str | None:
    """Who submits: the Hugging Face account when logged in; off a Space, the client address."""
    name = getattr(request, "username", None) if request is not None else None
    if name:
        return f"hf:{name}"
    if on_space():
        return None
    client = getattr(request, "client", None)
    return f"ip:{getattr(client, 'host', None) or 'local'}"


POLL_SECONDS = 2.0  # how often an open page asks whether the table changed (a stat call when it did not)


def _choices(views: Views, benchmark: str) -> list[tuple[str, str]]:
    return [(f"{label} ({n} result{'s' * (n != 1)})", v) for v, label, n in views.versions(benchmark)]


def build_app(settings: SpaceSettings, lb: Leaderboard | None = None) -> Any:
    """The gr.Blocks of the leaderboard (not launched): a version choice per benchmark and the filters above
    the tabs (Overview, one per benchmark, Submit, About); open pages follow every change of the table
    (a submission, `leaderboard approve` / `reject`) within POLL_SECONDS, without a reload."""
    import gradio as gr

    from eval_kit import registry
    from eval_kit.leaderboard.html_page import filter_bar

    problem = None
    if lb is None:
        lb = Leaderboard(settings)
        try:
            lb.warm()
        except BadInput as exc:  # shown on the page; submissions to that benchmark are refused with the same line
            problem = f"error: {exc}"
    try:
        lb.recover()  # submissions a crash left half done: settled before anyone is served
    except BadInput as exc:
        problem = f"error: {exc}"
    views = Views(lb)
    names = tab_benchmarks(lb, views.rows())
    titles = {n: (registry.find(n).title if registry.find(n) else n) for n in names}
    with gr.Blocks(title=settings.title, fill_width=True) as demo:
        gr.Markdown(f"# {settings.title}\nVLM safety benchmarks, scored by hazardkit. Click a column header to "
                    "sort; each (benchmark, dataset version, config) is ranked on its own.")
        if problem:
            gr.Textbox(value=problem, label="Configuration problem", interactive=False)
        with gr.Row(equal_height=True):
            pickers = [gr.Dropdown(choices=_choices(views, n), value=views.default_version(n),
                                   label=f"{titles[n]} dataset version", elem_id=f"version-{n}", interactive=True,
                                   min_width=220)
                       for n in names]
        gr.HTML(filter_bar(sorted({r.get("backend") or "" for r in views.rows()})), elem_id="filters",
                padding=False)
        boards = {}
        with gr.Tabs(elem_id="tabs"):
            with gr.Tab("Overview", id="overview", elem_id="tab-overview"):
                overview = gr.HTML(elem_id="board-overview", padding=False)
            for name in names:
                with gr.Tab(titles[name], id=name, elem_id=f"tab-{name}"):
                    boards[name] = gr.HTML(elem_id=f"board-{name}", padding=False)
            with gr.Tab("Submit", id="submit", elem_id="tab-submit"):
                gr.Markdown(submit_help(lb))
                if on_space():
                    gr.LoginButton()
                with gr.Row():
                    benchmark = gr.Dropdown(choices=[(registry.get(b).title, b) for b in lb.benchmarks()],
                                            value=(lb.benchmarks() or [None])[0], label="Benchmark",
                                            elem_id="submit-benchmark")
                    backend = gr.Dropdown(choices=["", *BACKENDS], value="", label="Backend (if the upload does "
                                          "not say)", allow_custom_value=True, elem_id="submit-backend")
                with gr.Row():
                    model = gr.Textbox(label="Model name (used when the upload's metadata.json names none, or names "
                                             "a local path; otherwise metadata.json's name wins)", max_length=200,
                                       elem_id="submit-model")
                    link = gr.Textbox(label="Link (model card or paper)", max_length=200, elem_id="submit-link")
                upload = gr.File(label="predictions.jsonl or run folder .zip", file_types=[".jsonl", ".zip"],
                                 type="filepath", elem_id="submit-file")
                button = gr.Button("Submit", variant="primary", elem_id="submit-button")
                result = gr.Textbox(label="Result", lines=2, max_lines=30, interactive=False,
                                    elem_id="submit-result")
                added = gr.HTML(elem_id="submit-row", visible=False, padding=False)
            with gr.Tab("About", id="about", elem_id="tab-about"):
                gr.Markdown(about_markdown())
        seen = gr.State(None)  # the table signature this page shows
        outputs = [seen, *pickers, overview, *boards.values()]

        def show(signature: Any, *chosen: str | None, force: bool = False) -> list[Any]:
            """Everything the page shows, or nothing (gr.skip) when the table did not change."""
            current = views.refresh()
            if not force and signature == current:
                return [gr.skip()] * len(outputs)
            picked = {}
            updates = []
            for name, value in zip(names, chosen, strict=True):
                options = _choices(views, name)
                value = value if value in {v for _, v in options} else views.default_version(name)
                picked[name] = value
                updates.append(gr.update(choices=options, value=value))
            return [current, *updates, views.overview_html(names, picked),
                    *(views.board_html(name, picked[name]) for name in names)]

        def choose(*chosen: str | None) -> list[Any]:
            return show(None, *chosen, force=True)

        demo.load(choose, inputs=pickers, outputs=outputs, concurrency_limit=None, show_progress="hidden")
        for picker in pickers:
            picker.input(choose, inputs=pickers, outputs=outputs, concurrency_limit=None, show_progress="hidden")
        gr.Timer(POLL_SECONDS).tick(show, inputs=[seen, *pickers], outputs=outputs, concurrency_limit=None,
                                    show_progress="hidden")

        from eval_kit.leaderboard.space.guard import UploadClaims, discard_upload

        claims = UploadClaims()  # identical bytes share one path: a file goes when its last holder is done

        def claim(file: str | None, request: gr.Request) -> None:
            claims.claim(file, getattr(request, "session_hash", None))

        def leave(request: gr.Request) -> None:
            for path in claims.release_all(getattr(request, "session_hash", None)):
                discard_upload(path, settings.uploads)

        def submit(file: str | None, bench: str, model_name: str, link_text: str, backend_name: str,
                   request: gr.Request) -> tuple[str, Any, Any]:
            user = _user(request)
            if user is None:
                return "error: log in with your Hugging Face account to submit", gr.update(visible=False), file
            try:
                outcome = lb.submit(Path(file) if file else None, Path(file).name if file else None, bench or "",
                                    model_name or "", link_text or "", backend_name or "", user=user)
            finally:  # stored (once, in the submission store) or refused: Gradio's copy goes, unless another
                # page still holds the same bytes (Gradio stores them once)
                if claims.release(file, getattr(request, "session_hash", None)):
                    discard_upload(file, settings.uploads)
            # the file box is cleared too: its server copy is gone, a second click would only say so
            if outcome.row is None:
                return outcome.text, gr.update(visible=False), None
            return outcome.text, gr.update(value=views.row_html(outcome.row), visible=True), None

        for fn in (submit, claim, leave):
            fn.__annotations__["request"] = gr.Request  # a real class: Gradio injects the request
        upload.upload(claim, inputs=[upload], outputs=None, concurrency_limit=None, show_progress="hidden")
        demo.unload(leave)
        button.click(submit, inputs=[upload, benchmark, model, link, backend], outputs=[result, added, upload],
                     concurrency_limit=1).then(show, inputs=[seen, *pickers], outputs=outputs,
                                               concurrency_limit=None, show_progress="hidden")
    return demo


def prepare_host(settings: SpaceSettings, server_name: str | None = None) -> dict[str, Any]:
    """What the server needs before Gradio starts: uploads in the app's own folder (GRADIO_TEMP_DIR, read when
    the app is built), X-Forwarded-For trusted only from the operator's proxies, the stray-upload sweeper, the
    Host check (`server_name`: the bound address, default GRADIO_SERVER_NAME or 127.0.0.1) and the upload
    guard (returned as `launch` keyword arguments)."""
    from starlette.middleware import Middleware

    from eval_kit.leaderboard.space import guard

    settings.uploads.mkdir(parents=True, exist_ok=True)
    os.environ["GRADIO_TEMP_DIR"] = str(settings.uploads.resolve())
    guard.trust_proxies(settings.trusted_proxies)
    guard.sweep(settings.uploads, settings.upload_ttl_s)
    middleware = Middleware(guard.UploadGuard, uploads=settings.uploads, store=settings.submissions,
                            max_request_bytes=2 * settings.max_upload_bytes + guard.MULTIPART_SLACK,
                            disk_cap_bytes=settings.disk_cap_bytes, max_age_s=settings.upload_ttl_s)
    bound = server_name or os.environ.get("GRADIO_SERVER_NAME") or "127.0.0.1"
    hosts = Middleware(guard.HostGuard, hosts=guard.allowed_hosts(bound, settings.host_names),
                       any_ip=bound.strip().strip("[]") in guard.WILDCARDS)
    return {"app_kwargs": {"middleware": [hosts, middleware]}}


def gradio_copies(demo: Any) -> set[str]:
    """Files Gradio copied into its cache for the page (the plots): every temp-file set but the uploads'."""
    uploads = getattr(demo, "upload_file_set", None)
    return {str(p) for files in list(getattr(demo, "temp_file_sets", [])) if files is not uploads
            for p in list(files)}


def launch(settings: SpaceSettings | None = None, lb: Leaderboard | None = None, **options: Any) -> None:
    """Build and serve the app; options go to `Blocks.launch` (server_name, server_port, ...). `lb`: a
    Leaderboard already checked and warmed (what `serve` does before it listens)."""
    settings = settings or SpaceSettings.from_env()
    host = prepare_host(settings, options.get("server_name"))
    demo = build_app(settings, lb)
    from eval_kit.leaderboard.space.guard import UploadSweeper

    UploadSweeper(settings.uploads, settings.upload_ttl_s, keep=lambda: gradio_copies(demo)).start()
    demo.queue(default_concurrency_limit=1)
    # Gradio refuses uploads over twice the limit before they reach the disk; between the limit and that,
    # the app's own check answers with one line in the Result box, like every other problem
    demo.launch(max_file_size=2 * settings.max_upload_bytes + 1024, css=_css(), head=_head(), **host, **options)
