"""SafeRelBench machinery: BDDL goal compilation (bddl's parser, our literal-set backend), the symbolic
executor, the trace scorer, prompts and the plan parser. The vocabulary is in eval_kit.benchmarks.saferelbench.
"""

from eval_kit.saferel.prompts import build_prompt

__all__ = ["build_prompt"]
