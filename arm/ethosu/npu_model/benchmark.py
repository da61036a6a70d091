"""Seconds per inference of a .pte's Ethos-U delegates on the host NPU model.

    bazel run -c opt //arm/ethosu/npu_model:benchmark            # MobileNetV2 on Ethos-U55-128
    python -m arm.ethosu.npu_model.benchmark --pte model.pte --target ethos-u55-128 --runs 5

Each delegate's command stream runs on zero inputs (the model's time does not depend on the values);
the report gives the best of ``--runs`` per delegate and their sum. The model is single-threaded.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.bin_stream import parse_bin_stream
from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.pte_delegates import ethos_u_bin_streams

_ELEMENT_TYPES = {1: np.int8, 2: np.int16, 4: np.int32}


def seconds_per_run(npu: NpuModel, bin_stream: bytes, runs: int) -> float:
    stream = parse_bin_stream(bin_stream)
    inputs = [np.zeros(io.shape, dtype=_ELEMENT_TYPES[io.elem_size]) for io in stream.inputs]
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        npu.run_bin_stream(bin_stream, inputs)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pte", type=Path, required=True, help="an Ethos-U .pte")
    parser.add_argument("--target", default="ethos-u55-128", help="the Ethos-U target it was compiled for")
    parser.add_argument("--runs", type=int, default=5, help="runs per delegate; the best one counts")
    args = parser.parse_args(argv)
    streams = ethos_u_bin_streams(args.pte.read_bytes())
    if not streams:
        parser.error(f"{args.pte} has no {EthosUCompileSpec.backend_id} delegate")
    npu = NpuModel(args.target)
    total = 0.0
    for index, stream in enumerate(streams):
        seconds = seconds_per_run(npu, stream, args.runs)
        total += seconds
        print(f"delegate {index}: {seconds:.3f} s ({len(parse_bin_stream(stream).cmd_data)} command bytes)")
    print(f"{args.pte.name} on the {args.target} model: {total:.3f} s per inference (best of {args.runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
