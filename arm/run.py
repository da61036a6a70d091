"""Run a .pte on the host through our C++ runtime, from Python or the command line.

    from arm import run
    with run.load("model.pte") as program:
        outputs = program.run([x])       # numpy arrays or torch tensors in, numpy arrays out

    python -m arm.run model.pte --input x.npy [--input y.npy ...] [--output-dir out/]
    python -m arm.run model.pte --random-inputs [--output-dir out/]

writes ``out/output<i>.npy`` for each output and prints its dtype and shape. ``--random-inputs`` makes
seeded inputs of the method's dtypes and shapes (floats uniform in [-1, 1), integers over their whole
range) and writes them as ``out/input<i>.npy`` too. Ethos-U delegates run on the
functional NPU model of the configuration their command stream names, VGF delegates on Vulkan (lavapipe),
TOSA delegates on the TOSA reference model, the rest on the runtime's CPU kernels.

Exit status: 0 on success, 2 when the inputs or the .pte cannot be used as given (the message says why
and what to change), 1 when the runtime fails while running.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __name__ == "__main__":
    # Run as a script (Bazel's py_binary does), Python puts arm/ itself first on sys.path, where
    # arm/ethosu/ would hide Vela's top-level ``ethosu`` package. Drop that entry before importing.
    _SCRIPT_DIR = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _SCRIPT_DIR]

import numpy as np  # noqa: E402

from arm.host_runtime.program import Program, RuntimeRunError, TensorSpec, load  # noqa: E402

__all__ = ["Program", "RuntimeRunError", "TensorSpec", "load", "main"]

EXIT_BAD_INPUT = 2
EXIT_RUN_FAILED = 1
# Runtime errors that mean the .pte or the inputs are unusable as given (runtime/core/error.h), as opposed
# to a failure while running.
_INPUT_ERRORS = {1, 2, 3, 4, 5, 6, 7, 8}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m arm.run",
        description="Run an ExecuTorch .pte on the host through this repository's C++ runtime.",
        epilog="Exit status: 0 success, 2 the .pte or inputs cannot be used as given, 1 the run failed.",
    )
    parser.add_argument("model", type=Path, help="the .pte to run")
    parser.add_argument("--input", type=Path, action="append", default=[], metavar="FILE.npy",
                        help="one per method input, in order")
    parser.add_argument("--random-inputs", action="store_true",
                        help="instead of --input: seeded inputs of the method's dtypes and shapes, saved as input<i>.npy")
    parser.add_argument("--seed", type=int, default=0, help="seed of --random-inputs (default 0)")
    parser.add_argument("--output-dir", type=Path, default=Path("."), help="where output<i>.npy go (default: .)")
    parser.add_argument("--method", default="forward")
    parser.add_argument("--npu", choices=["model", "none"], default="model",
                        help="where Ethos-U delegates run: the functional NPU model (default) or nowhere")
    return parser


def random_inputs(specs: list[TensorSpec], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs = []
    for spec in specs:
        if spec.dtype == np.bool_:
            inputs.append(rng.integers(0, 2, spec.shape).astype(np.bool_))
        elif np.issubdtype(spec.dtype, np.integer):
            info = np.iinfo(spec.dtype)
            inputs.append(rng.integers(info.min, info.max, spec.shape, endpoint=True, dtype=spec.dtype))
        else:
            inputs.append(rng.uniform(-1, 1, spec.shape).astype(spec.dtype))
    return inputs


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.random_inputs and args.input:
        print("error: give --input files or --random-inputs, not both", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        inputs = [np.load(path, allow_pickle=False) for path in args.input]
    except (OSError, ValueError) as error:
        print(f"error: cannot read an input .npy: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        with load(args.model, method=args.method, npu=args.npu) as program:
            if args.random_inputs:
                inputs = random_inputs(program.inputs, args.seed)
            outputs = program.run(inputs)
            npu = program.npu
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RuntimeRunError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT if error.code in _INPUT_ERRORS else EXIT_RUN_FAILED
    if npu:
        print(f"Ethos-U delegates ran on the functional model of an {npu}")
    args.output_dir.mkdir(parents=True, exist_ok=True)
    if args.random_inputs:
        for index, value in enumerate(inputs):
            np.save(args.output_dir / f"input{index}.npy", value)
    for index, output in enumerate(outputs):
        path = args.output_dir / f"output{index}.npy"
        np.save(path, output)
        print(f"output {index}: {output.dtype} {list(output.shape)} -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
