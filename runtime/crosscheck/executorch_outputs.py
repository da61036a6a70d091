"""Runs test programs on ExecuTorch's own host runtime (the executorch wheel) and saves its outputs.

For every `<program>.pte` in the given directories, with its `<program>_input<i>.npy` files beside it,
writes `<program>_expected<i>.npy`: the oracle our runtime's outputs are compared with, bit for bit, on
every platform (//runtime/crosscheck). One process for all programs: importing torch and executorch
costs ~15 s.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import pathlib

import numpy as np
import torch


def load_quantized_kernels() -> None:
    """The wheel's quantized kernels (quantize/dequantize out variants) are a separate library that
    registers itself when loaded; the Python runtime does not load it."""
    package = pathlib.Path(importlib.util.find_spec("executorch").submodule_search_locations[0])
    ctypes.CDLL(str(package / "lib" / "libexecutorch_kernels_quantized.so"), mode=ctypes.RTLD_GLOBAL)


def write_expected_outputs(program: pathlib.Path, runtime, output_dir: pathlib.Path) -> None:
    inputs = [torch.from_numpy(np.load(path)) for path in sorted(program.parent.glob(f"{program.stem}_input*.npy"))]
    outputs = runtime.load_program(program).load_method("forward").execute(inputs)
    for index, output in enumerate(outputs):
        np.save(output_dir / f"{program.stem}_expected{index}.npy", np.ascontiguousarray(output.numpy()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output-dir", type=pathlib.Path, required=True)
    parser.add_argument("program_dirs", type=pathlib.Path, nargs="+")
    args = parser.parse_args()
    torch.set_num_threads(1)
    # Bazel creates a declared output directory before a local action runs; a remote worker creates only
    # its parent (Remote Execution API), so the action makes it.
    args.output_dir.mkdir(parents=True, exist_ok=True)

    from executorch.runtime import Runtime

    runtime = Runtime.get()
    load_quantized_kernels()
    failures = []
    for directory in args.program_dirs:
        programs = sorted(directory.glob("*.pte"))
        if not programs:
            raise SystemExit(f"executorch_outputs: no .pte files in {directory}")
        for program in programs:
            try:
                write_expected_outputs(program, runtime, args.output_dir)
            except RuntimeError as error:
                # Keep going: one run names every program ExecuTorch itself cannot run.
                failures.append(f"{program.name}: {error}")
    if failures:
        raise SystemExit("executorch_outputs: ExecuTorch's runtime fails on\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
