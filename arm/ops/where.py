"""aten.where.self -> TOSA SELECT; in INT both choices are first moved onto the output grid.

Integer choices (int32 ids: BART's ``masked_fill(ids == -100, pad)`` on its shifted decoder ids) are
selected as they are, in the INT profile. Ethos-U55/U65 have no SELECT: there where stays on the CPU
(and so do the comparisons feeding it).
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.compare import away_from
from arm.ops.common.elementwise import emit
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import integer_data_support
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    if spec.has("u55"):
        return f"{describe(node)}: Ethos-U55/U65 have no SELECT; where runs on the CPU"
    condition, *choices = node.args[:3]
    if not all(isinstance(choice, Node) for choice in choices):
        return f"{describe(node)}: both choices must be tensors"
    return first_reason(
        None if dtype_of(condition) == torch.bool else f"{describe(node)}: condition {condition.name} is not bool",
        integer_data_support(node, spec, [*choices, node]) if _selects_integers(node) else profile_reason(node, spec, choices),
        rank_reason(node, shape_of(node)),
    )


def _selects_integers(node: Node) -> bool:
    """Integer choices and result: data the quantizer leaves alone, selected as it is."""
    return all(dtype_of(tensor) in _INTEGERS for tensor in [*node.args[1:3], node] if isinstance(tensor, Node))


_INTEGERS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def annotate_where(node: Node, config: QuantizationConfig) -> None:
    """Observed int8 choices and output; the bool condition is not quantized."""
    _, *choices = node.args[:3]
    annotate_with_fused_activation(node, {choice: config.activation for choice in choices}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    condition, *choices = node.args[:3]
    rank = len(shape_of(node))
    output = None if ctx.spec.is_fp or _selects_integers(node) else ctx.output_qparams(node)
    if output is None:
        values = [ctx.value(choice, rank=rank) for choice in choices]
    else:
        values = [
            requantize(ctx.graph, ctx.quantized_value(choice, rank=rank), name=f"{node.name}_{side}", output=output)
            for side, choice in zip(("true", "false"), choices)
        ]
    inputs = [ctx.value(condition, rank=rank), *values]
    return emit(
        ctx,
        ts.Op.SELECT,
        ts.TosaSerializerAttribute.SelectAttribute,
        inputs,
        name=node.name,
        shape=shape_of(node),
        dtype=values[0].dtype,
    ).with_qparams(output)


def larger(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(x > y, x, y)


def positive_or_other(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0.0, x, y)


def pick(condition: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(condition, x, y)


def _bool_and_reals(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    condition = torch.rand(shape, generator=torch.Generator().manual_seed(seed)) < 0.5
    return (condition, *random_inputs(seed, shape, shape))


_U55 = ("u55_INT",)

TEST_CASES = {
    "compare": OpTestCase(FunctionModule(larger), random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16)), cpu_targets=_U55),
    "broadcast": OpTestCase(FunctionModule(larger), random_inputs(1, (2, 6, 32), (1, 1, 32)), cpu_targets=_U55),
    # y's range is three times x's, so each choice has its own grid; x is kept 0.1 away from the
    # threshold, so quantizing it cannot flip the condition.
    "different_grids": OpTestCase(
        FunctionModule(positive_or_other),
        (away_from(0.0, 2, (4, 50))[0], 3.0 * random_inputs(3, (4, 50))[0]),
        cpu_targets=_U55,
    ),
    # The condition is a bool model input: it enters the partition as it is (on the U85 too).
    "bool_condition_input": OpTestCase(FunctionModule(pick), _bool_and_reals(4, (3, 24)), cpu_targets=_U55),
}

OP = ArmOp(
    name="where",
    edge_targets=(exir_ops.edge.aten.where.self,),
    aten_targets=(torch.ops.aten.where.self,),
    support=support,
    annotate=annotate_where,
    lower=lower,
    test_cases=TEST_CASES,
)
