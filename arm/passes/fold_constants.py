"""Evaluates, at compile time, every subgraph that depends only on constants and shapes.

Models compute tables from nothing but their weights and their (static) input shapes: causal masks
(``tril(ones(n, n))``), position ids (``arange``), rotary tables (``cos``/``sin`` of positions times
inverse frequencies), a detector's anchor grid and strides. Left in the graph, these ops either cost the
NPU work on every inference or, worse, stay on the CPU (arange, cumsum, comparisons on int64) and cut the
delegated graph in pieces. Folded, each becomes one constant its consumers read.

Shape-only operators (``zeros_like(x)``, ``ones_like(x)``, ``fill_`` on a new tensor: ``full_like`` at the
edge) fold even when x is a model input: they read only its static shape.

A gather from a constant whose values are the same all along the gathered dim reads no value of its
index: RoBERTa's token-type ids are a buffer of zeros gathered at the position ids it computes from
its input ids (``gather(zeros.expand(b, n), 1, position_ids)``). Such a gather folds as a gather at
index 0, whatever the index.

What is not folded:

* the dequantize a constant is read through: a quantized weight stays int8 behind its dequantize, as the
  lowering reads it (a quantize of a constant is folded: that is what pt2e does with weights);
* random and side-effecting operators and control flow (a split's list of results folds through
  its getitems);
* results larger than ``MAX_FOLDED_ELEMENTS`` that are bigger than everything they are computed from
  (an ``expand`` of a scalar to a large tensor would otherwise grow the .pte).
"""

from __future__ import annotations

import dataclasses
import math
import operator

import torch
from executorch.exir.pass_base import ExportedProgramPassBase, ExportedProgramPassResult
from torch.export import ExportedProgram
from torch.fx import Graph, Node
from torch.utils import _pytree as pytree

from arm.passes.program_constants import add_lifted_constant, constant_value, drop_unused_constants, is_constant
from arm.tosa.quantization import is_dequantize

MAX_FOLDED_ELEMENTS = 1 << 16

# Operators that read their tensor argument for its (static) shape and dtype only: ``zeros_like(x)``,
# ``ones_like(x)`` and ``x.new_full`` become ``full_like(x, v)`` at the edge, whose value is known at
# compile time even when x is a model input.
_SHAPE_ONLY = frozenset({"aten::full_like", "aten::zeros_like", "aten::ones_like", "aten::empty_like"})


@dataclasses.dataclass
class Folding:
    """What the pass did: the nodes it evaluated and the constants that replaced the frontier."""

    evaluated: list[str] = dataclasses.field(default_factory=list)
    constants: list[str] = dataclasses.field(default_factory=list)


class FoldConstantsPass(ExportedProgramPassBase):
    """The flow's edge pass; runs before int64 narrowing so folded int64 tables narrow like any constant."""

    def call(self, program: ExportedProgram) -> ExportedProgramPassResult:
        result = fold_constants(program)
        return ExportedProgramPassResult(program, modified=bool(result.evaluated))


def fold_constants(program: ExportedProgram) -> Folding:
    """Rewrites ``program`` in place; see the module docstring for what is folded."""
    result = Folding()
    graph = program.graph_module.graph
    values: dict[Node, object] = {}
    for node in graph.nodes:
        if is_constant(program, node):
            values[node] = constant_value(program, node)
        elif _is_foldable(node, values):
            value = _evaluate(node, values)
            if value is not None:
                values[node] = value
                result.evaluated.append(node.name)
    stays = _nodes_that_stay(graph, values)
    for node in list(graph.nodes):
        if node.op != "call_function" or node not in values or node in stays:
            continue
        if not isinstance(values[node], torch.Tensor):
            continue  # a split's list: its getitems become the constants
        readers = [user for user in node.users if user in stays]
        if readers:
            constant = add_lifted_constant(program, f"{node.name}_folded", values[node].contiguous())
            for reader in readers:
                reader.replace_input_with(node, constant)
            result.constants.append(constant.name)
    if result.evaluated:
        for node in reversed(list(graph.nodes)):
            if node.op == "call_function" and node in values and node not in stays and not node.users:
                graph.erase_node(node)
        drop_unused_constants(program)
        graph.lint()
        program.graph_module.recompile()
    return result


