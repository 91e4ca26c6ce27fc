"""Test-wide settings: never touch the network (no test may download weights or data)."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def pytest_report_header(config) -> list[str]:
    """Name, above the results, the installed packages whose versions differ from constraints.txt."""
    from tests.lock import lock_drift

    return [lock_drift() or "environment: the versions of constraints.txt"]
