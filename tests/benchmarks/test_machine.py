"""What a benchmark reports of the machine (benchmarks/machine.py): the CPU the host stole, and
the speed of a fixed workload."""

import os

import pytest

from benchmarks import machine


def _stat(tmp_path, line: str):
    path = tmp_path / "stat"
    path.write_text(line + "\ncpu0 1 2 3 4 5 6 7 8 0 0\n", encoding="ascii")
    return str(path)


def test_busy_idle_and_steal_are_read_from_the_cpu_line(tmp_path):
    tick = os.sysconf("SC_CLK_TCK")
    # user nice system idle iowait irq softirq steal guest guest_nice
    times = machine.cpu_times(_stat(tmp_path, f"cpu  {10 * tick} 0 {5 * tick} {40 * tick} "
                                              f"{2 * tick} 0 {tick} {3 * tick} 0 0"))
    assert times.busy == pytest.approx(16)  # user + system + softirq
    assert times.idle == pytest.approx(42)  # idle + iowait
    assert times.steal == pytest.approx(3)


def test_an_unreadable_or_foreign_stat_gives_nothing(tmp_path):
    assert machine.cpu_times(str(tmp_path / "missing")) is None
    assert machine.cpu_times(_stat(tmp_path, "intr 1 2 3")) is None


def test_cores_used_between_two_readings():
    before = machine.CpuTimes(busy=100.0, idle=50.0, steal=10.0, at=1000.0)
    after = machine.CpuTimes(busy=130.0, idle=55.0, steal=15.0, at=1020.0)
    got = machine.used(before, after)
    assert (got.busy, got.steal) == (pytest.approx(1.5), pytest.approx(0.25))
    assert "1.50 busy, 0.25 taken by the host" in got.line(2)
    assert machine.used(None, after) is None
    assert machine.used(after, before) is None  # (not in order: no figure rather than a wrong one)


def test_the_workload_is_the_same_game_every_time():
    """A fixed piece of work: the same seeded game, to its end, each time it runs."""
    acts = machine._workload(2026)
    assert acts > 100
    assert machine._workload(2026) == acts
    assert machine._workload(7) != acts or machine._workload(8) != acts


def test_speed_is_the_median_cpu_time_of_the_runs(monkeypatch):
    clock = iter([0.0, 0.03, 1.0, 1.05, 2.0, 2.04])  # three runs: 30, 50, 40 ms
    monkeypatch.setattr(machine.time, "process_time", lambda: next(clock))
    ran = []
    monkeypatch.setattr(machine, "_workload", lambda seed: ran.append(seed))
    assert machine.speed(repeats=3, seed=5) == pytest.approx(40)
    assert ran == [5, 5, 5, 5]  # one to warm up, then the three timed
    assert "40 ms of CPU" in machine.speed_line(40)


def test_the_cpu_an_act_and_the_servers_over_the_client():
    line = machine.cpu_per_act_line({"uvicorn": 1.2, "client": 0.25, "postgres": 0.3}, 500.0)
    assert line.startswith("CPU an act: uvicorn 2.40 ms, client 0.50 ms, postgres 0.60 ms; ")
    assert "the servers' over the client's 4.80" in line
    gunicorn_too = machine.cpu_per_act_line({"uvicorn": 0.5, "api": 0.7, "client": 0.3}, 100.0)
    assert "the servers' over the client's 4.00" in gunicorn_too
    assert machine.cpu_per_act_line({"uvicorn": 1.0}, 200.0) == "CPU an act: uvicorn 5.00 ms"
    assert machine.cpu_per_act_line({"uvicorn": 1.0}, 0.0) is None


