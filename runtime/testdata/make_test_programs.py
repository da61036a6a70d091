"""Writes the .pte programs (and their inputs as .npy) that the runtime's tests run.

Each program is exported with ExecuTorch's own flow (`to_edge(...).to_executorch()`, no delegates), so the
operator names, argument orders, memory plans and constant segments are exactly what ExecuTorch writes.
Run by the `pte_test_programs` rule at build time; nothing it writes is committed.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
from collections.abc import Callable

import numpy as np
import torch

import executorch.kernels.quantized  # noqa: F401  (registers the quantized_decomposed out variants)
from executorch.exir import to_edge
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from arm.compile_spec import EthosUCompileSpec
from arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config

SEED = 0


@dataclasses.dataclass
class TestProgram:
    module: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]
    # pt2e-quantize with the Arm quantizer before export (q/dq nodes stay in the graph: nothing is delegated).
    quantize: bool = False


class Softmax(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(8, 16)
        self.output = torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(torch.relu(self.hidden(x)))


class MlpWithQdqEdges(Mlp):
    """The float MLP between an int8 quantize/dequantize pair at the input and at the output: the shape of a
    program whose middle went to an NPU, with the NPU replaced by float kernels."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        qdq = torch.ops.quantized_decomposed
        x = qdq.quantize_per_tensor(x, 0.02, 3, -128, 127, torch.int8)
        x = qdq.dequantize_per_tensor(x, 0.02, 3, -128, 127, torch.int8)
        y = super().forward(x)
        y = qdq.quantize_per_tensor(y, 0.01, -5, -128, 127, torch.int8)
        return qdq.dequantize_per_tensor(y, 0.01, -5, -128, 127, torch.int8)


class ConvLayout(torch.nn.Module):
    """conv2d, mul by a constant, add of a second input, then NCHW -> NHWC and a flatten: the layout ops."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, kernel_size=3, stride=2, padding=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        z = self.conv(x) * 2.0 + y
        return z.permute(0, 2, 3, 1).reshape(1, -1)


class Cond(torch.nn.Module):
    """torch.cond: ExecuTorch emits JumpFalseCall (on a bool tensor, then on a constant Bool) and MoveCall."""

    def forward(self, predicate: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(predicate, lambda x: x + 1.0, lambda x: x * 2.0, (x,))


def _randn(*shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape) * scale


PROGRAMS: dict[str, Callable[[], TestProgram]] = {
    "softmax": lambda: TestProgram(Softmax(), (_randn(4, 16, scale=3.0),)),
    "mlp_fp32": lambda: TestProgram(Mlp(), (_randn(3, 8),)),
    "mlp_qdq_edges": lambda: TestProgram(MlpWithQdqEdges(), (_randn(3, 8),)),
    "mlp_int8": lambda: TestProgram(Mlp(), (_randn(3, 8),), quantize=True),
    "cond": lambda: TestProgram(Cond(), (torch.tensor([True]), _randn(2, 3))),
    "conv_layout": lambda: TestProgram(ConvLayout(), (_randn(1, 3, 8, 8), _randn(1, 4, 4, 4))),
}


def _quantize(program: TestProgram) -> torch.nn.Module:
    graph = torch.export.export(program.module, program.inputs).module(check_guards=False)
    quantizer = EthosUQuantizer(EthosUCompileSpec("ethos-u55-128")).set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(graph, quantizer)
    for _ in range(4):
        prepared(*(torch.randn_like(t) for t in program.inputs))
    return convert_pt2e(prepared)


def to_pte(program: TestProgram) -> bytes:
    module = _quantize(program) if program.quantize else program.module
    exported = torch.export.export(module, program.inputs)
    return to_edge(exported).to_executorch().buffer


def write_program(name: str, output_dir: pathlib.Path) -> None:
    torch.manual_seed(SEED)
    program = PROGRAMS[name]()
    program.module.eval()
    (output_dir / f"{name}.pte").write_bytes(to_pte(program))
    for index, tensor in enumerate(program.inputs):
        np.save(output_dir / f"{name}_input{index}.npy", tensor.numpy())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output-dir", type=pathlib.Path, required=True)
    parser.add_argument("programs", nargs="+", choices=sorted(PROGRAMS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name in args.programs:
        write_program(name, args.output_dir)


if __name__ == "__main__":
    main()
