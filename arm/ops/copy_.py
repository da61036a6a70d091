"""aten.copy (``y.copy_(x)`` in a forward, made functional by export) -> no TOSA op: the result is the source's value.

``copy(self, src)`` returns ``src`` in ``self``'s shape and dtype; ``self``'s values are overwritten.
When the shapes and dtypes agree the result is ``src`` itself (quantized, it keeps src's grid);
a broadcasting or converting copy stays on the CPU. (The file is named for ``Tensor.copy_``, as the
peer's test is; a plain ``copy.py`` would shadow Python's ``copy`` module for scripts run from here.)
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    destination, source = node.args[:2]
    same = shape_of(destination) == shape_of(source) and dtype_of(destination) == dtype_of(source)
    return first_reason(
        None if same else (
            f"{describe(node)}: copies {list(shape_of(source))} {dtype_of(source)} into "
            f"{list(shape_of(destination))} {dtype_of(destination)}; only copies that neither broadcast nor "
            "convert are lowered"
        ),
        profile_reason(node, spec, [source]),
    )  # fmt: skip


def annotate_copy(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[1], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[1])
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    return value


def overwrite_a_clone(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    scratch = x.clone()
    scratch.copy_(y)
    return scratch + x


TEST_CASES = {
    "overwrite": OpTestCase(FunctionModule(overwrite_a_clone), random_inputs(0, (2, 3, 8), (2, 3, 8))),
}

OP = ArmOp(
    name="copy_",
    edge_targets=(exir_ops.edge.aten.copy.default,),
    aten_targets=(torch.ops.aten.copy.default, torch.ops.aten.copy_.default),
    support=support,
    annotate=annotate_copy,
    lower=lower,
    test_cases=TEST_CASES,
)
