"""TOSA operators that Vela 5.2.0 compiles wrongly, or crashes on, for a given Ethos-U, found before Vela runs.

Each departure is a rule over one TOSA operator; ``departures`` names the operators of a graph that
meet one, so the backend keeps their nodes on the CPU (with the rule's reason) instead of shipping a
stream that computes something else, or losing the whole partition to a Vela crash. The rules are a
table (``_RULES``); each is pinned on a tiny graph by a test that fails once a Vela upgrade changes it.

Rule "one element first" (wrong results):

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
(2, 1, 4, 1, 16), are exact. The flow no longer gives Vela this construct on the U55/U65:
arm/tosa/one_element_first_operands.py runs such an operator at rank 4 between RESHAPEs, so the softmax is
delegated and exact; the rule stays for graphs that reach the backend by another way.

Rule "unit rescales of a rank-5 slice" (a crash): Vela 5.2.0 segfaults, on the U55 (the U85 compiles
it), on a binary elementwise operator (ADD, SUB and MUL measured) whose two operands are both RESCALEs
by exactly 1, one of them of a SLICE of a rank-5 tensor, reshaped to rank 4 before the operator. timm's
mobilevit_xxs at 224x224 has it in every attention: ``q * scale`` on the q slice of the (3, B, heads, N,
d) qkv tensor, with our int32 MUL's operand rescales; at 64x64 its slices are smaller and Vela survives.
Tiny case: a (3, 2, 2, 8, 16) int8 input, slice [0:1] on the first axis, RESCALE x1 to int32, RESHAPE to
(2, 2, 8, 16), MUL by a scale-1 RESCALE of a (1, 1, 1, 1) int8 constant. Each of these compiles: the
first operand's scale 0.5, the second operand a plain int32 constant, no SLICE, a rank-4 input sliced,
the operator kept at rank 5, a (3, 1, 1, 8, 16) input. The rule keeps the operator's node on the CPU
(so the crash costs one node, not the partition the Vela process would lose). The flow itself no longer gives Vela
this construct: arm/tosa/high_rank_slice_copies.py copies a rank-5 SLICE out before anything reads it (the same
window departs on the U85 too), so the operand RESCALE reads the copy and the rule finds nothing; it stays for
graphs that reach the backend by another way."""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator

import numpy as np
from tosa.Op import Op
from tosa.TosaBasicBlock import TosaBasicBlock as TosaBlock
from tosa.TosaGraph import TosaGraph
from tosa.TosaOperator import TosaOperator

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


@dataclasses.dataclass(frozen=True)
class _Graph:
    """What the rules read of a TOSA graph's main block."""

    block: TosaBlock
    shapes: dict[str, tuple[int, ...]]
    producers: dict[str, TosaOperator]

    @staticmethod
    def read(tosa_flatbuffer: bytes) -> _Graph:
        block = TosaGraph.GetRootAs(tosa_flatbuffer, 0).Regions(0).Blocks(0)
        shapes = {}
        for index in range(block.TensorsLength()):
            tensor = block.Tensors(index)
            shapes[tensor.Name()] = tuple(tensor.Shape(d) for d in range(tensor.ShapeLength()))
        producers = {}
        for index in range(block.OperatorsLength()):
            operator = block.Operators(index)
            for output in range(operator.OutputsLength()):
                producers[operator.Outputs(output)] = operator
        return _Graph(block, shapes, producers)

    def operators(self) -> Iterator[TosaOperator]:
        for index in range(self.block.OperatorsLength()):
            yield self.block.Operators(index)

    def const_values(self, name: bytes, dtype: type) -> np.ndarray | None:
        """The values of a CONST operator's output, or None when ``name`` is no constant."""
        producer = self.producers.get(name)
        if producer is None or producer.Op() != Op.CONST:
            return None
        for index in range(self.block.TensorsLength()):
            tensor = self.block.Tensors(index)
            if tensor.Name() == name:
                return tensor.DataAsNumpy().view(dtype) if tensor.DataLength() else None
        return None


def departures(tosa_flatbuffer: bytes, target: str) -> list[Departure]:
    """The operators of the graph's main block that meet a known departure rule on ``target``."""
    rules = [rule for families, rule in _RULES if target.startswith(families)]
    if not rules:
        return []
    graph = _Graph.read(tosa_flatbuffer)
    return [departure for rule in rules for departure in rule(graph, target)]


def _one_element_first_operand(graph: _Graph, target: str) -> list[Departure]:
    found = []
    for operator in graph.operators():
        if operator.Op() not in _BINARY_ELEMENTWISE or operator.InputsLength() < 2:
            continue
        first, second = graph.shapes[operator.Inputs(0)], graph.shapes[operator.Inputs(1)]
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


def _unit_rescales_of_a_rank5_slice(graph: _Graph, target: str) -> list[Departure]:
    """Rule "unit rescales of a rank-5 slice" (a segfault in Vela; see the module docstring)."""
    found = []
    for operator in graph.operators():
        if operator.Op() not in _BINARY_ELEMENTWISE or operator.InputsLength() < 2:
            continue
        sources = [_unit_rescale_source(graph, operator.Inputs(i)) for i in range(2)]
        if None in sources:
            continue
        sliced = [name for name in sources if _is_high_rank_slice(graph, name)]
        if not sliced or len(graph.shapes[operator.Outputs(0)]) > _NPU_FEATURE_MAP_RANK:
            continue
        found.append(
            Departure(
                operator.Outputs(0).decode(),
                f"Vela 5.2.0 crashes (segmentation fault) compiling for {target} the {_OP_NAMES[operator.Op()]} whose "
                f"operands are both scale-1 RESCALEs, one of them of a SLICE of the rank-"
                f"{len(graph.shapes[graph.producers[sliced[0]].Inputs(0)])} tensor "
                f"{list(graph.shapes[graph.producers[sliced[0]].Inputs(0)])} reshaped to rank "
                f"{len(graph.shapes[operator.Outputs(0)])}; with any other scale, or the slice at rank 4, it compiles",
            )
        )
    return found


def _unit_rescale_source(graph: _Graph, name: bytes) -> bytes | None:
    """The input of the RESCALE by exactly 1 that ``name`` comes from (through RESHAPEs), if it does."""
    producer = graph.producers.get(name)
    while producer is not None and producer.Op() == Op.RESHAPE:
        producer = graph.producers.get(producer.Inputs(0))
    if producer is None or producer.Op() != Op.RESCALE or producer.InputsLength() < 3:
        return None
    multipliers = graph.const_values(producer.Inputs(1), np.int32)
    shifts = graph.const_values(producer.Inputs(2), np.int8)
    if multipliers is None or shifts is None or len(multipliers) != 1 or len(shifts) != 1:
        return None  # per-channel, or an operand that is not a constant
    return producer.Inputs(0) if int(multipliers[0]) == 1 << int(shifts[0]) else None


def _is_high_rank_slice(graph: _Graph, name: bytes) -> bool:
    producer = graph.producers.get(name)
    return (
        producer is not None
        and producer.Op() == Op.SLICE
        and len(graph.shapes[producer.Inputs(0)]) > _NPU_FEATURE_MAP_RANK
    )


# (targets a rule applies to, the rule), in the order their departures are reported.
_RULES: tuple[tuple[tuple[str, ...], Callable[[_Graph, str], list[Departure]]], ...] = (
    (_IFM2_ONLY_BROADCAST_FAMILIES, _one_element_first_operand),
    (("ethos-u55",), _unit_rescales_of_a_rank5_slice),
)
