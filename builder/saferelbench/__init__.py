"""SafeRelBench, builder side: sample validation (`samples`, `hazardkit saferel`), the publisher and its card
template, and the demo steps. Its eval side is `eval_kit/saferelbench/`.
"""
