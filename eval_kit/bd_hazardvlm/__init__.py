"""BD-HazardVLM, eval side: everything that defines, loads, prompts, parses, scores, reports and ranks it.

spec (taxonomy, prompt, structured-answer parser), task (runner task), submission (references + predictions
-> scores), scoring (metrics over arrays; per-image vectors for `hazardkit compare`), report (paper tables),
checker (`validate`), board (leaderboard), commands (`hazardkit score bd-hazardvlm`), metric/ (the
`evaluate` module), schemas/ (JSON Schemas). Its builder side (reconstruction, publisher) is
`builder/bd_hazardvlm/`.
"""

from eval_kit.registry import Benchmark

BENCHMARK = Benchmark(
    name="bd_hazardvlm",
    title="BD-HazardVLM",
    hub_id="hazardkit/bd-hazardvlm",  # on the Hugging Face Hub: `--data ORG/NAME[@vX.Y.Z]`
    package="eval_kit.bd_hazardvlm",
    task="eval_kit.bd_hazardvlm.task:BDHazardVLMTask",
    score_run="eval_kit.bd_hazardvlm.task:score_run",
    reference_loader="eval_kit.bd_hazardvlm.spec:load_annotations",
    scorer="eval_kit.bd_hazardvlm.submission:score_files",
    report="eval_kit.bd_hazardvlm.report:render_tables",
    board="eval_kit.bd_hazardvlm.board:board",
    checker="eval_kit.bd_hazardvlm.checker:BDHazardVLMChecker",
    score_command="eval_kit.bd_hazardvlm.commands:score_bd_hazardvlm",
    citation="eval_kit.bd_hazardvlm.spec:CITATION",
    publisher="builder.bd_hazardvlm.publisher:bd_hazardvlm_publisher",
    build_commands=(("reconstruct", "builder.bd_hazardvlm.commands:reconstruct"),
                    ("manifest", "builder.bd_hazardvlm.commands:manifest")),
    lmms_eval="eval_kit.bd_hazardvlm.lmms_eval:TASK",
    demo="builder.bd_hazardvlm.demo_steps:demo_steps",
    takes_images=True,
    retry_policies=("off", "once", "strict"),  # see task.RETRY_POLICIES; the paper retried MiniCPM-V only
)
