"""``bench_live --cpu-cores``: a run confined to fewer cores (benchmarks/cpucap.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchmarks import cpucap
from benchmarks.servers import process_figures

BUSY = "import time\nend = time.monotonic() + float(__import__('sys').argv[1])\n" \
       "while time.monotonic() < end: pass\n"


def _burn(processes: int, seconds: float) -> float:
    """CPU seconds that ``processes`` busy loops of ``seconds`` (wall) got, in all."""
    children = [subprocess.Popen([sys.executable, "-c", BUSY, str(seconds)])
                for _ in range(processes)]
    time.sleep(seconds * 0.9)
    used = process_figures([child.pid for child in children])["cpu_s"]
    for child in children:
        child.wait()
    return used


def _can_cap() -> bool:
    try:
        return os.access(cpucap._controller(cpucap.ROOT)[0], os.W_OK)
    except cpucap.CapUnavailable:
        return False


needs_a_cap = pytest.mark.skipif(not _can_cap(), reason="no writable cgroup cpu controller")


@needs_a_cap
def test_a_capped_run_gets_no_more_cpu_than_its_cores_and_leaves_no_group_behind():
    parent, version = cpucap._controller(cpucap.ROOT)
    home = cpucap.group_of(os.getpid(), parent, version)
    with cpucap.capped(0.2, services=False, say=lambda line: None) as group:
        assert str(os.getpid()) in (group / "cgroup.procs").read_text().split()
        used = _burn(2, 1.5)  # two cores' worth of busy loops for 1.5 s
    # capped: 0.2 of a core for 1.35 s, 0.27 s; free, the two loops get up to 2.7 s (checked
    # once by hand: 2.6 s), and far more than 0.45 on a busy host
    assert used < 0.45, used
    assert not group.exists()
    assert cpucap.group_of(os.getpid(), parent, version) == home


@needs_a_cap
def test_the_group_of_a_run_that_was_killed_is_emptied_before_the_next():
    parent, _version = cpucap._controller(cpucap.ROOT)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    left = parent / f"{cpucap.GROUP_PREFIX}{gone}"
    left.mkdir()
    try:
        (left / "cgroup.procs").write_text(str(sleeper.pid))
        assert cpucap.release_left_over(parent) == 1
        assert not left.exists()
        assert cpucap.group_of(sleeper.pid, parent, _version) == parent
    finally:
        sleeper.kill()
        sleeper.wait()
        if left.exists():
            left.rmdir()


def test_without_a_cpu_controller_the_cap_says_what_it_needs(tmp_path):
    with pytest.raises(cpucap.CapUnavailable, match="cgroup cpu controller"):
        with cpucap.capped(1.3, root=tmp_path):
            pass
    with pytest.raises(cpucap.CapUnavailable, match="more than 0"):
        with cpucap.capped(0, root=tmp_path):
            pass


def test_bench_live_refuses_a_cap_it_cannot_have(monkeypatch, tmp_path):
    monkeypatch.setattr(cpucap, "ROOT", tmp_path)
    monkeypatch.setattr("benchmarks.management.commands.bench_live.Command.vacuum",
                        lambda self: None)
    monkeypatch.setattr("benchmarks.management.commands.bench_live.ensure_database",
                        lambda say: None)
    monkeypatch.setenv("DATABASE_URL", "sqlite://")
    ran = []
    monkeypatch.setattr("benchmarks.management.commands.bench_live.Command.run",
                        lambda self, **opts: ran.append(opts))
    with pytest.raises(CommandError, match="cgroup cpu controller"):
        call_command("bench_live", "--cpu-cores", "1.3", "--seconds", "1")
    assert ran == []


def test_the_services_are_found_by_name_and_the_groups_read(tmp_path):
    for pid, name in ((10, "postgres"), (11, "redis-server"), (12, "python"), (13, "postgres")):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "comm").write_text(name + "\n")
    (tmp_path / "self").mkdir()
    assert cpucap.service_pids(proc=tmp_path) == [10, 11, 13]
    (tmp_path / "10" / "cgroup").write_text("4:memory:/m\n2:cpu,cpuacct:/db\n0::/unified\n")
    assert cpucap.group_of(10, Path("/c"), "v1", proc=tmp_path) == Path("/c/db")
    assert cpucap.group_of(10, Path("/c"), "v2", proc=tmp_path) == Path("/c/unified")
