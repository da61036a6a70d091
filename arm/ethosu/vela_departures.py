"""TOSA operators whose Vela 5.2.0 command stream departs from the graph on a given Ethos-U, found before Vela runs.

Each departure is a rule over one TOSA operator; ``departures`` names the operators of a graph that
meet one, so the backend keeps their nodes on the CPU (with the rule's reason) instead of shipping a
stream that computes something else.

Measured on the U55 (runtime/npu_model, bit for bit against the TOSA reference model; the U85's streams
are exact): a binary elementwise operator of rank 5 or more whose FIRST operand is one element broadcast
over a larger second operand. Vela flattens the rank-5 tensors to the NPU's 3D feature maps but keeps
the operand order, and its U55 stream then sets the IFM2 broadcast bits (which broadcast only the
second operand) while the one-element first operand is read as a full-size IFM: past its constant's
bytes, or past the end of the weight region (the a16w8 softmax of ExecuTorch's
``test_mha_softmax_a16w8_u55_INT``, whose Newton-Raphson reciprocal on (8, 1, 4, 1, 1) rows computes
``1 - x * r`` with the constant first, stopped the NPU model at an IFM read beyond region 0). Tiny
cases: ``y - x`` and ``y * x`` with y (1, 1, 1, 1, 1) and x (8, 1, 4, 1, 1) or (1, 8, 4, 1, 1) differ
in 31 and 30 of 32 outputs; the same at rank 4 or 3, ``x - y`` (the one element second), a constant
folded into ``1.5 - x``, and a first operand broadcast in one dimension only, (2, 1, 4, 1, 1) against
(2, 1, 4, 1, 16), are exact.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from tosa.Op import Op
from tosa.TosaGraph import TosaGraph

# TOSA operators that take two same-rank, broadcastable tensor operands and compute elementwise.
_BINARY_ELEMENTWISE = frozenset(
    {
        Op.ADD, Op.SUB, Op.MUL, Op.MAXIMUM, Op.MINIMUM, Op.ARITHMETIC_RIGHT_SHIFT, Op.LOGICAL_LEFT_SHIFT,
        Op.LOGICAL_RIGHT_SHIFT, Op.BITWISE_AND, Op.BITWISE_OR, Op.BITWISE_XOR, Op.LOGICAL_AND, Op.LOGICAL_OR,
        Op.LOGICAL_XOR, Op.EQUAL, Op.GREATER, Op.GREATER_EQUAL, Op.INTDIV, Op.POW,
    }
)  # fmt: skip
_OP_NAMES = {value: name for name, value in vars(Op).items() if not name.startswith("_")}
# The Vela generations whose elementwise operators can broadcast only their second operand.
_IFM2_ONLY_BROADCAST_FAMILIES = ("ethos-u55", "ethos-u65")
_NPU_FEATURE_MAP_RANK = 4


@dataclasses.dataclass(frozen=True)
class Departure:
    """One TOSA operator of a graph that Vela would compile into a stream computing something else."""

    output: str  # the operator's (first) output tensor, named after the FX node that emitted it
    reason: str


def departures(tosa_flatbuffer: bytes, target: str) -> list[Departure]:
    """The operators of the graph's main block that meet a known departure rule on ``target``."""
    if not target.startswith(_IFM2_ONLY_BROADCAST_FAMILIES):
        return []
    block = TosaGraph.GetRootAs(tosa_flatbuffer, 0).Regions(0).Blocks(0)
    shapes = {}
    for index in range(block.TensorsLength()):
        tensor = block.Tensors(index)
        shapes[tensor.Name()] = tuple(tensor.Shape(d) for d in range(tensor.ShapeLength()))
    found = []
    for index in range(block.OperatorsLength()):
        operator = block.Operators(index)
        if operator.Op() not in _BINARY_ELEMENTWISE or operator.InputsLength() < 2:
            continue
        first, second = shapes[operator.Inputs(0)], shapes[operator.Inputs(1)]
        if _broadcasts_one_element_first(first, second):
            found.append(
                Departure(
                    operator.Outputs(0).decode(),
                    f"Vela 5.2.0's {target} stream for a rank-{len(second)} {_OP_NAMES[operator.Op()]} whose first "
                    f"operand {list(first)} is one element broadcast over {list(second)} broadcasts the second "
                    "operand instead and reads the first as a full tensor (wrong results); at rank 4 or with "
                    "the operands swapped it is exact",
                )
            )
    return found


def _broadcasts_one_element_first(first: tuple[int, ...], second: tuple[int, ...]) -> bool:
    rank = max(len(first), len(second))
    return rank > _NPU_FEATURE_MAP_RANK and int(np.prod(first)) == 1 and int(np.prod(second)) > 1
