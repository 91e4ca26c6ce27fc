"""The generic runner: benchmark tasks (registry.py), model backends (backends/), the resumable harness."""
