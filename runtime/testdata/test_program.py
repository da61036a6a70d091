"""Exports test programs to .pte with ExecuTorch's own flow and writes them with their inputs as .npy.

`to_edge(...).to_executorch()` with no delegates, so operator names, argument orders, memory plans and
constant segments are exactly what ExecuTorch writes. The generators run at build time
(`pte_test_programs`); nothing they write is committed.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
from collections.abc import Callable

import numpy as np
import torch

import executorch.kernels.quantized  # noqa: F401  (registers the quantized_decomposed out variants)
from executorch.exir import EdgeCompileConfig, to_edge

SEED = 0


@dataclasses.dataclass
class TestProgram:
    # Ready to export: in eval mode (a converted pt2e module refuses .eval(), so factories set it).
    module: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]
    # ATen ops to_edge keeps rather than decomposing (tril, triu, repeat_interleave.Tensor: ExecuTorch has
    # portable kernels for them, and a program exported with them preserved calls those).
    preserve_ops: tuple[torch._ops.OpOverload, ...] = ()


def randn(*shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape) * scale


def to_pte(program: TestProgram) -> bytes:
    config = EdgeCompileConfig(preserve_ops=list(program.preserve_ops)) if program.preserve_ops else None
    return to_edge(torch.export.export(program.module, program.inputs), compile_config=config).to_executorch().buffer


def write_program(name: str, make: Callable[[], TestProgram], output_dir: pathlib.Path) -> None:
    torch.manual_seed(SEED)
    program = make()
    (output_dir / f"{name}.pte").write_bytes(to_pte(program))
    for index, tensor in enumerate(program.inputs):
        np.save(output_dir / f"{name}_input{index}.npy", tensor.numpy())


def main(programs: dict[str, Callable[[], TestProgram]]) -> None:
    """The command line of a generator: `--output-dir DIR name...`, names from `programs`."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output-dir", type=pathlib.Path, required=True)
    parser.add_argument("programs", nargs="+", choices=sorted(programs))
    args = parser.parse_args()
    torch.set_num_threads(1)
    # Bazel creates a declared output directory before a local action runs; a remote worker creates only
    # its parent (Remote Execution API), so the action makes it.
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for name in args.programs:
        write_program(name, programs[name], args.output_dir)
