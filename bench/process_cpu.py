"""CPU seconds of running processes, read from Linux /proc: the one counter the compile-time benches share.

A compile worker's Vela compiles run in its Vela server, a child process (arm/ethosu/vela_process.py)
that lives as long as the worker: its CPU time is in neither the worker's own counters nor its
``cutime`` until it is waited for. So a request's CPU seconds are those of the worker's whole tree of
live processes, each with the children it has already waited for, read before and after the request.
Where /proc cannot be read (not Linux, or the process is gone) the figure is NaN, never a silent 0.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

# Fields of /proc/PID/stat after the command name: utime, stime, cutime, cstime (in clock ticks).
_OWN = slice(11, 13)
_OWN_AND_WAITED = slice(11, 15)


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat after the command name (so fields[1] is the parent's pid), or None if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _live_children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def process_cpu_seconds(pid: int, *, waited_children: bool = True) -> float:
    """User + system CPU seconds of one live process, with those of the children it has waited for."""
    fields = _stat_fields(pid)
    if fields is None:
        return math.nan
    ticks = sum(int(field) for field in fields[_OWN_AND_WAITED if waited_children else _OWN])
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a live process and all its live descendants, each with its waited-for children."""
    if _stat_fields(pid) is None:
        return math.nan
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        seconds = process_cpu_seconds(current)
        if not math.isnan(seconds):  # a descendant that ended between the two reads
            total += seconds
            pending += _live_children(current)
    return total
