"""The leaderboard as a web app (a Gradio app that also runs unchanged as a Hugging Face Space).

settings (what the operator chooses: references, where results live, limits, moderation), store (every
submission with its file, sha256, time and outcome), uploads (bounded reading of an upload or a run-folder
zip), pipeline (validate -> score -> row, through each benchmark's registry parts: the same checker and
scorer as the CLI), views (the tables the app shows), app (the Gradio Blocks), files (what a Space needs).
Gradio is imported only by `app`, and only when the app is built.
"""
