"""Which nodes of a partition Vela refuses, found by compiling parts of the partition's TOSA graph.

Vela 5.2.0 refuses a whole TOSA graph when one operator cannot run on the NPU, and says only the
operator's type: "Non-passthrough operation (Conv2D) could not run on NPU" (a 7x7 stride-4 padded
convolution on the U55). Keeping the whole partition on the CPU for that loses every other node, so the
backend asks which nodes are refused and keeps only those there.

The graph is cut into units, one per FX node of the partition: the TOSA operators a node's lowering
emitted (lowerings name their tensors after the node, plus a suffix). A unit compiles alone as a graph
whose inputs are the tensors it reads from outside it and whose outputs are the ones it writes, so it
sees the same int8 tensors it sees in the partition. The units that own an operator of the type Vela
named (or every unit, when Vela named none that the graph holds) are compiled in groups: a group that
compiles holds no refused unit, one that fails is halved, down to the single refused units. A few
refused units among n cost about 2 log2(n) Vela runs each, a small graph each.

A unit that Vela takes alone but refuses in the whole graph is not found; the caller then keeps the
partition on the CPU as before. ``PROBE_LIMIT`` bounds the Vela runs for a partition.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Callable, Sequence

from arm.tosa.graph import TosaGraph, TosaOperator

logger = logging.getLogger(__name__)

# Vela runs at most this many probe compiles for one refused partition.
PROBE_LIMIT = 48
# "Non-passthrough operation (Conv2D) could not run on NPU"; "... on the CPU for ethos-u55-128: Conv2D = name".
_NAMED_OPERATION = re.compile(r"operation \((?P<op>\w+)\)|(?P<cpu>\w+) = \S+")


@dataclasses.dataclass(frozen=True)
class Unit:
    """The TOSA operators one FX node's lowering emitted, in graph order."""

    node: str
    operators: tuple[TosaOperator, ...]


def units_of(graph: TosaGraph, node_names: Sequence[str]) -> list[Unit]:
    """The graph's operators grouped by the node that emitted them (the longest node name their first
    output starts with); operators no node's name prefixes (a layout pass's) belong to no unit."""
    by_length = sorted(node_names, key=len, reverse=True)
    owned: dict[str, list[TosaOperator]] = {}
    for operator in graph.operators:
        owner = next((name for name in by_length if operator.outputs[0].startswith(name)), None)
        if owner is not None:
            owned.setdefault(owner, []).append(operator)
    return [Unit(name, tuple(owned[name])) for name in node_names if name in owned]


def named_operator_types(message: str) -> set[str]:
    """The operator types Vela's message names, normalized ("Conv2D" -> "conv2d")."""
    return {_normalized(match["op"] or match["cpu"]) for match in _NAMED_OPERATION.finditer(message)}


def candidates(units: list[Unit], message: str) -> list[Unit]:
    """The units owning an operator of a type Vela named; every unit if it named none the graph holds."""
    named = named_operator_types(message)
    chosen = [unit for unit in units if any(_normalized(operator.op.name) in named for operator in unit.operators)]
    return chosen or units


def refused_operator_types(unit: Unit, message: str) -> list[str]:
    """The TOSA types of the unit's operators that Vela's message names; all of its types if none."""
    named = named_operator_types(message)
    types = sorted({operator.op.name for operator in unit.operators})
    return [name for name in types if _normalized(name) in named] or types


def subgraph(graph: TosaGraph, operators: Sequence[TosaOperator]) -> TosaGraph:
    """A graph of ``operators`` alone: what they read from outside becomes an input (constants stay
    constants), what they write and nothing among them reads becomes an output."""
    part = TosaGraph()
    produced = {name for operator in operators for name in operator.outputs}
    read = {name for operator in operators for name in operator.inputs}
    for operator in operators:
        for name in operator.inputs:
            if name in part.tensors or name in produced:
                continue
            tensor = graph.tensors[name]
            if tensor.kind in ("const", "shape"):
                part.tensors[name] = tensor
            else:
                part.tensors[name] = dataclasses.replace(tensor, kind="input")
                part.inputs.append(name)
        for name in operator.outputs:
            part.tensors[name] = dataclasses.replace(graph.tensors[name], kind="intermediate")
        part.operators.append(operator)
    part.outputs = [name for operator in operators for name in operator.outputs if name not in read]
    return part


@dataclasses.dataclass
class RefusalSearch:
    """Finds the refused units by compiling groups of them; ``compiles`` says whether Vela takes a graph."""

    graph: TosaGraph
    compiles: Callable[[TosaGraph], bool]
    probes: int = 0

    def refused(self, units: list[Unit]) -> list[Unit] | None:
        """The units Vela refuses alone; None when the search ran past PROBE_LIMIT."""
        try:
            return self._search(units, known_to_fail=False)
        except _OutOfProbes:
            return None

    def _search(self, units: list[Unit], known_to_fail: bool) -> list[Unit]:
        if not units:
            return []
        if not known_to_fail and self._compiles(units):
            return []
        if len(units) == 1:
            return units
        half = len(units) // 2
        first = self._search(units[:half], known_to_fail=False)
        # A failing group with a clean first half holds its refusal in the second: no need to compile it whole.
        return first + self._search(units[half:], known_to_fail=not first)

    def _compiles(self, units: list[Unit]) -> bool:
        if self.probes >= PROBE_LIMIT:
            raise _OutOfProbes
        self.probes += 1
        # In graph order: a layout pass may have moved one node's operator between another's.
        position = {id(operator): index for index, operator in enumerate(self.graph.operators)}
        operators = sorted((operator for unit in units for operator in unit.operators), key=lambda op: position[id(op)])
        return self.compiles(subgraph(self.graph, operators))


class _OutOfProbes(Exception):
    pass


def _normalized(operator_type: str) -> str:
    return operator_type.replace("_", "").lower()
