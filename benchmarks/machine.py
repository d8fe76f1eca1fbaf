"""What the machine gave a benchmark run: its speed on a fixed piece of work, and the CPU time
the host took from it.

These machines are shared, and their speed moves: the same commit of ``bench_live --streams
10000`` can cost a quarter more CPU an act from one hour to the next. Figures of different runs
compare only with the machine's state beside them. Two readings give it:

- :func:`speed`: the CPU time (not the wall time: time the host takes from the process is not
  counted) of a fixed piece of the engine's work — one seeded game played to its end by the
  engine's bots, every seat's view rendered after each act, as a stream server does. The same
  code on a slower machine, or with the caches shared with a busy neighbour, takes longer.
- :func:`cpu_times` at two instants, then :func:`used`: how many cores were busy in between,
  and how many the hypervisor stole (``steal`` in ``/proc/stat``: a core's time given to
  another guest while this one had work for it).
"""

from __future__ import annotations

import itertools
import os
import random
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

#: the fields of /proc/stat's ``cpu`` line, in order (proc(5))
_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


@dataclass(frozen=True)
class CpuTimes:
    """The machine's CPU time since boot, all cores together, in seconds."""

    busy: float
    idle: float
    steal: float
    at: float  # time.monotonic() of the reading


def cpu_times(path: str = "/proc/stat") -> CpuTimes | None:
    """The machine's CPU time now (``/proc/stat``); ``None`` off Linux."""
    try:
        with open(path, encoding="ascii") as fh:
            words = fh.readline().split()
    except OSError:
        return None
    if not words or words[0] != "cpu":
        return None
    tick = os.sysconf("SC_CLK_TCK")
    values = dict(zip(_FIELDS, (int(w) / tick for w in words[1:]), strict=False))
    steal = values.get("steal", 0.0)
    idle = values.get("idle", 0.0) + values.get("iowait", 0.0)
    busy = sum(values.values()) - idle - steal
    return CpuTimes(busy=busy, idle=idle, steal=steal, at=time.monotonic())


@dataclass(frozen=True)
class Used:
    """Cores busy, and cores stolen by the host, on average between two readings."""

    busy: float
    steal: float

    def line(self, cores: int) -> str:
        return (f"the machine's {cores} cores while playing: {self.busy:.2f} busy, "
                f"{self.steal:.2f} taken by the host (steal)")


def used(before: CpuTimes | None, after: CpuTimes | None) -> Used | None:
    """The cores used between two readings of :func:`cpu_times`."""
    if before is None or after is None or after.at <= before.at:
        return None
    seconds = after.at - before.at
    return Used(busy=(after.busy - before.busy) / seconds,
                steal=(after.steal - before.steal) / seconds)


