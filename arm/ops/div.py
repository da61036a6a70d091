"""aten.div.Tensor (true division) -> RECIPROCAL and MUL (FP); in INT a rescale, a table, or reciprocal
and mul.

TOSA 1.0 has no float or int8 division. In the INT profile:

* a positive number as divisor folds into one RESCALE from the input grid to the output grid;
* a negative number makes the mapping decreasing, which a RESCALE cannot express: a TABLE does it;
* a tensor divisor is rewritten by the quantizer into ``x * reciprocal(y)`` before observers are
  placed, so the reciprocal gets its own observed int8 grid (a TABLE) and the product is an int8 MUL.
  Without that grid the reciprocal of a divisor near zero would have no bounded int8 range.

An integer tensor divided (true division promotes it to float) is cast explicitly when the division is
annotated, so the cast's float result is quantized (arm/ops/to_copy.py) and the division reads int8 codes.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common import registry
from arm.ops.common.aten_rewrite import cast_integer_operands_to_result_type
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason, tensor_args
from arm.ops.common.unary import annotate_unary, emit_unary, fp_mul, lower_table
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification


def _is_number(divisor: object) -> bool:
    """A Python number, or the one-element constant to_edge lifts it to."""
    if not isinstance(divisor, Node):
        return isinstance(divisor, (int, float))
    value = divisor.meta.get("val")
    return divisor.op == "placeholder" and isinstance(value, torch.Tensor) and value.numel() == 1


def support(node: Node, spec: TosaSpecification) -> str | None:
    rounding_mode = node.kwargs.get("rounding_mode")
    divisor = node.args[1]
    return first_reason(
        None if rounding_mode is None else f"{describe(node)}: rounding_mode={rounding_mode!r} is not supported",
        profile_reason(node, spec, tensor_args(node)),
        rank_reason(node, shape_of(node)),
        None
        if spec.is_fp or _is_number(divisor)
        else (
            f"{describe(node)}: an int8 division by the tensor {divisor.name} needs a grid for the reciprocal; "
            "quantize with the Arm quantizer, which rewrites it as x * reciprocal(y)"
        ),
    )


def annotate_div(node: Node, config: QuantizationConfig) -> None:
    """A division by a number is a unary op of the dividend; one by a tensor becomes x * reciprocal(y).
    Integer operands promoted to the float quotient are cast explicitly first, each cast annotated."""
    annotate_promotion_casts(node, config)
    if _is_number(node.args[1]):
        annotate_unary(node, config)
        return
    dividend, divisor = node.args[:2]
    graph = node.graph
    with graph.inserting_after(node):
        reciprocal = graph.call_function(torch.ops.aten.reciprocal.default, (divisor,))
    with graph.inserting_after(reciprocal):
        product = graph.call_function(torch.ops.aten.mul.Tensor, (dividend, reciprocal))
    reciprocal.meta["val"] = divisor.meta["val"]  # same shape and float dtype
    product.meta = dict(node.meta)
    node.replace_all_uses_with(product)
    graph.erase_node(node)
    for new_node in (reciprocal, product):
        registry.for_aten_node(new_node).annotate(new_node, config)


def annotate_promotion_casts(node: Node, config: QuantizationConfig) -> None:
    """``cast_integer_operands_to_result_type``, each cast annotated by to_copy.py (its result quantized)."""
    for cast in cast_integer_operands_to_result_type(node):
        registry.for_aten_node(cast).annotate(cast, config)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    dividend, divisor = node.args[:2]
    rank = len(shape_of(node))
    if ctx.spec.is_fp:
        lhs, rhs = ctx.value(dividend, rank=rank), ctx.value(divisor, rank=rank)
        inverse = emit_unary(
            ctx, ts.Op.RECIPROCAL, ts.TosaSerializerAttribute.ReciprocalAttribute, rhs, name=f"{node.name}_reciprocal"
        )
        return fp_mul(ctx, lhs, inverse, name=node.name)
    number = _number(ctx, divisor)
    if number < 0:
        return lower_table(node, ctx, lambda x: x / number)
    value = ctx.quantized_value(dividend)
    output = ctx.output_qparams(node)
    return rescale(
        ctx.graph,
        value,
        name=node.name,
        scales=[value.qparams.scale / (number * output.scale)],
        output_dtype=output.dtype,
        input_zp=value.qparams.zero_point,
        output_zp=output.zero_point,
        output_qparams=output,
    )


def _number(ctx: LoweringContext, divisor: Node | float) -> float:
    number = float(ctx.constant(divisor).item()) if isinstance(divisor, Node) else float(divisor)
    if number == 0.0:
        raise ValueError(f"division by the constant {divisor} (zero) cannot be lowered for {ctx.spec}")
    return number


def divide(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x / y


def divide_by_three(x: torch.Tensor) -> torch.Tensor:
    return x / 3.0


def divide_by_minus_half(x: torch.Tensor) -> torch.Tensor:
    return x / -0.5


def integers_divided_by_four(x: torch.Tensor) -> torch.Tensor:
    return x / 4


def _int8_data(seed: int, shape: tuple[int, ...]) -> torch.Tensor:
    """int8 values over the whole range, both extremes among them."""
    data = torch.randint(-128, 128, shape, generator=torch.Generator().manual_seed(seed), dtype=torch.int8)
    data.view(-1)[:2] = torch.tensor([-128, 127], dtype=torch.int8)
    return data


def positive_divisors(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Divisors in [1, 4.5], like a softmax denominator: their reciprocals have a bounded range."""
    return tuple(1.0 + x.abs() for x in random_inputs(seed, *shapes))


TEST_CASES = {
    "tensor": OpTestCase(
        FunctionModule(divide), random_inputs(0, (1, 8, 16, 16)) + positive_divisors(1, (1, 8, 16, 16))
    ),
    "broadcast": OpTestCase(FunctionModule(divide), random_inputs(2, (2, 6, 32)) + positive_divisors(3, (2, 6, 1))),
    "scalar": OpTestCase(FunctionModule(divide_by_three), random_inputs(4, (1, 4, 8, 8))),
    "negative_scalar": OpTestCase(FunctionModule(divide_by_minus_half), random_inputs(5, (4, 50))),
    # int8 data over an integer: true division promotes it to float (an explicit, quantized cast in INT).
    "int8_by_number": OpTestCase(FunctionModule(integers_divided_by_four), (_int8_data(6, (4, 16)),)),
}

OP = ArmOp(
    name="div",
    edge_targets=(exir_ops.edge.aten.div.Tensor,),
    aten_targets=(torch.ops.aten.div.Tensor,),
    support=support,
    annotate=annotate_div,
    lower=lower,
    test_cases=TEST_CASES,
)
