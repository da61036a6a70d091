"""aten.fft_rfft2 (edge: ``_fft_r2c``) stays on the CPU, with this file's reason.

Its result is a complex tensor. TOSA 1.0 has no complex type: its RFFT2D (in the EXT-FFT extension,
float only) writes the real and imaginary parts as two float tensors, and none of the targets here
has that extension (Vela 5.2.0 runs no FFT on any Ethos-U).

Facts for lowering it on TOSA FP with ``fft`` (open): the reference model (tosa-tools 2026.8) runs
RFFT2D from a TOSA 1.0 flatbuffer ([2, 8, 16] in, two [2, 8, 9] out, within 8e-6 of numpy's rfft2).
to_edge decomposes rfft2 into ``_fft_r2c`` with a complex result, and the real/imaginary selection
(``view_as_real``, ``.real``/``.imag``) is no core ATen operator; a lowering would keep
``aten.fft_rfft2`` whole (``keep_in_edge``) and take its real/imaginary selection into the partition,
so that no complex tensor crosses a delegate's boundary. ExecuTorch's Arm backend delegates
fft_rfft2 only for TOSA 1.1 with fft, and its tests do not run that graph on the reference model.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import EVERY_TARGET, FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    return (
        f"{describe(node)}: a real-to-complex FFT has a complex result, which TOSA 1.0 has no type for "
        f"(its RFFT2D is in the EXT-FFT extension, which {spec} lacks); it runs on the CPU"
    )


def annotate_fft_rfft2(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the op stays float on the CPU."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    raise NotImplementedError(f"{node.name}: _fft_r2c is never delegated (see its support rule)")


def spectrum(x: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(torch.fft.rfft2(x))


TEST_CASES = {
    "real_imaginary": OpTestCase(FunctionModule(spectrum), random_inputs(0, (1, 4, 8)), cpu_targets=EVERY_TARGET),
}

OP = ArmOp(
    name="fft_rfft2",
    edge_targets=(exir_ops.edge.aten._fft_r2c.default,),
    aten_targets=(),
    support=support,
    annotate=annotate_fft_rfft2,
    lower=lower,
    test_cases=TEST_CASES,
)
