"""Evaluates, at compile time, every subgraph that depends only on constants and shapes.

Models compute tables from nothing but their weights and their (static) input shapes: causal masks
(``tril(ones(n, n))``), position ids (``arange``), rotary tables (``cos``/``sin`` of positions times
inverse frequencies), a detector's anchor grid and strides. Left in the graph, these ops either cost the
NPU work on every inference or, worse, stay on the CPU (arange, cumsum, comparisons on int64) and cut the
delegated graph in pieces. Folded, each becomes one constant its consumers read.

What is not folded:

* dequantize nodes: a quantized weight stays int8 with its dequantize, as the lowering reads it (a
  quantize of a constant is folded: that is what pt2e does with weights);
* random and side-effecting operators, control flow and multi-result operators;
* results larger than ``MAX_FOLDED_ELEMENTS`` that are bigger than everything they are computed from
  (an ``expand`` of a scalar to a large tensor would otherwise grow the .pte).
"""

from __future__ import annotations

import dataclasses
import math

import torch
from executorch.exir.pass_base import ExportedProgramPassBase, ExportedProgramPassResult
from torch.export import ExportedProgram
from torch.fx import Node
from torch.utils import _pytree as pytree

from arm.passes.program_constants import add_lifted_constant, constant_value, drop_unused_constants, is_constant
from arm.tosa.quantization import is_dequantize

MAX_FOLDED_ELEMENTS = 1 << 16


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
    for node in list(graph.nodes):
        if node.op != "call_function" or node not in values:
            continue
        readers = [user for user in node.users if user not in values]
        if readers:
            constant = add_lifted_constant(program, f"{node.name}_folded", values[node].contiguous())
            constant.meta.update({key: node.meta[key] for key in ("stack_trace", "nn_module_stack") if key in node.meta})
            for reader in readers:
                reader.replace_input_with(node, constant)
            result.constants.append(constant.name)
    if result.evaluated:
        for node in reversed(list(graph.nodes)):
            if node.op == "call_function" and node in values and not node.users:
                graph.erase_node(node)
        drop_unused_constants(program)
        graph.lint()
        program.graph_module.recompile()
    return result


def _is_foldable(node: Node, values: dict[Node, object]) -> bool:
    if node.op != "call_function" or not isinstance(node.target, (torch._ops.OpOverload, _edge_op_type())):
        return False
    if is_dequantize(node) or not isinstance(node.meta.get("val"), torch.Tensor):
        return False
    schema = node.target._schema
    if schema.is_mutable or len(schema.returns) != 1 or _is_random(node):
        return False
    return all(input_node in values for input_node in node.all_input_nodes)


def _edge_op_type() -> type:
    from executorch.exir.dialects.edge._ops import EdgeOpOverload

    return EdgeOpOverload


def _is_random(node: Node) -> bool:
    name = node.target._schema.name
    return any(word in name for word in ("rand", "normal", "bernoulli", "dropout", "uniform", "multinomial"))


def _evaluate(node: Node, values: dict[Node, object]) -> torch.Tensor | None:
    """The node's value, or None when folding it would grow the program (see MAX_FOLDED_ELEMENTS)."""
    args, kwargs = pytree.tree_map_only(Node, lambda input_node: values[input_node], (node.args, node.kwargs))
    expected = node.meta["val"]
    inputs_size = sum(values[input_node].numel() for input_node in node.all_input_nodes)
    if math.prod(expected.shape) > max(MAX_FOLDED_ELEMENTS, inputs_size):
        return None
    with torch.no_grad():
        value = node.target(*args, **kwargs)
    if not isinstance(value, torch.Tensor) or value.dtype != expected.dtype or tuple(value.shape) != tuple(expected.shape):
        return None
    return value
