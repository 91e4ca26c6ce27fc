"""The Gradio app: one tab per benchmark (ranked tables per dataset config, breakdowns, pairwise significance,
plots), a Submit tab and an About tab. `hazardkit leaderboard serve` and a Space's app.py both call `launch`.

Gradio is imported here only, when the app is built. Tables are gr.Dataframe components with text and
number cells (Gradio renders them as text, never as HTML), so a model name cannot inject markup.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.leaderboard.space.pipeline import Leaderboard
from eval_kit.leaderboard.space.settings import SpaceSettings
from eval_kit.leaderboard.space.views import Views, about_markdown, frame, matrix_frame, submit_help, tab_benchmarks

BACKENDS = ["transformers", "vllm", "openai", "baseline", "lmms-eval", "other"]
CSS = ".status-note{background:#fff3cd;border:1px solid #e0c36a;padding:4px 8px;font-weight:600}"


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


def _dataframe(gr: Any, table: Any, **options: Any) -> Any:
    import pandas as pd

    options.setdefault("wrap", True)
    return gr.Dataframe(value=pd.DataFrame(table.rows, columns=table.headers), datatype=table.datatypes,
                        interactive=False, **options)


def build_app(settings: SpaceSettings) -> Any:
    """The gr.Blocks of the leaderboard (not launched)."""
    import gradio as gr
    import pandas as pd

    from eval_kit import registry

    lb = Leaderboard(settings)
    problem = None
    try:
        lb.recover()  # submissions a crash left half done: settled before anyone is served
        lb.warm()
    except BadInput as exc:  # shown on the page; submissions to that benchmark are refused with the same line
        problem = f"error: {exc}"
    views = Views(lb)
    with gr.Blocks(title=settings.title) as demo:
        version = gr.State(0)
        gr.Markdown(f"# {settings.title}\nVLM safety benchmarks, scored by hazardkit. Sort a table from the ⋮ "
                    "menu of a column header.")
        if problem:
            gr.Textbox(value=problem, label="Configuration problem", interactive=False)
        with gr.Tabs(elem_id="tabs"):
            for name in tab_benchmarks(lb, views.rows()):
                bench = registry.find(name)
                with gr.Tab(bench.title if bench else name, id=name, elem_id=f"tab-{name}"):
                    @gr.render(inputs=[version], triggers=[version.change, demo.load])
                    def _board(_version: int, name: str = name) -> None:
                        sections = views.sections(name)
                        if not sections:
                            gr.Markdown("No results yet: be the first to submit.")
                        for s in sections:
                            gr.Markdown(f"### {s['heading']}")
                            if s["status"]:
                                gr.Markdown(s["status"], elem_classes=["status-note"])
                            if s["board"].note:
                                gr.Markdown(s["board"].note)
                            _dataframe(gr, frame(s["head"], s["rows"]), label="Ranking",
                                       elem_classes=["ranking"], show_search="search", wrap=False)
                            for b in s["breakdowns"]:
                                with gr.Accordion(b["title"], open=False):
                                    _dataframe(gr, frame(b["head"], b["rows"]), show_label=False)
                            for m in s["matrices"]:
                                title = f"Pairwise significance{': ' + m['title'] if m['title'] else ''}"
                                with gr.Accordion(title, open=False):
                                    gr.Markdown("Holm-adjusted exact McNemar p-values; * p < 0.05; in brackets: "
                                                "samples only the row model got right / only the column model "
                                                "got right.")
                                    _dataframe(gr, matrix_frame(m["matrix"]), show_label=False)
                            for p in s["plots"]:
                                path = views.plot_path(p)
                                if path.is_file():
                                    gr.Image(value=str(path), label=p["title"], show_label=False, type="filepath",
                                             interactive=False)
            with gr.Tab("Submit", id="submit", elem_id="tab-submit"):
                gr.Markdown(submit_help(lb))
                if on_space():
                    gr.LoginButton()
                with gr.Row():
                    benchmark = gr.Dropdown(choices=[(registry.get(b).title, b) for b in lb.benchmarks()],
                                            value=(lb.benchmarks() or [None])[0], label="Benchmark",
                                            elem_id="submit-benchmark")
                    backend = gr.Dropdown(choices=BACKENDS, value="transformers", label="Backend",
                                          allow_custom_value=True, elem_id="submit-backend")
                with gr.Row():
                    model = gr.Textbox(label="Model name", max_length=200, elem_id="submit-model")
                    link = gr.Textbox(label="Link (model card or paper)", max_length=200, elem_id="submit-link")
                upload = gr.File(label="predictions.jsonl or run folder .zip", file_types=[".jsonl", ".zip"],
                                 type="filepath", elem_id="submit-file")
                button = gr.Button("Submit", variant="primary", elem_id="submit-button")
                result = gr.Textbox(label="Result", lines=2, max_lines=30, interactive=False,
                                    elem_id="submit-result")
                added = gr.Dataframe(label="The row it adds", interactive=False, wrap=True, elem_id="submit-row",
                                     visible=False)

                def submit(file: str | None, bench: str, model_name: str, link_text: str, backend_name: str,
                           current: int, request: gr.Request) -> tuple[str, Any, int]:
                    user = _user(request)
                    if user is None:
                        return "error: log in with your Hugging Face account to submit", None, current
                    try:
                        outcome = lb.submit(Path(file) if file else None, Path(file).name if file else None,
                                            bench or "", model_name or "", link_text or "", backend_name or "",
                                            user=user)
                    finally:  # stored (once, in the submission store) or refused: Gradio's copy goes
                        from eval_kit.leaderboard.space.guard import discard_upload

                        discard_upload(file, settings.uploads)
                    row = None
                    if outcome.row is not None:
                        from eval_kit.leaderboard.render import build

                        section = build([outcome.row], views.site, plots=False)[0]
                        table = frame(section["head"][1:], [r[1:] for r in section["rows"]])  # no rank alone
                        row = pd.DataFrame(table.rows, columns=table.headers)
                    changed = current + (outcome.status == "published")
                    return outcome.text, gr.update(value=row, visible=row is not None), changed

                submit.__annotations__["request"] = gr.Request  # a real class: Gradio injects the request
                button.click(submit, inputs=[upload, benchmark, model, link, backend, version],
                             outputs=[result, added, version], concurrency_limit=1)
            with gr.Tab("About", id="about", elem_id="tab-about"):
                gr.Markdown(about_markdown())
    return demo


def prepare_host(settings: SpaceSettings) -> dict[str, Any]:
    """What the server needs before Gradio starts: uploads in the app's own folder (GRADIO_TEMP_DIR, read when
    the app is built), X-Forwarded-For trusted only from the operator's proxies, the stray-upload sweeper, and
    the upload guard (returned as `launch` keyword arguments)."""
    from starlette.middleware import Middleware

    from eval_kit.leaderboard.space import guard

    settings.uploads.mkdir(parents=True, exist_ok=True)
    os.environ["GRADIO_TEMP_DIR"] = str(settings.uploads.resolve())
    guard.trust_proxies(settings.trusted_proxies)
    guard.sweep(settings.uploads, settings.upload_ttl_s)
    middleware = Middleware(guard.UploadGuard, uploads=settings.uploads, store=settings.submissions,
                            max_request_bytes=2 * settings.max_upload_bytes + guard.MULTIPART_SLACK,
                            disk_cap_bytes=settings.disk_cap_bytes, max_age_s=settings.upload_ttl_s)
    return {"app_kwargs": {"middleware": [middleware]}}


def gradio_copies(demo: Any) -> set[str]:
    """Files Gradio copied into its cache for the page (the plots): every temp-file set but the uploads'."""
    uploads = getattr(demo, "upload_file_set", None)
    return {str(p) for files in list(getattr(demo, "temp_file_sets", [])) if files is not uploads
            for p in list(files)}


def launch(settings: SpaceSettings | None = None, **options: Any) -> None:
    """Build and serve the app; options go to `Blocks.launch` (server_name, server_port, ...)."""
    settings = settings or SpaceSettings.from_env()
    host = prepare_host(settings)
    demo = build_app(settings)
    from eval_kit.leaderboard.space.guard import UploadSweeper

    UploadSweeper(settings.uploads, settings.upload_ttl_s, keep=lambda: gradio_copies(demo)).start()
    demo.queue(default_concurrency_limit=1)
    # Gradio refuses uploads over twice the limit before they reach the disk; between the limit and that,
    # the app's own check answers with one line in the Result box, like every other problem
    demo.launch(max_file_size=2 * settings.max_upload_bytes + 1024, css=CSS,
                allowed_paths=[str(settings.data_dir / "site")], **host, **options)
