"""The peer's cold compile, derived from a ``bench.compare`` run instead of compiled a second time.

The peer needs 3-60 minutes per model on a loaded 2-core machine, and ``bench.compare`` has already
timed its compile. A cold run of the peer (one fresh process per model, as bench.compile_time measures
it) is three parts, and the derived figure adds them up:

1. **start-up**: a fresh Python process importing what the peer's cold script imports (torch,
   arm.model_spec, bench.peer with ExecuTorch's Arm backend) plus the modules the peer's backend imports
   lazily on first use (``bench.peer.warm_up``), to the process's exit. Measured once per run, in its own
   process, as the wall time of that process less the model loads below.
2. **model load**: ``load_model_spec`` of the model (building it, its example and calibration inputs),
   timed inside that same process, one model after another.
3. **compile**: the peer's in-process compile seconds from the ``bench.compare --json`` file (wall time
   from torch.export to the .pte bytes, the sum of its stages), with that file's calibration count.

What the derived figure leaves out: the first-call costs a cold process pays inside its first compile
(torch's and ExecuTorch's caches, Vela's first load), which bench.compare pays in an untimed warm-up
compile before the first timed one. So it is at most the peer's measured cold time, other things equal,
and our ratios against it are upper bounds. The compile seconds were taken under that run's load (kept
with the figure); other work on the machine inflates them as it inflates ours.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.model_list import BENCH_MODELS

# Run in a fresh process: the peer's cold script's imports, its lazy imports, then each model's load.
_STARTUP_SCRIPT = """
import json, sys, time
import torch
torch.set_num_threads(1)
from arm.model_spec import load_model_spec
from bench.peer import compile_peer, warm_up
warm_up()
loads = {}
for factory in sys.argv[1:]:
    wall, cpu = time.perf_counter(), time.process_time()
    load_model_spec(factory)
    loads[factory] = [time.perf_counter() - wall, time.process_time() - cpu]
print(json.dumps(loads))
"""


@dataclasses.dataclass(frozen=True)
class PeerStartup:
    """What a cold peer process pays besides the compile; see the module docstring."""

    seconds: float  # wall: interpreter, imports (eager and lazy) and exit
    cpu_seconds: float
    model_load_seconds: dict[str, float]  # model short name -> wall seconds of load_model_spec
    model_load_cpu_seconds: dict[str, float]
    load: float  # 1-minute load average when it finished


@dataclasses.dataclass(frozen=True)
class PeerCompile:
    """The peer's in-process compile of one model and target, as a bench.compare JSON has it."""

    seconds: float
    calibration_samples: int
    load: float | None  # the load average right after that compile
    source: str  # the JSON file's name
    cpu_seconds: float | None = None  # recorded by bench.compare runs from 2026-11-26 on


def peer_compiles(paths: list[Path]) -> dict[tuple[str, str], PeerCompile]:
    """(model, target) -> the peer's compile, from bench.compare JSON files; later files win.

    Pairs where the peer failed (or was reused from yet another file without seconds) are left out.
    """
    compiles: dict[tuple[str, str], PeerCompile] = {}
    for path in paths:
        document = json.loads(path.read_text())
        samples = int(document["run"]["calibration samples"])
        for comparison in document["comparisons"]:
            peer = comparison["peer"]
            if peer.get("error") or not peer.get("seconds"):
                continue
            compiles[(comparison["model"], comparison["target"])] = PeerCompile(
                float(peer["seconds"]), samples, peer.get("load_average"), path.name, peer.get("cpu_seconds")
            )
    return compiles


def measure_peer_startup(models: list[str], workdir: Path, environment: dict[str, str]) -> PeerStartup:
    """Runs the start-up process once, loading each of ``models`` in it (see the module docstring)."""
    factories = [BENCH_MODELS[model] for model in models]
    before = os.times()
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", _STARTUP_SCRIPT, *factories],
        cwd=workdir, env=environment, capture_output=True, text=True,
    )
    wall = time.perf_counter() - start
    after = os.times()
    if completed.returncode != 0:
        raise RuntimeError(f"the peer's start-up process failed:\n{completed.stderr[-2000:]}")
    loads = json.loads(completed.stdout.strip().splitlines()[-1])
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    load_wall = {model: loads[factory][0] for model, factory in zip(models, factories)}
    load_cpu = {model: loads[factory][1] for model, factory in zip(models, factories)}
    return PeerStartup(
        seconds=wall - sum(load_wall.values()),
        cpu_seconds=cpu - sum(load_cpu.values()),
        model_load_seconds=load_wall,
        model_load_cpu_seconds=load_cpu,
        load=os.getloadavg()[0],
    )


def derived_cold_seconds(startup: PeerStartup, compile_: PeerCompile, model: str) -> float | None:
    """start-up + model load + in-process compile; None when the start-up run did not load ``model``."""
    if model not in startup.model_load_seconds:
        return None
    return startup.seconds + startup.model_load_seconds[model] + compile_.seconds


def derived_cold_cpu_seconds(startup: PeerStartup, compile_: PeerCompile, model: str) -> float | None:
    """The same sum in CPU seconds; None where the compare run did not record the compile's."""
    if model not in startup.model_load_cpu_seconds or compile_.cpu_seconds is None:
        return None
    return startup.cpu_seconds + startup.model_load_cpu_seconds[model] + compile_.cpu_seconds
