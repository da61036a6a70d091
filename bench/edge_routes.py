"""Compiles bench models by both edge routes (arm.flow's ``edge_route``) and compares what they make.

    PYTHONPATH=. python -m bench.edge_routes --models mv2,dscnn --targets ethos-u55-128

One process for all: each model is compiled twice, by executorch's to_edge and by arm.edge_in_place, and
a row says which route the second took (and why not, where it fell back), whether the .pte files are
byte-identical, and the CPU seconds of the lower stage for each route (``time.process_time``: the machine
is shared, wall time says little).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import torch

from arm.flow import resolve_target, run_flow
from arm.model_spec import load_model_spec
from bench.model_list import BENCH_MODELS


def _timed(model_reference: str, target: str, route: str, samples: int):
    model = load_model_spec(model_reference)  # fresh: the flow puts the module in eval mode, nothing else
    start = time.process_time()
    result = run_flow(model, resolve_target(target), calibration_samples=samples, progress=False, edge_route=route)
    return result, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True, help=f"comma-separated, from: {', '.join(BENCH_MODELS)}")
    parser.add_argument("--targets", default="ethos-u55-128")
    parser.add_argument("--calibration-samples", type=int, default=4)
    parser.add_argument("--json", help="append one JSON row per model and target to this file")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rows = []
    for name in args.models.split(","):
        for target in args.targets.split(","):
            reference, reference_seconds = _timed(BENCH_MODELS[name], target, "to_edge", args.calibration_samples)
            ours, our_seconds = _timed(BENCH_MODELS[name], target, "in_place", args.calibration_samples)
            row = {
                "model": name,
                "target": target,
                "route": ours.edge_route,
                "pte_identical": ours.pte == reference.pte,
                "pte_bytes": len(ours.pte),
                "flow_cpu_s": {"to_edge": round(reference_seconds, 2), "in_place": round(our_seconds, 2)},
                "lower_wall_s": {"to_edge": round(reference.stage_seconds["lower"], 2), "in_place": round(ours.stage_seconds["lower"], 2)},
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.json:
                with open(args.json, "a") as out:
                    out.write(json.dumps(row) + "\n")
    return 0 if all(row["pte_identical"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
