"""bench.process_cpu against the kernel's other account of the same time (os.times) and a live child."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time

from bench.process_cpu import process_cpu_seconds, tree_cpu_seconds

_TICK = 1.0 / os.sysconf("SC_CLK_TCK")


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_own_seconds_agree_with_os_times() -> None:
    _burn(0.2)
    times = os.times()
    own = process_cpu_seconds(os.getpid(), waited_children=False)
    assert abs(own - (times.user + times.system)) <= 2 * _TICK


def test_waited_children_agree_with_os_times() -> None:
    subprocess.run([sys.executable, "-c", "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass"], check=True)
    times = os.times()
    with_waited = process_cpu_seconds(os.getpid())
    expected = times.user + times.system + times.children_user + times.children_system
    assert times.children_user + times.children_system >= 0.15
    assert abs(with_waited - expected) <= 4 * _TICK


def test_tree_counts_a_live_child() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys, time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\nsys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        while process_cpu_seconds(child.pid) < 0.3 - 2 * _TICK:
            time.sleep(0.02)
        # own first: walking the tree costs this process CPU time, which the tree then counts in full
        # (read the other way round, a slow walk on a loaded machine ate the child's margin)
        own = process_cpu_seconds(os.getpid())
        tree = tree_cpu_seconds(os.getpid())
        assert tree - own >= 0.3 - 2 * _TICK
    finally:
        child.communicate(b"")


def test_a_gone_process_reads_nan() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert math.isnan(process_cpu_seconds(child.pid))
    assert math.isnan(tree_cpu_seconds(child.pid))
