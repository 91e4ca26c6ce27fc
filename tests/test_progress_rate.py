"""The eval progress bar's rate is smoothed: a batch answered at once after a long wait reads as the real rate
(1.4 samples/s), not as a burst ("1821.6 samples/s ETA 0:00:01"), and resumed samples are not counted."""

import io

import pytest
from rich.console import Console

from eval_kit.runners import harness
from eval_kit.runners.harness import SmoothedRate


def test_batches_read_as_the_real_rate_and_a_change_is_followed():
    rate = SmoothedRate(tau=20)
    assert rate.update(0.0, 0) is None
    for i in range(1, 11):  # 8 answers at once every 5.7 s: 1.4/s
        value = rate.update(5.7 * i, 8 * i)
        rate.update(5.7 * i + 0.001, 8 * i)  # redrawn a moment later, nothing new: unchanged
    assert value == pytest.approx(8 / 5.7)
    for i in range(1, 61):  # the model gets faster: 8 every 1 s; a minute later the rate says so
        value = rate.update(57 + i, 80 + 8 * i)
    assert 7 < value <= 8


def test_the_column_ignores_resumed_samples(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(harness.time, "monotonic", lambda: now[0])
    progress = harness._progress(True, 100, console=Console(file=io.StringIO(), width=200))  # never started
    job = progress.add_task("movsafebench / m", total=100)
    column = progress.columns[3]
    progress.update(job, advance=50, resumed=50)  # resumed from the log in an instant
    task = progress.tasks[0]
    assert str(column.render(task)) == "-- samples/s ETA -:--:--"
    now[0] = 5.7
    progress.update(job, advance=8)
    assert str(column.render(task)) == "1.4 samples/s ETA 00:00:29"  # 42 left at 8 / 5.7 s
    now[0] = 11.4
    progress.update(job, advance=8)
    assert str(column.render(task)).startswith("1.4 samples/s")
