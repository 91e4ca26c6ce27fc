"""hazardkit evaluation kit: benchmark specs, parsers, metrics, runners and leaderboard.

Heavy libraries (torch, transformers, vllm, datasets, evaluate) are imported lazily inside the
modules that need them, so `import eval_kit` and scoring stay fast and light.
"""

__version__ = "0.1.0"
