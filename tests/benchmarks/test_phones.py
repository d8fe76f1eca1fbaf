"""bench_phones (issue 54): its figures by page, and a run refused before anything is built
when the production layout is not there."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from benchmarks.phones import Samples


def test_samples_give_each_pages_rate_percentiles_and_statuses():
    samples = Samples()
    for ms in range(1, 101):
        samples.add("leaderboard", float(ms), 200 if ms <= 98 else 0, 10)
    samples.add("desk poll", 7.0, 304)

    rows = {r[0]: r for r in samples.rows(seconds=10)}

    assert rows["leaderboard"][1:] == (100, 10.0, 50.0, 99.0, "0:2 200:98")
    assert rows["desk poll"][1:] == (1, 0.1, 7.0, 7.0, "304:1")
    assert samples.p99("leaderboard") == 99.0 and samples.p99("nothing") is None
    assert samples.bytes["leaderboard"] == 1000


def test_a_run_without_the_layout_is_refused_before_building(tmp_path, db):
    with pytest.raises(CommandError, match="tls.crt is missing"):
        call_command("bench_phones", "--dir", str(tmp_path), "--phones", "1")


def test_the_client_processes_figures_merge_into_one():
    one, other = Samples(), Samples()
    one.add("leaderboard", 1.0, 200, 5)
    other.add("leaderboard", 3.0, 304)
    other.add("table page", 2.0, 200, 7)

    one.merge(other)

    rows = {r[0]: r for r in one.rows(seconds=1)}
    assert rows["leaderboard"][1:] == (2, 2.0, 1.0, 3.0, "200:1 304:1")
    assert rows["table page"][1:] == (1, 1.0, 2.0, 2.0, "200:1")
    assert one.bytes == {"leaderboard": 5, "table page": 7}