def _nodes_that_stay(graph: Graph, values: dict[Node, object]) -> set[Node]:
    """Nodes left in the graph: those not evaluated, and the dequantizes of constants they read.

    A dequantize is evaluated only to fold what is computed from its float result (a weight sliced after
    a per-tensor quantization, as nn.MultiheadAttention's in_proj weight is); the constant a delegated
    op reads stays int8 behind its dequantize.
    """
    stays: set[Node] = set()
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and (
            node not in values
            or (is_dequantize(node) and any(user in stays for user in node.users))
            # A constant program output would alias the constant buffer; the last step stays an op.
            or any(user.op == "output" for user in node.users)
        ):
            stays.add(node)
        elif node.op == "output":
            stays.add(node)
    return stays


def _is_foldable(node: Node, values: dict[Node, object]) -> bool:
    if node.op != "call_function":
        return False
    if not all(
        input_node in values or _read_for_shape_only(node, input_node) or _index_not_read(node, input_node, values)
        for input_node in node.all_input_nodes
    ):
        return False
    if node.target is operator.getitem:
        return isinstance(node.meta.get("val"), torch.Tensor)  # one result of a folded split
    if not isinstance(node.target, (torch._ops.OpOverload, _edge_op_type())):
        return False
    if not _tensors(node.meta.get("val")):
        return False
    schema = node.target._schema
    return not schema.is_mutable and len(schema.returns) == 1 and not _is_random(node)


def _read_for_shape_only(node: Node, input_node: Node) -> bool:
    """``input_node`` is the first argument of a shape-only operator, with a static shape."""
    if not isinstance(node.target, (torch._ops.OpOverload, _edge_op_type())) or node.target._schema.name not in _SHAPE_ONLY:
        return False
    value = input_node.meta.get("val")
    return (
        node.args[:1] == (input_node,)
        and isinstance(value, torch.Tensor)
        and all(isinstance(size, int) for size in value.shape)
    )


def _shape_stand_in(input_node: Node) -> torch.Tensor:
    """A tensor of the input's shape and dtype: all a shape-only operator reads (and index 0, which a
    gather from values equal along its dim reads as well as any other)."""
    value = input_node.meta["val"]
    return torch.zeros(tuple(value.shape), dtype=value.dtype)


_GATHER = "aten::gather"


def _index_not_read(node: Node, input_node: Node, values: dict[Node, object]) -> bool:
    """``input_node`` is the index of a gather from a constant equal all along the gathered dim."""
    if not isinstance(node.target, (torch._ops.OpOverload, _edge_op_type())) or node.target._schema.name != _GATHER:
        return False
    source, dim, index = node.args[:3]
    value = values.get(source) if isinstance(source, Node) else None
    if index is not input_node or not isinstance(value, torch.Tensor) or value.dim() == 0 or value.shape[dim] == 0:
        return False
    index_value = input_node.meta.get("val")
    if not isinstance(index_value, torch.Tensor) or not all(isinstance(size, int) for size in index_value.shape):
        return False
    return bool((value == value.narrow(dim, 0, 1)).all())


def _tensors(value: object) -> list[torch.Tensor]:
    """The tensors of a node's value (one, or a split's list); empty for anything else."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(item, torch.Tensor) for item in value):
        return list(value)
    return []


def _edge_op_type() -> type:
    from executorch.exir.dialects.edge._ops import EdgeOpOverload

    return EdgeOpOverload


def _is_random(node: Node) -> bool:
    name = node.target._schema.name
    return any(word in name for word in ("rand", "normal", "bernoulli", "dropout", "uniform", "multinomial"))


def _evaluate(node: Node, values: dict[Node, object]) -> object | None:
    """The node's value, or None when folding it would grow the program (see MAX_FOLDED_ELEMENTS)."""
    args, kwargs = pytree.tree_map_only(
        Node,
        lambda input_node: values[input_node] if input_node in values else _shape_stand_in(input_node),
        (node.args, node.kwargs),
    )
    if node.target is operator.getitem:
        return args[0][args[1]]
    expected = _tensors(node.meta["val"])
    inputs_size = sum(
        sum(t.numel() for t in _tensors(values[input_node])) for input_node in node.all_input_nodes if input_node in values
    )
    if sum(math.prod(t.shape) for t in expected) > max(MAX_FOLDED_ELEMENTS, inputs_size):
        return None
    with torch.no_grad():
        value = node.target(*args, **kwargs)
    got = _tensors(value)
    if [(t.dtype, tuple(t.shape)) for t in got] != [(t.dtype, tuple(t.shape)) for t in expected]:
        return None
    return value