def cpu_seconds(pids: list[int], proc: str = "/proc") -> float:
    """The CPU time (user and system, seconds) the processes ``pids`` have used; a process
    gone meanwhile counts nothing."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            with open(f"{proc}/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            continue
    return total


class CpuSeries:
    """The cores each group of processes, and the whole machine, used in each ``every``
    seconds of a run: read from ``/proc`` by :meth:`follow` (in a thread) until told to stop.
    A run's mean CPU says whether the machine keeps up; its tail is made in moments, and this
    says what was busy then (``bench_live --streams``' windows of 10 s)."""

    def __init__(self, groups: dict[str, Callable[[], list[int]]], every: float = 10.0):
        self.groups, self.every = groups, every
        self.points: list[tuple[float, dict[str, float], CpuTimes | None]] = []

    def read(self) -> None:
        self.points.append((time.monotonic(),
                            {name: cpu_seconds(pids()) for name, pids in self.groups.items()},
                            cpu_times()))

    def follow(self, stop: threading.Event) -> None:
        """Read now, then every :attr:`every` seconds from now, and once more when ``stop``
        is set."""
        start = time.monotonic()
        self.read()
        while not stop.wait(max(0.0, start + len(self.points) * self.every - time.monotonic())):
            self.read()
        self.read()

    def windows(self) -> list[tuple[float, float | None, dict[str, float]]]:
        """[(seconds from the first reading, the machine's busy cores, {group: cores})] for
        each interval between two readings that lasted half of :attr:`every` at least — the
        last one, from the last regular reading to the stop, may be shorter: a moment's CPU
        says little."""
        out = []
        start = self.points[0][0] if self.points else 0.0
        for (t0, cpu0, m0), (t1, cpu1, m1) in itertools.pairwise(self.points):
            if t1 - t0 < self.every / 2:
                continue
            whole = used(m0, m1)
            out.append((t0 - start, None if whole is None else whole.busy,
                        {name: (cpu1[name] - cpu0[name]) / (t1 - t0) for name in cpu0}))
        return out

    def line(self) -> str:
        """The series as one line: each interval's busy cores, then each group's."""
        names = list(self.groups)
        return (f"cores by {self.every:g} s of play, the machine's busy ({', '.join(names)}): " +
                "; ".join(f"{at:.0f} s {'?' if busy is None else f'{busy:.2f}'} (" +
                          ", ".join(f"{cores[n]:.2f}" for n in names) + ")"
                          for at, busy, cores in self.windows()))


def _workload(seed: int) -> int:
    """One game of the 大纲 preset, dealt from ``seed`` and played out by the engine's
    heuristic bots, with the six seats' views rendered and encoded after every act; returns
    the acts made."""
    import orjson

    import engine
    from engine.bots import make_bot, next_act

    rng = random.Random(seed)
    game = engine.Game("dagang", engine.deal(rng))
    bots = [make_bot("heuristic", random.Random(rng.random())) for _ in range(6)]
    acts = 0
    while game.state != "over":
        game.act(*next_act(game, bots))
        acts += 1
        for viewer in range(6):
            orjson.dumps(game.view(viewer))
    return acts


def speed(repeats: int = 5, seed: int = 2026) -> float:
    """Milliseconds of this process's CPU time for :func:`_workload`, the median of
    ``repeats`` runs (after one to warm up)."""
    _workload(seed)
    times = []
    for _ in range(repeats):
        start = time.process_time()
        _workload(seed)
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def speed_line(ms: float) -> str:
    return (f"machine speed: {ms:.0f} ms of CPU for the fixed engine workload "
            f"(benchmarks/machine.py; lower is faster; runs compare at like speeds)")


#: the stream client's CPU an act (ms) on the slow hosts of this machine kind, where the goal
#: failed uncapped: measured with the client of :data:`SLOW_HOST_COMMIT`
SLOW_HOST_CLIENT_MS_THEN = 0.49
SLOW_HOST_COMMIT = "7332ebc"
#: the client's work an act now over its work at :data:`SLOW_HOST_COMMIT`, found by running
#: both clients side by side on one host (``bench_live --streams 10000 --tables 1667
#: --move-every 3 --seconds 420``, uncapped) and rounded down, so that the share it gives is if
#: anything smaller than a slow host's. The client's work is the same on every host, not across
#: commits: a change to the client or to the engine moves this, and the pair is run again (the
#: commits that set it say how).
CLIENT_NOW_OVER_THEN = 0.81


def slow_share_line(client_cores: float, acts_per_second: float, host_cores: int
                    ) -> str | None:
    """The cap that plays a slow host of this kind on this one, the yardstick of a run under a
    CPU cap (benchmarks/cpucap.py): this host's cores scaled by the client's CPU an act here
    over this client's on a slow host (:data:`SLOW_HOST_CLIENT_MS_THEN` ×
    :data:`CLIENT_NOW_OVER_THEN`: the client does the same work on every host), as
    ``--cpu-cores`` takes it. ``None`` without acts."""
    if acts_per_second <= 0 or client_cores <= 0:
        return None
    client_ms = client_cores / acts_per_second * 1000
    slow_ms = SLOW_HOST_CLIENT_MS_THEN * CLIENT_NOW_OVER_THEN
    share = host_cores * client_ms / slow_ms
    return (f"this host's share of a slow host of its kind: --cpu-cores {share:.2f} ({host_cores} "
            f"cores × the client's {client_ms:.2f} ms an act / a slow host's {slow_ms:.2f}: "
            f"{SLOW_HOST_CLIENT_MS_THEN:.2f} with the client of {SLOW_HOST_COMMIT}, this client "
            f"doing {CLIENT_NOW_OVER_THEN:.2f} of its work)")


def cpu_per_act_line(cores: dict[str, float], acts_per_second: float) -> str | None:
    """Each process group's CPU an act (``cores``: its cores used while the acts came at
    ``acts_per_second``), and the servers' over the client's: the client does the same work on
    every host, so that ratio compares the servers' code across hosts of unlike pace, where the
    latencies and the cores do not — between commits that
    leave the client and the engine as they were (:data:`CLIENT_NOW_OVER_THEN`). ``None``
    without acts."""
    if acts_per_second <= 0 or not cores:
        return None
    line = "CPU an act: " + ", ".join(f"{name} {used / acts_per_second * 1000:.2f} ms"
                                       for name, used in cores.items())
    servers = sum(used for name, used in cores.items() if name in ("uvicorn", "api"))
    if servers and cores.get("client"):
        line += (f"; the servers' over the client's {servers / cores['client']:.2f} (the "
                 f"client's work is the same on every host: a yardstick of the host)")
    return line
