"""A slower machine, played on this one: a benchmark run confined to fewer cores than the host
has (``bench_live --cpu-cores 1.1``).

The 10,000-stream benchmark met its goal on some hosts of this project's machine kind and failed
by seconds on slower ones (docs/BENCHMARKS.md), which a session cannot pick. Under a CPU cap
every process of a run — the command and what it starts (servers, worker, client), and the local
PostgreSQL and Redis — shares ``cores`` of CPU time, so a host where the client's CPU an act is
0.22 ms runs, capped at 2 × 0.22 / 0.40 = 1.1 cores, about as a host where it is 0.40 ms runs
uncapped (a slow host of this kind: :func:`benchmarks.machine.slow_share_line`, which the run
prints): how far from the goal a slow host is can be measured, and a change judged, on any host.

It is the kernel's CPU bandwidth control (a cgroup's ``cpu.max`` under cgroup v2, its
``cpu.cfs_quota_us`` under v1), over a short period (:data:`PERIOD_US`): when the group has used
its share of a period, all of it waits for the next. A slower CPU spreads that wait over every
instruction instead, so a capped run is an approximation — close in CPU an act and in whether the
machine keeps up, not in the shape of its latency below a period's length. It needs root and a
writable cgroup hierarchy; without them the run stops before it starts, saying so.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
#: the bandwidth period (µs): short, so that a group out of its share waits at most a few ms
PERIOD_US = 20_000
#: the processes of the local services a capped run also confines (their ``comm`` names)
SERVICES = ("postgres", "redis-server")


class CapUnavailable(Exception):
    """This machine offers no CPU cap to this process (no cgroup ``cpu`` controller it may
    write to)."""


def _controller(root: Path) -> tuple[Path, str]:
    """The cgroup directory whose children can be capped, and how: ``"v2"`` or ``"v1"``."""
    v2 = root / "cgroup.controllers"
    if v2.exists() and "cpu" in v2.read_text().split():
        return root, "v2"
    for v1 in (root / "cpu", root / "cpu,cpuacct"):
        if (v1 / "cpu.cfs_quota_us").exists():
            return v1, "v1"
    raise CapUnavailable(f"no cgroup cpu controller under {root}")


def service_pids(names: tuple[str, ...] = SERVICES, proc: Path = Path("/proc")) -> list[int]:
    """Every process whose name is one of ``names`` (all of PostgreSQL's: its running backends do
    not follow the postmaster into a group, and a backend forked later does)."""
    pids = []
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in names:
                    pids.append(int(entry.name))
            except OSError:  # (gone meanwhile)
                continue
    return sorted(pids)


def group_of(pid: int, controller: Path, version: str, proc: Path = Path("/proc")) -> Path:
    """The group of ``controller``'s hierarchy that process ``pid`` is in now."""
    for line in (proc / str(pid) / "cgroup").read_text().splitlines():
        _number, kinds, path = line.split(":", 2)
        if (version == "v2" and kinds == "") or (version == "v1" and "cpu" in kinds.split(",")):
            return controller / path.lstrip("/")
    return controller


def _move(pid: int, group: Path) -> None:
    try:
        (group / "cgroup.procs").write_text(str(pid))
    except ProcessLookupError:  # (gone meanwhile)
        pass


GROUP_PREFIX = "gouji-bench-"


def release_left_over(controller: Path) -> int:
    """Empty and remove the groups of runs no longer running (a run killed before it could
    restore what it confined: PostgreSQL and Redis would stay capped), their processes moved to
    ``controller``'s top group; how many were moved."""
    moved = 0
    for group in controller.glob(f"{GROUP_PREFIX}*"):
        owner = group.name.removeprefix(GROUP_PREFIX)
        if not owner.isdigit() or Path(f"/proc/{owner}").exists():
            continue
        for pid in (group / "cgroup.procs").read_text().split():
            _move(int(pid), controller)
            moved += 1
        group.rmdir()
    return moved


@contextlib.contextmanager
def capped(cores: float, *, services: bool = True, root: Path | None = None,
           say=print) -> Iterator[Path]:
    """Run the ``with`` block with this process (and all it starts in it), and with
    ``services`` every local PostgreSQL and Redis process, sharing ``cores`` of CPU time; on
    leaving, every process still in the group goes back to the group it came from (one started
    meanwhile, a PostgreSQL backend say, to this process's), and the group is removed. The
    group's directory is given."""
    if not cores > 0:
        raise CapUnavailable(f"--cpu-cores must be more than 0, not {cores}")
    root = ROOT if root is None else root
    try:
        parent, version = _controller(root)
        released = release_left_over(parent)
        enabled = parent / "cgroup.subtree_control"
        if version == "v2" and "cpu" not in enabled.read_text().split():
            enabled.write_text("+cpu")  # (a v2 child has cpu.max only then)
        group = parent / f"{GROUP_PREFIX}{os.getpid()}"
        group.mkdir()
    except (CapUnavailable, OSError) as exc:
        raise CapUnavailable(f"a CPU cap needs a cgroup cpu controller this process may write "
                             f"to (root, {root}): {exc}") from exc
    quota = round(cores * PERIOD_US)
    came_from = {}
    try:
        if version == "v2":
            (group / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
        moved = service_pids() if services else []
        for pid in [os.getpid(), *moved]:
            came_from[pid] = group_of(pid, parent, version)
            _move(pid, group)
        if released:
            say(f"{released} processes confined by a run that did not end freed first")
        say(f"CPU capped at {cores:g} cores ({quota} µs every {PERIOD_US} µs, cgroup {version} "
            f"{group}): this run" + (f" and {len(moved)} PostgreSQL and Redis processes"
                                     if moved else ""))
        yield group
    finally:
        home = came_from.get(os.getpid(), parent)
        for _ in range(3):  # (a process forked while moving: once more)
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
            if not pids:
                break
            for pid in pids:
                _move(pid, came_from.get(pid, home))
        group.rmdir()
