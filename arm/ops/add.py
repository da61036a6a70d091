"""aten.add.Tensor -> TOSA ADD (INT: both operands rescaled onto one int32 grid)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import annotate_binary, binary_support, lower_add_sub
from arm.ops.common.integer_arithmetic import integer_support, is_integer_arithmetic, lower_integer_binary
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, half_precision_cases, in_float_type, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    if is_integer_arithmetic(node):
        return integer_support(node, spec)
    return binary_support(node, spec)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if is_integer_arithmetic(node):
        return lower_integer_binary(node, ctx, ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute)
    return lower_add_sub(node, ctx, ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute)


def add_tensors(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y


def add_with_alpha(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.add(x, y, alpha=1.5)


def add_scalar(x: torch.Tensor) -> torch.Tensor:
    return x + 1.5


def add_to_itself(x: torch.Tensor) -> torch.Tensor:
    return x + x


def add_two_row_windows(x: torch.Tensor) -> torch.Tensor:
    return x[3:] + x[:3]


def add_two_column_windows(x: torch.Tensor) -> torch.Tensor:
    return x[:, 3:] + x[:, :4]


def add_windows_of_products(x: torch.Tensor) -> torch.Tensor:
    return (2 * x)[:, 3:] + (2 * x)[:, :4]


def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.relu(x + y)


def add_positions(x: torch.Tensor) -> torch.Tensor:
    return x + torch.arange(x.shape[-1])


def plus_int32_identity(x: torch.Tensor) -> torch.Tensor:
    return x + torch.eye(x.shape[-1], dtype=torch.int32)


class _AddConstant(torch.nn.Module):
    """Adds a constant tensor (a buffer), which the lowering emits as a TOSA CONST."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("offset", torch.linspace(-1.0, 1.0, 16).reshape(1, 16, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.offset


TEST_CASES = {
    # Both operands widened SLICE windows of x: Vela 5.2.0 reads them at the wrong offset on the U55 unless
    # they are copied out first (arm/tosa/widened_window_copies.py; 23 of 24 and 11 of 12 outputs off).
    "two_row_windows": OpTestCase(FunctionModule(add_two_row_windows), random_inputs(8, (6, 8))),
    "two_column_windows": OpTestCase(FunctionModule(add_two_column_windows), random_inputs(9, (3, 7))),
    # Windows of two products computed apart: two tensors, but one grid, so the U55 cannot fold the operand
    # rescales into the ADD either (12 of 12 outputs off without the copies).
    "windows_of_products": OpTestCase(FunctionModule(add_windows_of_products), random_inputs(1, (3, 7))),
    "tensor": OpTestCase(FunctionModule(add_tensors), random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16))),
    "broadcast": OpTestCase(FunctionModule(add_tensors), random_inputs(1, (1, 8, 16, 16), (1, 8, 1, 16))),
    "broadcast_rank": OpTestCase(FunctionModule(add_tensors), random_inputs(2, (2, 12, 32), (32,))),
    "broadcast_both": OpTestCase(FunctionModule(add_tensors), random_inputs(6, (1, 8, 1, 16), (1, 1, 12, 1))),
    "rank5": OpTestCase(FunctionModule(add_tensors), random_inputs(7, (2, 3, 4, 5, 6), (2, 3, 4, 5, 6))),
    "scalar": OpTestCase(FunctionModule(add_scalar), random_inputs(3, (1, 4, 8, 8))),
    "same_input": OpTestCase(FunctionModule(add_to_itself), random_inputs(4, (3, 40))),
    "constant_tensor": OpTestCase(_AddConstant(), random_inputs(8, (1, 16, 4, 4))),
    "relu_fused": OpTestCase(FunctionModule(add_relu), random_inputs(5, (1, 16, 8, 8), (1, 16, 8, 8))),
    # int16 activations: the TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        FunctionModule(add_tensors),
        random_inputs(9, (1, 8, 8, 8), (1, 8, 8, 8)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    # A constant folded after quantization (arange) is quantized by the lowering: to int16 beside int16
    # activations (an int8 grid was 100 int16 steps off).
    "a16w8_folded_constant": OpTestCase(
        FunctionModule(add_positions),
        random_inputs(10, (2, 8)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    # int32 data plus an int32 eye (folded to a constant): one int32 ADD
    # (arm/ops/common/integer_arithmetic.py), which TOSA 1.0 has in both profiles.
    "int32_plus_eye": OpTestCase(
        FunctionModule(plus_int32_identity),
        (torch.randint(0, 10, (2, 4, 4), generator=torch.Generator().manual_seed(11), dtype=torch.int32),),
    ),
}

# The op in float16 and bfloat16 on the float targets (the float-type rule: arm/ops/common/support.py).
TEST_CASES |= half_precision_cases(OpTestCase(FunctionModule(add_tensors), random_inputs(20, (2, 3, 8), (3, 8))))

# x + alpha * y: a MUL by alpha, then the ADD, in the FP profile (in the operands' type, as PyTorch's CPU
# kernel computes short half-type tensors); in INT alpha scales y's RESCALE onto the int32 grid.
_ALPHA = OpTestCase(FunctionModule(add_with_alpha), random_inputs(21, (2, 4, 6), (4, 6)))
TEST_CASES |= {"alpha": _ALPHA, "alpha_bfloat16": in_float_type(_ALPHA, torch.bfloat16)}

OP = ArmOp(
    name="add",
    edge_targets=(exir_ops.edge.aten.add.Tensor,),
    aten_targets=(torch.ops.aten.add.Tensor,),
    support=support,
    annotate=annotate_binary,
    lower=lower,
    test_cases=TEST_CASES,
)
