"""Latency figures of the benchmarks: nearest-rank percentiles, per-label tables."""

from __future__ import annotations

import math
from collections import defaultdict

from benchmarks.loadclient import Outcome, Request


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return float("nan")
    k = max(0, math.ceil(pct / 100 * len(sorted_values)) - 1)
    return sorted_values[k]


class Figures:
    """Latency and throughput per label, across phases."""

    def __init__(self):
        self.latency = defaultdict(list)  # label -> seconds
        self.wall = defaultdict(float)  # label -> seconds spent in phases sending it
        self.statuses = defaultdict(lambda: defaultdict(int))

    def add(self, jobs: list[Request], outcomes: list[Outcome], wall: float) -> None:
        labels = set()
        for o in outcomes:
            label = jobs[o.index].label
            labels.add(label)
            self.latency[label].append(o.seconds)
            self.statuses[label][o.status] += 1
        for label in labels:
            self.wall[label] += wall

    def add_one(self, label: str, seconds: float, status: int) -> None:
        self.latency[label].append(seconds)
        self.statuses[label][status] += 1

    def lines(self) -> list[str]:
        """One line per label; req/s is the label's requests over the wall time of the batches
        that sent them (single requests sent one by one show "-")."""
        out = [f"  {'endpoint':<34} {'n':>6} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} "
               f"{'max ms':>8}  answers"]
        for label in sorted(self.latency):
            values = sorted(self.latency[label])
            wall = self.wall.get(label) or 0
            rate = f"{len(values) / wall:7.0f}" if wall else f"{'-':>7}"
            answers = ", ".join(f"{code or 'transport error'}×{n}"
                                for code, n in sorted(self.statuses[label].items()))
            out.append(f"  {label:<34} {len(values):>6} {rate} "
                       f"{percentile(values, 50) * 1000:8.1f} {percentile(values, 99) * 1000:8.1f}"
                       f" {values[-1] * 1000:8.1f}  {answers}")
        return out

