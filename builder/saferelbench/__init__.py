"""SafeRelBench, builder side: sample validation (`samples`), sample generation from real activities
(`generate`), the `hazardkit saferel` commands, the publisher and its card template, and the demo steps.
Its eval side is `eval_kit/saferelbench/`.
"""
