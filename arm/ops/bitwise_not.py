"""aten.bitwise_not -> TOSA BITWISE_NOT on integers, LOGICAL_NOT on bool (see common/bitwise.py)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.bitwise import BitwiseOp, bitwise_op, random_integers
from arm.ops.common.logical import LogicalOp, random_bools
from arm.ops.common.op_test_case import FunctionModule, OpTestCase

_INT_ONLY = ("tosa_FP", "vgf_FP", "u55_INT")
# The U55 has no logical operators; the U85 runs them, bool graph inputs and outputs included.
_BOOL_IO = ("u55_INT",)

_BITWISE_NOT = BitwiseOp(
    ts.Op.BITWISE_NOT,
    ts.TosaSerializerAttribute.BitwiseNotAttribute,
    on_bool=LogicalOp(ts.Op.LOGICAL_NOT, ts.TosaSerializerAttribute.LogicalNotAttribute),
)

TEST_CASES = {
    "int32": OpTestCase(
        FunctionModule(torch.bitwise_not), random_integers(0, torch.int32, (2, 3, 16)), cpu_targets=_INT_ONLY
    ),
    "int8": OpTestCase(
        FunctionModule(torch.bitwise_not),
        random_integers(1, torch.int8, (4, 20), low=-128, high=128),
        cpu_targets=_INT_ONLY,
    ),
    "bool": OpTestCase(FunctionModule(torch.bitwise_not), random_bools(2, (2, 30)), cpu_targets=_BOOL_IO),
}

OP = bitwise_op(
    name="bitwise_not",
    spec=_BITWISE_NOT,
    edge_targets=(exir_ops.edge.aten.bitwise_not.default,),
    aten_targets=(torch.ops.aten.bitwise_not.default,),
    test_cases=TEST_CASES,
)
