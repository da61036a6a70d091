"""What max.dim and min.dim share: their values (result 0) as REDUCE_MAX / REDUCE_MIN along one dim.

``x.max(dim)`` returns (values, indices). The values are amax's: one REDUCE on the input's own int8
grid. The indices are not lowered: where a model reads them (``getitem(node, 1)`` has users) the node
stays on the CPU, and the reason says to use amax and argmax, which lower one result each.
"""

from __future__ import annotations

import operator

import torch
import tosa_serializer as ts
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.extremum_reduction import extremum_support, lower_extremum
from arm.ops.common.support import describe
from arm.quantizer.annotation import annotate, input_spec
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def _values_shape(node: Node) -> tuple[int, ...]:
    return tuple(int(d) for d in node.meta["val"][0].shape)


def _reads_indices(node: Node) -> bool:
    return any(user.target is operator.getitem and user.args[1] == 1 and user.users for user in node.users)


def extremum_dim_op(
    name: str,
    op: ts.Op,
    *,
    edge_targets: tuple[object, ...],
    aten_targets: tuple[torch._ops.OpOverload, ...],
    test_cases: dict[str, OpTestCase],
    u55_needs_rank4: bool = False,
) -> ArmOp:
    """The ArmOp of max.dim (``op`` REDUCE_MAX) or min.dim (REDUCE_MIN); ``u55_needs_rank4`` as for amin."""

    def support(node: Node, spec: TosaSpecification) -> str | None:
        if _reads_indices(node):
            return (
                f"{describe(node)}: its indices (result 1) are read, and only the values are lowered; "
                f"write x.a{name[:3]}(dim) for the values and x.arg{name[:3]}(dim) for the indices"
            )
        dim = node.args[1] % len(shape_of(node.args[0]))
        return extremum_support(node, spec, [dim], _values_shape(node), u55_needs_rank4=u55_needs_rank4)

    def annotate_values(node: Node, config: QuantizationConfig) -> None:
        """The values keep the input's grid; pt2e observes a tuple result only through its getitem."""
        x = node.args[0]
        annotate(node, {x: input_spec(x, config.activation)}, None)
        for user in node.users:
            if user.target is operator.getitem and user.args[1] == 0:
                annotate(user, {}, SharedQuantizationSpec((x, node)))

    def lower(node: Node, ctx: LoweringContext) -> TosaValue:
        dim = node.args[1] % len(shape_of(node.args[0]))
        return lower_extremum(node, ctx, op, [dim], _values_shape(node), u55_needs_rank4=u55_needs_rank4, name=name)

    return ArmOp(
        name=name,
        edge_targets=edge_targets,
        aten_targets=aten_targets,
        support=support,
        annotate=annotate_values,
        lower=lower,
        test_cases=test_cases,
    )
