"""The integer bit operators (and, or, xor, not, shifts) as Arm ops: one TOSA operator each.

They act on integer tensors (int8/int16/int32; int64 indices are narrowed to int32 before
partitioning), not on quantized reals: nothing to annotate, no scales. TOSA 1.0 has BITWISE_*,
ARITHMETIC_RIGHT_SHIFT in the INT profile only, so the FP profile leaves them on the CPU (as ExecuTorch's
Arm backend leaves and/or/xor/not; it emits ARITHMETIC_RIGHT_SHIFT on FP all the same, which the
profile table does not allow). LOGICAL_LEFT_SHIFT is in both profiles (the TOSA 1.0 profile table:
i8, i16 and i32 under PRO-INT or PRO-FP), so left shifts run on FP too. On bool tensors torch's bitwise and/or/xor/not are the logical ones, which TOSA has for
bool in both profiles (see logical.py): they lower to those.

Ethos-U55/U65 run none of these; the U85 runs them on int8, int16 and int32.
"""

from __future__ import annotations

import dataclasses

import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.elementwise import AttributeSetter, emit
from arm.ops.common.logical import LogicalOp, operand_values
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.support import describe, dtype_of, first_reason, rank_reason
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

INTEGER_DTYPES = (torch.int8, torch.int16, torch.int32)


@dataclasses.dataclass(frozen=True)
class BitwiseOp:
    """One TOSA integer operator and, for and/or/xor/not, the logical operator it is on bool tensors.

    ``shift`` marks the shifts: their right operand is a bit count, which TOSA wants in
    [0, bits of the type); ``attribute`` sets the operator's attribute; ``u85_dtypes`` are the
    integer types whose command stream on the U85 computes what TOSA does.
    """

    op: ts.Op
    attribute: AttributeSetter
    on_bool: LogicalOp | None = None
    shift: bool = False
    u85_dtypes: tuple[torch.dtype, ...] = INTEGER_DTYPES
    in_fp_profile: bool = False  # TOSA 1.0 has the operator in the FP profile too (LOGICAL_LEFT_SHIFT)

    def support(self, node: Node, spec: TosaSpecification) -> str | None:
        if self.on_bool is not None and dtype_of(node) == torch.bool:
            return self.on_bool.support(node, spec)
        return first_reason(
            profile_reason(node, spec, self.op if self.in_fp_profile else None),
            _dtype_reason(node),
            self._shift_reason(node),
            self._u85_reason(node, spec),
            rank_reason(node, shape_of(node)),
        )

    def _u85_reason(self, node: Node, spec: TosaSpecification) -> str | None:
        if not spec.has("u85") or dtype_of(node) in self.u85_dtypes:
            return None
        return (
            f"{describe(node)}: Vela 5.2.0's Ethos-U85 command stream saturates a {dtype_of(node)} "
            f"{self.op.name} where TOSA and torch wrap; only {', '.join(map(str, self.u85_dtypes))} runs there"
        )

    def _shift_reason(self, node: Node) -> str | None:
        count = node.args[1] if len(node.args) > 1 else None
        if not self.shift or isinstance(count, Node) or count is None:
            return None
        bits = torch.iinfo(dtype_of(node)).bits
        if 0 <= count < bits:
            return None
        return (
            f"{describe(node)}: shift by {count} is outside [0, {bits}) for {dtype_of(node)}; "
            "TOSA leaves it undefined"
        )

    def lower(self, node: Node, ctx: LoweringContext) -> TosaValue:
        if self.on_bool is not None and dtype_of(node) == torch.bool:
            return self.on_bool.lower(node, ctx)
        inputs = operand_values(node, ctx)
        return emit(ctx, self.op, self.attribute, inputs, name=node.name, shape=shape_of(node), dtype=inputs[0].dtype)


def profile_reason(node: Node, spec: TosaSpecification, fp_operator: ts.Op | None = None) -> str | None:
    """``fp_operator``: the node's TOSA operator when TOSA 1.0 has it in the FP profile as well."""
    if spec.is_fp and fp_operator is None:
        return (
            f"{describe(node)}: {spec} has no such integer bit operator (TOSA 1.0 has BITWISE_* and "
            "ARITHMETIC_RIGHT_SHIFT in the INT profile only); it runs on the CPU"
        )
    if spec.has("u55"):
        return f"{describe(node)}: Ethos-U55/U65 have no bitwise or shift operators; it runs on the CPU"
    return None


def _dtype_reason(node: Node) -> str | None:
    tensors = [arg for arg in node.args if isinstance(arg, Node)] + [node]
    dtypes = {dtype_of(tensor) for tensor in tensors}
    if not dtypes <= set(INTEGER_DTYPES):
        found = ", ".join(f"{tensor.name} is {dtype_of(tensor)}" for tensor in tensors)
        return f"{describe(node)}: {found}; TOSA's bit operators take int8, int16 or int32"
    if len(dtypes) > 1:
        types = ", ".join(sorted(map(str, dtypes)))
        return f"{describe(node)}: operands of different integer types ({types}); cast them to one type"
    return None


def no_annotation(node: Node, config: QuantizationConfig) -> None:
    """Integer tensors are not quantized reals: nothing to observe."""


def bitwise_op(
    *,
    name: str,
    spec: BitwiseOp,
    edge_targets: tuple[object, ...],
    aten_targets: tuple[torch._ops.OpOverload, ...],
    test_cases: dict[str, OpTestCase],
    keep_in_edge: tuple[torch._ops.OpOverload, ...] = (),
) -> ArmOp:
    return ArmOp(
        name=name,
        edge_targets=edge_targets,
        aten_targets=aten_targets,
        support=spec.support,
        annotate=no_annotation,
        lower=spec.lower,
        test_cases=test_cases,
        keep_in_edge=keep_in_edge,
    )


def random_integers(seed: int, dtype: torch.dtype, *shapes: tuple[int, ...], low: int = -1000, high: int = 1000):
    """Deterministic integer inputs in [low, high) (within float32's exact integers, which the
    harness compares in)."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randint(low, high, shape, generator=generator, dtype=dtype) for shape in shapes)

