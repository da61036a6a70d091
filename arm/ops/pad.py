"""aten.constant_pad_nd (F.pad, mode "constant") -> TOSA PAD; quantized, the output keeps the input's grid."""

from __future__ import annotations

import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, movement_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, pad_tensor
from arm.tosa.quantization import QParams
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def _padding(node: Node) -> list[tuple[int, int]]:
    """(before, after) per axis; PyTorch lists pairs from the last axis backwards."""
    pad = list(node.args[1])
    rank = len(shape_of(node))
    pairs = [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)]
    return [(0, 0)] * (rank - len(pairs)) + pairs[::-1]


def _value(node: Node) -> float:
    return float(node.args[2]) if len(node.args) > 2 else float(node.kwargs.get("value", 0.0))


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    negative = any(before < 0 or after < 0 for before, after in _padding(node))
    return first_reason(
        f"{describe(node)}: negative padding (cropping) is not lowered; slice instead" if negative else None,
        movement_reason(node, spec, [x]),
        rank_reason(node, shape_of(node)),
    )


def annotate_pad(node: Node, config: QuantizationConfig) -> None:
    # The shared observer also sees the output, so the grid covers the pad value.
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_fp:
        return pad_tensor(ctx.graph, value, _padding(node), value.dtype.type(_value(node)), name=node.name)
    output = ctx.output_qparams(node)
    value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=output)
    return pad_tensor(ctx.graph, value, _padding(node), _code(_value(node), output), name=node.name)


def _code(real: float, qparams: QParams) -> np.generic:
    """The integer nearest to ``real`` on the grid ``qparams`` (saturated to its dtype)."""
    info = np.iinfo(qparams.dtype)
    code = round(real / qparams.scale) + qparams.zero_point
    return qparams.dtype.type(min(max(code, info.min), info.max))


def pad_spatial(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pad(x, (1, 2, 0, 1))


def pad_channels_value(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pad(x, (0, 0, 0, 0, 2, 1), value=0.5)


def pad_last_rank2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pad(x, (3, 0), value=-1.0)


TEST_CASES = {
    "spatial": OpTestCase(FunctionModule(pad_spatial), random_inputs(0, (1, 4, 8, 8))),
    "channels_value": OpTestCase(FunctionModule(pad_channels_value), random_inputs(1, (1, 4, 5, 5))),
    "rank2_last": OpTestCase(FunctionModule(pad_last_rank2), random_inputs(2, (6, 10))),
}

OP = ArmOp(
    name="pad",
    edge_targets=(exir_ops.edge.aten.constant_pad_nd.default,),
    aten_targets=(torch.ops.aten.pad.default, torch.ops.aten.constant_pad_nd.default),
    support=support,
    annotate=annotate_pad,
    lower=lower,
    test_cases=TEST_CASES,
)
