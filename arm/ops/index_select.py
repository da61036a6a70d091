"""aten.index_select -> TOSA GATHER along one dim (the tensor viewed as [before, dim, after]);
quantized, the output keeps the input's grid."""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.gather import gather, index_value, indices_reason
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import first_reason, float8_moved, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, _, indices = node.args
    return first_reason(
        indices_reason(node, indices, spec),
        None if spec.is_fp and float8_moved(spec, [x, node]) else profile_reason(node, spec, [x]),  # float8 rows move
        rank_reason(node, shape_of(x)),
    )


def annotate_index_select(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, dim, indices = node.args
    shape = shape_of(x)
    dim %= len(shape)
    before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1 :])
    value = ctx.value(x)
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    table = reshape(ctx.graph, value, (before, shape[dim], after), name=f"{node.name}_table")
    chosen = index_value(ctx, indices, before, name=f"{node.name}_indices")
    return reshape(ctx.graph, gather(ctx, table, chosen, name=f"{node.name}_rows"), shape_of(node), name=node.name)


class _SelectRows(torch.nn.Module):
    """Indices as an int32 buffer, the form a model's fixed index list takes."""

    def __init__(self, dim: int, indices: list[int]) -> None:
        super().__init__()
        self.dim = dim
        self.register_buffer("indices", torch.tensor(indices, dtype=torch.int32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, self.dim, self.indices)


class _SelectByInput(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, self.dim, indices)


class _RelativePositionBias(torch.nn.Module):
    """Swin's attention bias: a learned table looked up by a constant index buffer, added to the scores.

    The lookup reads only constants, so arm/passes/fold_constants.py folds it (and the view, permute and
    quantization after it) into one int8 constant the add reads: the case is delegated whole on the
    Ethos-U targets, which run no GATHER.
    """

    def __init__(self, window: int = 2, heads: int = 2) -> None:
        super().__init__()
        self.area = window * window
        self.table = torch.nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        rows, columns = torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")
        coordinates = torch.stack([rows.flatten(), columns.flatten()])
        relative = coordinates[:, :, None] - coordinates[:, None, :] + window - 1
        self.register_buffer("index", relative[0] * (2 * window - 1) + relative[1], persistent=False)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        bias = self.table[self.index.view(-1)].view(self.area, self.area, -1).permute(2, 0, 1).contiguous()
        return scores + bias.unsqueeze(0)


# No GATHER on the NPU: see arm/ops/common/gather.py.
_ETHOS_U = ("u55_INT", "u85_INT")

TEST_CASES = {
    "rows_constant": OpTestCase(_SelectRows(0, [3, 0, 0, 5]), random_inputs(0, (6, 16)), cpu_targets=_ETHOS_U),
    "channels_constant": OpTestCase(_SelectRows(1, [2, 1]), random_inputs(1, (2, 4, 3, 3)), cpu_targets=_ETHOS_U),
    "relative_position_bias": OpTestCase(seeded(3, _RelativePositionBias), random_inputs(3, (1, 2, 4, 4))),
    "runtime_indices_tiled": OpTestCase(
        _SelectByInput(2),
        (*random_inputs(2, (3, 4, 8)), torch.tensor([7, 1, 1], dtype=torch.int32)),
        cpu_targets=_ETHOS_U,
    ),
}

OP = ArmOp(
    name="index_select",
    edge_targets=(exir_ops.edge.aten.index_select.default,),
    aten_targets=(torch.ops.aten.index_select.default,),
    support=support,
    annotate=annotate_index_select,
    lower=lower,
    test_cases=TEST_CASES,
)
