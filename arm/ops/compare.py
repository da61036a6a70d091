"""aten.eq/ne/gt/ge/lt/le (.Tensor and .Scalar) -> TOSA EQUAL, GREATER, GREATER_EQUAL (+ LOGICAL_NOT).

The bool results feed ``where`` (SELECT). TOSA has no less-than: lt and le swap the operands of
GREATER and GREATER_EQUAL; ne is NOT(EQUAL).

TOSA 1.0's integer comparisons are int32 only. For two int8 (or int16, a16w8) tensors both move onto
one int32 grid fine enough to keep their order (as for add). Against a number, the comparison becomes
one of the input's codes with a threshold code, found by evaluating the predicate on the dequantized
values of all 256 (65536) codes exactly as the quantized PyTorch module does.

Integer data (int32 tensors the quantizer leaves alone, such as token ids after int64 narrowing:
RoBERTa's ``ids != pad``) compares as it is, against int32 tensors or whole numbers, in the INT profile
(TOSA 1.0 has its int32 comparisons there).

Ethos-U55/U65 have neither comparisons nor SELECT: there these stay on the CPU.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Callable

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import emit
from arm.ops.common.integer_arithmetic import integer_operands
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, in_float_type, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, dtype_of, first_reason, float_type_reason, rank_reason, tensor_args
from arm.ops.common.unary import float_constant
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import is_dequantize
from arm.tosa.rescale import add_sub_common_scale, to_int32
from arm.tosa.specification import TosaSpecification

_BOOL = np.dtype(np.bool_)
_INT32 = np.dtype(np.int32)


@dataclasses.dataclass(frozen=True)
class Comparison:
    """How one torch comparison maps onto TOSA: ``op(lhs, rhs)``, operands swapped or result negated."""

    op: ts.Op
    set_attribute: Callable[[ts.TosaSerializerAttribute], None]
    swap: bool
    negate: bool
    predicate: Callable[[np.ndarray, float], np.ndarray]


_EQUAL = (ts.Op.EQUAL, ts.TosaSerializerAttribute.EqualAttribute)
_GREATER = (ts.Op.GREATER, ts.TosaSerializerAttribute.GreaterAttribute)
_GREATER_EQUAL = (ts.Op.GREATER_EQUAL, ts.TosaSerializerAttribute.GreaterEqualAttribute)

_COMPARISONS = {
    "eq": Comparison(*_EQUAL, swap=False, negate=False, predicate=operator.eq),
    "ne": Comparison(*_EQUAL, swap=False, negate=True, predicate=operator.ne),
    "gt": Comparison(*_GREATER, swap=False, negate=False, predicate=operator.gt),
    "ge": Comparison(*_GREATER_EQUAL, swap=False, negate=False, predicate=operator.ge),
    "lt": Comparison(*_GREATER, swap=True, negate=False, predicate=operator.lt),
    "le": Comparison(*_GREATER_EQUAL, swap=True, negate=False, predicate=operator.le),
}

# (edge target, ATen target) -> (comparison name, whether the right operand is a number)
_TARGETS = {
    (getattr(getattr(exir_ops.edge.aten, name), overload), getattr(getattr(torch.ops.aten, name), overload)): (
        name,
        overload == "Scalar",
    )
    for name in _COMPARISONS
    for overload in ("Tensor", "Scalar")
}
_BY_TARGET = {target: kind for targets, kind in _TARGETS.items() for target in targets}


def support(node: Node, spec: TosaSpecification) -> str | None:
    if spec.has("u55"):
        return f"{describe(node)}: Ethos-U55/U65 have no comparison operators; it runs on the CPU"
    if _is_integer_comparison(node):
        return _integer_reason(node, spec)
    # FP: the operands share one float type (GREATER of float16 and float32 is no TOSA operator).
    float_reason = float_type_reason(node, spec, tensor_args(node)) if spec.is_fp else None
    return first_reason(
        float_reason,
        *(_input_reason(node, tensor, spec) for tensor in tensor_args(node)),
        rank_reason(node, shape_of(node)),
    )


def _is_integer_comparison(node: Node) -> bool:
    """Integer tensors compared with each other or with a number: the bool result aside, integer data."""
    operands = tensor_args(node)
    return bool(operands) and all(dtype_of(tensor) in _INTEGER_DATA for tensor in operands)


_INTEGER_DATA = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def _integer_reason(node: Node, spec: TosaSpecification) -> str | None:
    if spec.is_fp:
        return f"{describe(node)}: an integer comparison; {spec} has int32 comparisons in the INT profile only, so it runs on the CPU"
    other = [f"{tensor.name} is {dtype_of(tensor)}" for tensor in tensor_args(node) if dtype_of(tensor) != torch.int32]
    if other:
        return f"{describe(node)}: {', '.join(other)}; TOSA compares integers as int32 only (cast the operands to int32)"
    number = node.args[1] if not isinstance(node.args[1], Node) else None
    if number is not None and (isinstance(number, bool) or float(number) != int(number)):
        return f"{describe(node)}: an integer tensor against {number!r}, which is no whole number; it runs on the CPU"
    return rank_reason(node, shape_of(node))


def _input_reason(node: Node, tensor: Node, spec: TosaSpecification) -> str | None:
    """Inputs as every op takes them (a float type the spec lowers, or dequantized int8); the output is
    bool, not quantized."""
    if spec.is_fp:
        return None  # the inputs together: see support
    if tensor.op == "placeholder":
        return None
    if is_dequantize(tensor):
        int16 = torch.int16 in tensor.args
        if int16 and not spec.has("int16"):
            return f"{describe(node)}: input {tensor.name} is int16 (a16w8), which {spec} lacks; quantize it to int8"
        return None
    return (
        f"{describe(node)}: input {tensor.name} is not quantized; {spec} needs int8 inputs "
        "(quantize the model with the Arm quantizer, or use the FP profile)"
    )


def annotate_compare(node: Node, config: QuantizationConfig) -> None:
    """Observed int8 inputs; the bool output is not quantized."""
    annotate(node, {tensor: config.activation for tensor in tensor_args(node)}, None)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    name, against_number = _BY_TARGET[node.target]
    comparison = _COMPARISONS[name]
    rank = len(shape_of(node))
    if _is_integer_comparison(node):
        lhs, rhs = integer_operands(node, ctx, [node.args[0], int(node.args[1]) if against_number else node.args[1]])
    elif against_number:
        lhs, rhs = _against_number(node, ctx, comparison, rank)
    elif ctx.spec.is_fp:
        lhs, rhs = (ctx.value(arg, rank=rank) for arg in node.args[:2])
    else:
        lhs, rhs = _on_common_int32_grid(node, ctx, rank)
    if comparison.swap:
        lhs, rhs = rhs, lhs
    shape = shape_of(node)
    result_name = f"{node.name}_equal" if comparison.negate else node.name
    result = emit(ctx, comparison.op, comparison.set_attribute, [lhs, rhs], name=result_name, shape=shape, dtype=_BOOL)
    if not comparison.negate:
        return result
    set_not = ts.TosaSerializerAttribute.LogicalNotAttribute
    return emit(ctx, ts.Op.LOGICAL_NOT, set_not, [result], name=node.name, shape=shape, dtype=_BOOL)


def _on_common_int32_grid(node: Node, ctx: LoweringContext, rank: int) -> tuple[TosaValue, TosaValue]:
    """Both operands on one int32 grid that represents each exactly enough to keep their order (int16
    ones with add's int16 headroom)."""
    lhs, rhs = (ctx.quantized_value(arg, rank=rank) for arg in node.args[:2])
    common_scale = add_sub_common_scale(lhs, rhs, for_u55=ctx.spec.has("u55"))
    return tuple(
        to_int32(ctx.graph, value, name=f"{node.name}_{side}_int32", scale=value.qparams.scale / common_scale)
        for side, value in (("lhs", lhs), ("rhs", rhs))
    )


def _against_number(node: Node, ctx: LoweringContext, comparison: Comparison, rank: int) -> tuple[TosaValue, TosaValue]:
    number = float(node.args[1])
    if ctx.spec.is_fp:
        # The number in the tensor's own type, as PyTorch compares a float16 tensor with a Python number.
        value = ctx.value(node.args[0], rank=rank)
        return value, float_constant(ctx, number, rank, name=f"{node.name}_other", dtype=value.dtype)
    value = ctx.quantized_value(node.args[0], rank=rank)
    # RESCALE by 1 with both zero points 0: the codes themselves, widened to int32.
    as_codes = value.with_qparams(dataclasses.replace(value.qparams, zero_point=0))
    codes = to_int32(ctx.graph, as_codes, name=f"{node.name}_codes", scale=1.0)
    threshold = _threshold_code(comparison, value, number)
    return codes, ctx.graph.add_const(f"{node.name}_threshold", np.full((1,) * rank, threshold, dtype=_INT32))


def _threshold_code(comparison: Comparison, value: TosaValue, number: float) -> int:
    """The code ``t`` for which ``op(code, t)`` (``op(t, code)`` for lt/le) is the predicate on codes.

    Dequantized values grow with the code, so gt/ge hold from a boundary code on and lt/le below one;
    eq holds at one code at most. The code just past the largest (128 for int8) stands for "no such code".
    """
    grid = value.qparams
    limits = np.iinfo(value.dtype)
    codes = np.arange(limits.min, limits.max + 1, dtype=np.int32)
    real = (codes.astype(np.float32) - np.float32(grid.zero_point)) * np.float32(grid.scale)
    holds = np.asarray(comparison.predicate(real, np.float32(number)))
    if comparison.op == ts.Op.EQUAL:
        equal = ~holds if comparison.negate else holds
        return int(codes[equal][0]) if equal.any() else limits.max + 1
    # gt/ge: the first code that holds; lt/le: the first code that fails.
    boundary_mask = ~holds if comparison.swap else holds
    boundary = int(codes[boundary_mask][0]) if boundary_mask.any() else limits.max + 1
    # GREATER(code, t) starts one code after t; GREATER_EQUAL(t, code) stops at t itself.
    strict_start = (comparison.op == ts.Op.GREATER) != comparison.swap
    return boundary - 1 if strict_start else boundary


def _where(condition: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> Callable[..., torch.Tensor]:
    def pick(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.where(condition(x, y), x, y)

    pick.__name__ = f"where_{condition.__name__}"
    return pick


def greater(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x > y


def less(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x < y


def at_least_half(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x >= 0.5


def at_most_minus_quarter(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x <= -0.25


def is_zero(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x == 0.0


def is_not_zero(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x != 0.0


def equal(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x == y


def not_equal(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x != y


def _token_ids(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randint(0, 6, shape, generator=generator, dtype=torch.int32) for shape in shapes)


def not_padding(ids: torch.Tensor) -> torch.Tensor:
    """RoBERTa's padding mask of its token ids (padding id 1), as int32."""
    return ids.ne(1).int()


def with_zeros(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Normal inputs with every value below 0.5 in magnitude set to exactly 0 (a quantized zero is exact)."""
    return tuple(torch.where(x.abs() < 0.5, 0.0, x) for x in random_inputs(seed, *shapes))


def away_from(threshold: float, seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Normal inputs pushed 0.1 away from ``threshold``: a value within an input step of it may compare
    the other way once quantized, and then ``where`` picks the other tensor, which no step bound covers.
    """
    return tuple(x + torch.where(x >= threshold, 0.1, -0.1) for x in random_inputs(seed, *shapes))


def _case(
    condition: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], inputs: tuple[torch.Tensor, ...]
) -> OpTestCase:
    return OpTestCase(FunctionModule(_where(condition)), inputs, cpu_targets=("u55_INT",))


TEST_CASES = {
    "gt_tensor": _case(greater, random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16))),
    "lt_broadcast": _case(less, random_inputs(1, (2, 6, 32), (1, 6, 1))),
    "ge_scalar": _case(at_least_half, away_from(0.5, 2, (4, 50), (4, 50))),
    "le_scalar": _case(at_most_minus_quarter, away_from(-0.25, 3, (4, 50), (4, 50))),
    "eq_scalar": _case(is_zero, with_zeros(4, (3, 40), (3, 40))),
    "ne_scalar": _case(is_not_zero, with_zeros(5, (3, 40), (3, 40))),
    # Zeros of two different grids compare equal.
    "eq_tensor": _case(equal, with_zeros(6, (3, 40), (3, 40))),
    "ne_tensor": _case(not_equal, with_zeros(7, (3, 40), (3, 40))),
    # The bool result is the model's output: it leaves the partition as it is (on the U85 too).
    "gt_bool_output": OpTestCase(FunctionModule(greater), random_inputs(10, (2, 24), (2, 24)), cpu_targets=("u55_INT",)),
    # int16 operands (a16w8), against a tensor and a number: none on the TOSA-1.0+INT targets (TOSA, VGF);
    # the U85 runs them (Vela 5.2.0's int16 RESCALE, GREATER and SELECT, bit-exact on the NPU model).
    "a16w8_gt_tensor": OpTestCase(
        FunctionModule(_where(greater)),
        random_inputs(8, (2, 3, 20), (2, 3, 20)),
        cpu_targets=("u55_INT", "tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    "a16w8_ge_scalar": OpTestCase(
        FunctionModule(_where(at_least_half)),
        away_from(0.5, 9, (3, 30), (3, 30)),
        cpu_targets=("u55_INT", "tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    # int32 data, not quantized: EQUAL (+ LOGICAL_NOT) of the integers, in the INT profile only (two
    # int32 tensors take the same path with no constant).
    "int32_ne_scalar": OpTestCase(
        FunctionModule(not_padding), _token_ids(13, (2, 16)), cpu_targets=("u55_INT", "tosa_FP", "vgf_FP")
    ),
}

# The half types compare in their own type: a float16 tensor against a float16 tensor, and against a
# number rounded to float16 as PyTorch rounds it (ge.Scalar); bfloat16 on TOSA FP with the bf16 extension.
TEST_CASES |= {
    "float16_le_scalar": in_float_type(_case(at_most_minus_quarter, away_from(-0.25, 11, (4, 20), (4, 20))), torch.float16),
    "bfloat16_gt_tensor": in_float_type(_case(greater, random_inputs(12, (2, 4, 8), (2, 4, 8))), torch.bfloat16),
}

OP = ArmOp(
    name="compare",
    edge_targets=tuple(edge for edge, _ in _TARGETS),
    aten_targets=tuple(aten for _, aten in _TARGETS),
    support=support,
    annotate=annotate_compare,
    lower=lower,
    test_cases=TEST_CASES,
)
