"""SafeRelBench, eval side: everything that defines, loads, prompts, parses, executes, scores and ranks it.

spec (vocabulary, relations, risk types, variants), samples / goals / literals (BDDL goal compilation with
bddl's parser), knowledge (BEHAVIOR's object knowledge and transition rules from bddl's data), activities
(the 1,016 activities as they stand) and planner (witness plans), actions / executor / plan_parser / episode /
scorer (the symbolic executor and per-episode safety scoring), prompts, task (runner task), submission
(samples + plans -> scores), scoring (SR / SSR / SRec), report, checker (`validate`), board (leaderboard),
commands (`hazardkit score saferelbench`), metric/ (the `evaluate` module), schemas/ (JSON Schemas). Its
builder side (sample validation, generation and publishing) is `builder/saferelbench/`.
"""

from eval_kit.registry import Benchmark

BENCHMARK = Benchmark(
    name="saferelbench",
    title="SafeRelBench",
    hub_id="hazardkit/saferelbench",  # on the Hugging Face Hub: `--data ORG/NAME[@vX.Y.Z]`
    package="eval_kit.saferelbench",
    task="eval_kit.saferelbench.task:SafeRelBenchTask",
    score_run="eval_kit.saferelbench.task:score_run",
    reference_loader="eval_kit.saferelbench.samples:load_samples",
    scorer="eval_kit.saferelbench.submission:score_files",
    report="eval_kit.saferelbench.report:render_tables",
    board="eval_kit.saferelbench.board:board",
    checker="eval_kit.saferelbench.checker:SafeRelBenchChecker",
    score_command="eval_kit.saferelbench.commands:score_saferelbench",
    citation="eval_kit.saferelbench.spec:CITATION",
    publisher="builder.saferelbench.publisher:saferelbench_publisher",
    build_commands=(("saferel", "builder.saferelbench.commands:saferel"),),
    lmms_eval="eval_kit.saferelbench.lmms_eval:TASK",
    demo="builder.saferelbench.demo_steps:demo_steps",
    variants=("base", "risk_aware", "action_grounded"),
    has_images=False,
    fallback_data="manifests/saferelbench",
)
