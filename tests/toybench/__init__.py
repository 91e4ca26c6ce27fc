"""A toy fourth benchmark, defined entirely in this folder: is a number even or odd?

It exists to prove the registry's promise: a new benchmark is its own folder plus one registry line
(`registry.register(tests.toybench.BENCHMARK)`), and then `eval --backend baseline`, `score run`,
`score toybench`, `validate` and `leaderboard add/render` work without touching generic code.
"""

from eval_kit.registry import Benchmark

BENCHMARK = Benchmark(
    name="toybench",
    title="ToyBench",
    package="tests.toybench",
    task="tests.toybench.parts:ParityTask",
    score_run="tests.toybench.parts:score_run",
    reference_loader="tests.toybench.parts:load_references",
    scorer="tests.toybench.parts:score_files",
    report="tests.toybench.parts:render_tables",
    board="tests.toybench.parts:board",
    checker="tests.toybench.parts:ParityChecker",
    score_command="tests.toybench.parts:score_toybench",
    citation="tests.toybench.parts:CITATION",
)
