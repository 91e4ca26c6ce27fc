"""MovSafeBench, eval side: everything that defines, loads, prompts, parses, scores, reports and ranks it.

spec (label spaces, question, answer parser), task (runner task), submission (references + predictions ->
scores), scoring (metrics over arrays), report (paper tables), checker (`validate`), board (leaderboard),
commands (`hazardkit score movsafebench`), metric/ (the `evaluate` module), schemas/ (JSON Schemas).
Its builder side (HazardForge, source adapters, publisher) is `builder/movsafebench/`.
"""

from eval_kit.registry import Benchmark

BENCHMARK = Benchmark(
    name="movsafebench",
    title="MovSafeBench",
    hub_id="hazardkit/movsafebench",  # on the Hugging Face Hub: `--data ORG/NAME[@vX.Y.Z]`
    package="eval_kit.movsafebench",
    task="eval_kit.movsafebench.task:MovSafeBenchTask",
    score_run="eval_kit.movsafebench.task:score_run",
    reference_loader="eval_kit.movsafebench.submission:load_references",
    scorer="eval_kit.movsafebench.submission:score_files",
    report="eval_kit.movsafebench.report:render_tables",
    board="eval_kit.movsafebench.board:board",
    checker="eval_kit.movsafebench.checker:MovSafeBenchChecker",
    score_command="eval_kit.movsafebench.commands:score_movsafebench",
    citation="eval_kit.movsafebench.spec:CITATION",
    publisher="builder.movsafebench.publisher:movsafebench_publisher",
    build_commands=(("forge", "builder.movsafebench.hazardforge.commands:forge"),
                    ("sources", "builder.movsafebench.sources.commands:sources")),
    lmms_eval="eval_kit.movsafebench.lmms_eval:TASK",
    demo="builder.movsafebench.demo_steps:demo_steps",
)
