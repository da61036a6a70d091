"""aten.grid_sampler_2d (``F.grid_sample``) stays on the CPU, with this file's reason.

Each output pixel reads the input at a position taken from the grid tensor at run time: a
data-dependent gather of four neighbours per pixel with bilinear weights computed from the
positions. TOSA expresses such a read only as GATHER, which no Ethos-U runs under Vela 5.2.0 (the U55
has none; the U85's is not placed on the NPU), so the op is not lowered for any target yet.

ExecuTorch's Arm backend (1.5.1) has no TOSA form either: only its VGF partitioner takes grid_sampler_2d,
rewritten into a TOSA CUSTOM operator that a Vulkan compute shader implements, and its one test of it is
an expected failure (the model converter lacks that custom legalization). On the TOSA FP target a
GATHER-based form (four GATHERs of flattened rows, weights by FLOOR/SUB/MUL, zero padding by SELECT) is
possible and open.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import EVERY_TARGET, FunctionModule, OpTestCase
from arm.ops.common.support import describe
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

def support(node: Node, spec: TosaSpecification) -> str | None:
    return (
        f"{describe(node)}: samples the input at positions read from the grid at run time, a data-dependent "
        "bilinear gather that is not lowered (TOSA would need GATHER, which Vela 5.2.0 runs on no Ethos-U); "
        "it runs on the CPU"
    )


def annotate_grid_sampler(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the op stays float on the CPU."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    raise NotImplementedError(f"{node.name}: grid_sampler_2d is never delegated (see its support rule)")


def sample_bilinear(x: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.grid_sample(x, grid, align_corners=False)


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return torch.randn(1, 2, 4, 4, generator=generator), torch.rand(1, 3, 3, 2, generator=generator) * 2 - 1


TEST_CASES = {
    "bilinear": OpTestCase(FunctionModule(sample_bilinear), _inputs(), cpu_targets=EVERY_TARGET),
}

OP = ArmOp(
    name="grid_sampler",
    edge_targets=(exir_ops.edge.aten.grid_sampler_2d.default,),
    aten_targets=(),
    support=support,
    annotate=annotate_grid_sampler,
    lower=lower,
    test_cases=TEST_CASES,
)