def test_the_share_of_a_slow_host_scales_the_cores_by_the_clients_cpu_an_act(monkeypatch):
    # the client at 0.147 of a core over 500 acts a second: 0.294 ms an act, 0.6 of a slow host's
    monkeypatch.setattr(machine, "CLIENT_NOW_OVER_THEN", 1.0)
    line = machine.slow_share_line(0.147, 500.0, 2)
    assert line.startswith("this host's share of a slow host of its kind: --cpu-cores 1.20 ")
    assert "2 cores × the client's 0.29 ms an act / a slow host's 0.49" in line
    # a client doing 0.8 of the work of the one measured on the slow host: 0.392 ms there
    monkeypatch.setattr(machine, "CLIENT_NOW_OVER_THEN", 0.8)
    line = machine.slow_share_line(0.147, 500.0, 2)
    assert line.startswith("this host's share of a slow host of its kind: --cpu-cores 1.50 ")
    assert ("a slow host's 0.39: 0.49 with the client of 7332ebc, this client doing 0.80 of its "
            "work") in line
    assert machine.slow_share_line(0.147, 0.0, 2) is None
    assert machine.slow_share_line(0.0, 500.0, 2) is None


def _proc_stat(root, pid: int, user_ticks: int, system_ticks: int, name: str = "uvi corn)"):
    """A /proc/<pid>/stat line (its command in parentheses, which may hold spaces and a ``)``)."""
    (root / str(pid)).mkdir(exist_ok=True)
    fields = ["S", *["0"] * 10, str(user_ticks), str(system_ticks), *["0"] * 10]
    (root / str(pid) / "stat").write_text(f"{pid} ({name}) " + " ".join(fields) + "\n")


def test_a_groups_cpu_is_its_processes_user_and_system_time(tmp_path):
    tick = os.sysconf("SC_CLK_TCK")
    _proc_stat(tmp_path, 11, 3 * tick, tick)
    _proc_stat(tmp_path, 12, tick, 0)
    assert machine.cpu_seconds([11, 12, 13], proc=str(tmp_path)) == pytest.approx(5)  # 13: gone


def test_a_cpu_series_gives_each_groups_cores_in_each_interval(monkeypatch):
    used = {"servers": 0.0, "client": 0.0}
    clock = [100.0]
    monkeypatch.setattr(machine.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(machine, "cpu_seconds", lambda pids: used[pids[0]])
    monkeypatch.setattr(machine, "cpu_times", lambda: machine.CpuTimes(
        busy=used["servers"] + used["client"] + 1.0, idle=0.0, steal=0.0, at=clock[0]))
    series = machine.CpuSeries({"servers": lambda: ["servers"], "client": lambda: ["client"]})
    for servers, client in ((0.0, 0.0), (8.0, 1.0), (19.0, 2.5)):  # every 10 s
        used.update(servers=servers, client=client)
        series.read()
        clock[0] += 10.0
    clock[0] -= 9.5  # (stopped half a second after the last reading: left out)
    used.update(servers=19.5, client=2.5)
    series.read()
    windows = series.windows()
    assert [at for at, _busy, _cores in windows] == [0.0, 10.0]
    assert windows[0][2] == {"servers": pytest.approx(0.8), "client": pytest.approx(0.1)}
    assert windows[1][2] == {"servers": pytest.approx(1.1), "client": pytest.approx(0.15)}
    assert [busy for _at, busy, _cores in windows] == [pytest.approx(0.9), pytest.approx(1.25)]
    assert series.line() == ("cores by 10 s of play, the machine's busy (servers, client): "
                             "0 s 0.90 (0.80, 0.10); 10 s 1.25 (1.10, 0.15)")


def test_a_cpu_series_reads_until_it_is_stopped():
    import threading

    series = machine.CpuSeries({"me": lambda: [os.getpid()]}, every=0.05)
    stop = threading.Event()
    follower = threading.Thread(target=series.follow, args=(stop,))
    follower.start()
    while len(series.points) < 3:
        stop.wait(0.01)
    stop.set()
    follower.join(5)
    assert not follower.is_alive()
    assert len(series.points) - 2 <= len(series.windows()) <= len(series.points) - 1
    assert len(series.windows()) >= 2
