"""aten.masked_fill(x, mask, value) (value a number) -> x with masked elements replaced
(arm/ops/common/masked_fill.py): SELECT in FP; in INT the fill's code on x's grid, by int32
arithmetic for a constant mask (a causal mask, every target) or SELECT for a mask computed at run time.

Kept whole through to_edge, which would make it a where of a scalar_tensor. The output keeps x's grid,
as the quantizer shares it: a fill outside x's range (-inf, -1e9) saturates to the grid's end, exactly
as the quantized module saturates it.

On Ethos-U a constant mask is a bool tensor entering the partition, which arm/partitioner.py keeps
out (Vela 5.2.0 fails on bool graph inputs; it does not tell a constant from an input), so there the
op stays on the CPU; a mask computed in the partition (compare -> masked_fill) runs on the U85. The
U55 has no SELECT and no comparisons. tril and triu, whose masks never exist as tensors, use the
constant-mask arithmetic on every target.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.masked_fill import fill_masked
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.specification import TosaSpecification
from arm.tosa.graph import TosaValue


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, mask, value = node.args[:3]
    if isinstance(value, Node):
        return f"{describe(node)}: the fill value is a tensor; only a number is lowered (use torch.where)"
    if dtype_of(mask) != torch.bool:
        return f"{describe(node)}: mask {mask.name} is {dtype_of(mask)}, not bool"
    if spec.has("u55"):
        return f"{describe(node)}: Ethos-U55/U65 have no SELECT, and a bool mask cannot enter their partition"
    if spec.has("u85") and _is_constant_mask(mask):
        return (
            f"{describe(node)}: the constant bool mask {mask.name} would enter the Ethos-U partition as a bool "
            "tensor, which the partitioner keeps out (Vela 5.2.0 fails on bool graph inputs); it runs on the CPU"
        )
    return first_reason(profile_reason(node, spec, [x]), rank_reason(node, shape_of(node)))


def _is_constant_mask(mask: Node) -> bool:
    """A placeholder (a lifted or folded constant) or computed from no placeholder at all (ones().triu())."""
    pending, seen = [mask], set()
    while pending:
        node = pending.pop()
        if node.op == "placeholder" and node is not mask:
            return False
        seen.add(node)
        pending.extend(arg for arg in node.all_input_nodes if arg not in seen)
    return True


def annotate_masked_fill(node: Node, config: QuantizationConfig) -> None:
    """x's grid for the output; the bool mask is not quantized."""
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, mask, value = node.args[:3]
    return fill_masked(ctx, node, x, mask, float(value), name=node.name)


def causal(x: torch.Tensor) -> torch.Tensor:
    """Scores above the diagonal set to -1 (a finite fill the float comparison can check)."""
    future = torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool).triu(1)
    return x.masked_fill(future, -1.0)


def small_to_zero(x: torch.Tensor) -> torch.Tensor:
    return x.masked_fill(x.abs() < 0.5, 0.0)


def below_minus_one_to_minus_one(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return y.masked_fill(x < -1.0, 1.5)


TEST_CASES = {
    # The mask folds to a constant (arm/passes/fold_constants.py): int32 arithmetic on the INT targets.
    "causal_constant_mask": OpTestCase(FunctionModule(causal), random_inputs(0, (2, 5, 5)), cpu_targets=("u55_INT", "u85_INT")),
    "runtime_mask_from_input": OpTestCase(
        FunctionModule(below_minus_one_to_minus_one), random_inputs(1, (3, 8), (3, 8)), cpu_targets=("u55_INT",)
    ),
}

OP = ArmOp(
    name="masked_fill",
    edge_targets=(exir_ops.edge.aten.masked_fill.Scalar,),
    aten_targets=(torch.ops.aten.masked_fill.Scalar,),
    support=support,
    annotate=annotate_masked_fill,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.masked_fill.Scalar,),
)
