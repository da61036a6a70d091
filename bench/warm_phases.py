"""Where a warm compile spends its seconds: one process, one request per model target, by phase.

    PYTHONPATH=. python -m bench.warm_phases --pairs yolov8n@ethos-u85-256,llama@ethos-u55-128 --json phases.jsonl

A persistent worker (arm/compile_worker.py) pays the imports once; what is left per request is the model's
load and ``run_flow``. This runs them the same way in one process, after an untimed warm-up compile of
models.small_cnn (what bench.compile_time's worker does first), and splits each request into phases:

- **load**: ``load_model_spec`` (building the module and its inputs);
- **export**, **quantize** (pt2e prepare, calibration, convert), **re-export**: the flow's stages;
- **lower**, split into the edge program (arm.edge_in_place, or to_edge's re-trace where the in-place
  route declined: ``to_edge`` then also covers the partition and the backend, as executorch nests them),
  the partitioner, the TOSA lowering, Vela, and the rest of ``to_backend`` (executorch's own work);
- **serialize**: ``to_executorch`` and the .pte bytes.

Seconds are CPU seconds of this process (``time.process_time``) plus, for Vela, the CPU seconds of the
Vela server process it runs in (arm/ethosu/vela_process.py); wall seconds beside them. The machine is
shared: CPU seconds are the figure to read. Each pair prints one JSON row (and appends it to ``--json``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import math
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Callable, Iterator

import torch

from arm.model_spec import load_model_spec
from bench.model_list import BENCH_MODELS
from bench.process_cpu import process_cpu_seconds


def _vela_server_cpu() -> float:
    from arm.ethosu import vela_process

    server = vela_process.shared()._server
    return 0.0 if server is None or server.poll() is not None else process_cpu_seconds(server.pid)


@dataclasses.dataclass
class PhaseClock:
    """CPU and wall seconds accumulated per phase name, nested calls counted once (in the outer phase)
    and subtracted from the phase around them, so the phases add up to the whole."""

    cpu: dict[str, float] = dataclasses.field(default_factory=dict)
    wall: dict[str, float] = dataclasses.field(default_factory=dict)
    _stack: list[list[float]] = dataclasses.field(default_factory=list)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        # Every phase counts the Vela server's CPU too (it only runs inside the Vela phase), so that
        # subtracting an inner Vela phase leaves the outer one what it spent itself.
        start_cpu, start_wall, start_vela = time.process_time(), time.perf_counter(), _vela_server_cpu()
        self._stack.append([0.0, 0.0])  # what inner phases took
        try:
            yield
        finally:
            inner_cpu, inner_wall = self._stack.pop()
            cpu = time.process_time() - start_cpu + _vela_server_cpu() - start_vela
            wall = time.perf_counter() - start_wall
            self.cpu[name] = self.cpu.get(name, 0.0) + cpu - inner_cpu
            self.wall[name] = self.wall.get(name, 0.0) + wall - inner_wall
            if self._stack:
                self._stack[-1][0] += cpu
                self._stack[-1][1] += wall


def _wrap(clock: PhaseClock, name: str, function: Callable) -> Callable:
    def timed(*args, **kwargs):
        with clock.phase(name):
            return function(*args, **kwargs)

    return timed


@contextlib.contextmanager
def _patched(clock: PhaseClock) -> Iterator[None]:
    """Wraps the functions that mark each phase where the flow looks them up (module attributes)."""
    from executorch.exir import EdgeProgramManager

    import arm.ethosu.backend
    import arm.flow
    import arm.partitioner
    import arm.tosa.backend

    targets = [
        (torch.export, "export", "export (torch.export: export, re-export, retries)"),
        (arm.flow, "_quantize", "quantize"),
        (arm.flow, "_edge_in_place", "edge program (in place)"),
        (arm.flow, "to_edge_transform_and_lower", "to_edge (re-trace, edge passes)"),
        (EdgeProgramManager, "to_backend", "to_backend (executorch)"),
        (EdgeProgramManager, "to_executorch", "serialize (to_executorch)"),
        (arm.partitioner.TOSAPartitioner, "partition", "partitioner"),
        (arm.ethosu.backend, "lower_to_tosa", "TOSA lowering"),
        (arm.tosa.backend, "lower_to_tosa", "TOSA lowering"),
        (arm.ethosu.backend, "compile_tosa", "Vela"),
    ]
    saved = [(owner, attribute, getattr(owner, attribute)) for owner, attribute, _ in targets]
    try:
        for owner, attribute, name in targets:
            setattr(owner, attribute, _wrap(clock, name, getattr(owner, attribute)))
        yield
    finally:
        for owner, attribute, function in saved:
            setattr(owner, attribute, function)


def measure_pair(model: str, target: str, samples: int) -> dict:
    """One warm request of ``model`` for ``target``, by phase (see the module docstring)."""
    from arm.flow import resolve_target, run_flow

    clock = PhaseClock()
    start_cpu, start_wall, start_vela = time.process_time(), time.perf_counter(), _vela_server_cpu()
    with clock.phase("load"):
        spec = load_model_spec(BENCH_MODELS[model])
    with _patched(clock), clock.phase("flow (rest)"):
        result = run_flow(spec, resolve_target(target), calibration_samples=samples, progress=False)
    total_cpu = time.process_time() - start_cpu + (_vela_server_cpu() - start_vela)
    stages = result.stage_seconds
    # export and re-export are the flow's stages with nothing of ours inside; the clock's "flow (rest)"
    # holds them and the flow's own glue.
    cpu = dict(clock.cpu)
    return {
        "model": model,
        "target": target,
        "calibration_samples": samples,
        "edge_route": result.edge_route,
        "pte_bytes": len(result.pte),
        "cpu_s": round(total_cpu, 2),
        "wall_s": round(time.perf_counter() - start_wall, 2),
        "stage_wall_s": {stage: round(seconds, 2) for stage, seconds in stages.items()},
        "phase_cpu_s": {name: round(seconds, 2) for name, seconds in sorted(cpu.items(), key=lambda kv: -kv[1])},
        "phase_wall_s": {name: round(seconds, 2) for name, seconds in clock.wall.items()},
        "load_average": round(os.getloadavg()[0], 1),
    }


def warm_up() -> None:
    """What a worker's first request pays: lazy imports, the Vela server's start, first-call caches."""
    from arm.flow import resolve_target, run_flow
    from bench.ours import warm_up as load_ops

    load_ops()
    run_flow(load_model_spec("models.small_cnn:model"), resolve_target("ethos-u55-128"), calibration_samples=1,
             progress=False)


def main(argv: list[str] | None = None) -> int:
    from bench.compile_time import build_calibration_samples

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True, help="MODEL@TARGET,...")
    parser.add_argument("--calibration-samples", type=int, help="default: the model's Bazel target's count")
    parser.add_argument("--json", type=Path, help="append one JSON row per pair here")
    args = parser.parse_args(argv)
    logging.getLogger("torchao").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    warm_up()
    for item in args.pairs.split(","):
        model, target = item.split("@", 1)
        row = measure_pair(model, target, args.calibration_samples or build_calibration_samples(model))
        print(json.dumps(row), flush=True)
        if args.json:
            with args.json.open("a") as stream:
                stream.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
