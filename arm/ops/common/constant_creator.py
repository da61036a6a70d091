"""Ops that create a tensor from shapes and numbers alone (arange, full, full_like, scalar_tensor).

arm/passes/fold_constants.py evaluates them before partitioning, so in a model they reach the
delegate as constants its consumers read; their op files' cases show that. What the pass declines
to fold (a result larger than ``MAX_FOLDED_ELEMENTS`` and than what it is computed from) reaches the
partitioner: it is lowered as a TOSA CONST of its value (FP: float32; INT: quantized onto its output
grid), unless it is larger than that bound, which would grow the program as much as folding would.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.passes.fold_constants import MAX_FOLDED_ELEMENTS
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def _support(node: Node, spec: TosaSpecification) -> str | None:
    elements = math.prod(shape_of(node))
    return first_reason(
        f"{describe(node)}: a created constant of {elements} elements (more than {MAX_FOLDED_ELEMENTS}) would grow "
        "the program; it is created on the CPU"
        if elements > MAX_FOLDED_ELEMENTS
        else None,
        # A 0-d one folds into its users, except inside control-flow graphs, which folding does not reach;
        # FP lowers it there as a rank-0 CONST.
        None if shape_of(node) or spec.is_fp else f"{describe(node)}: a 0-d constant is not lowered alone (it folds into its users)",
        None if dtype_of(node) == torch.float32 else (
            f"{describe(node)}: creates {dtype_of(node)}; only float32 constants are lowered (integer ones fold "
            "or are narrowed by arm/passes/int64_to_int32.py)"
        ),
        profile_reason(node, spec, []),
        rank_reason(node, shape_of(node)),
    )


def _no_annotation(node: Node, config: QuantizationConfig) -> None:
    """The consumers' input specs quantize the created tensor."""


def _lower(node: Node, ctx: LoweringContext) -> TosaValue:
    def stand_in(arg: Node) -> torch.Tensor:  # full_like reads its tensor argument's shape only
        value = arg.meta["val"]
        return torch.zeros(tuple(value.shape), dtype=value.dtype)

    args = tuple(stand_in(arg) if isinstance(arg, Node) else arg for arg in node.args)
    with torch.no_grad():
        data = node.target(*args, **node.kwargs).numpy().astype(np.float32)
    if ctx.spec.is_fp:
        return ctx.graph.add_const(node.name, data)
    output = ctx.output_qparams(node)
    info = np.iinfo(output.dtype)
    codes = np.clip(np.round(data / output.scale) + output.zero_point, info.min, info.max).astype(output.dtype)
    return ctx.graph.add_const(node.name, codes, output)


def constant_creator_op(
    name: str, *, edge_targets: tuple[object, ...], aten_targets: tuple[torch._ops.OpOverload, ...], test_cases: dict[str, OpTestCase]
) -> ArmOp:
    return ArmOp(
        name=name,
        edge_targets=edge_targets,
        aten_targets=aten_targets,
        support=_support,
        annotate=_no_annotation,
        lower=_lower,
        test_cases=test_cases,
    )
