"""Narrows the int64 tensors that delegated ops read or write to int32, before partitioning.

TOSA 1.0 has no int64, but PyTorch makes every index int64: embedding and gather indices, arange,
argmax results, integer buffers. Before the partitioner picks nodes, this pass rewrites the int64
values around nodes an Arm op lowers ("consumers"):

* int64 constants (parameters, buffers, lifted constants) whose values fit int32 become int32
  constants (in place when only consumers read them, else a narrowed copy for the consumers);
* int64 tensors computed from nothing but scalars (``arange``, ``full``) are evaluated now and
  become int32 constants the same way;
* int64 user inputs get a cast to int32 on the CPU in front of the consumers (index inputs are
  assumed to fit: no Ethos-U memory holds 2**31 rows);
* the model's own cast of an int32 tensor to int64 (``positions.long()``: RoBERTa's position ids) is
  bypassed for the consumers, which read its int32 input (the values are the same); otherwise the cast
  stayed on the CPU between two delegated ops;
* a consumer's int64 result is produced as int32 and cast back to int64 on the CPU for its users.

A constant whose values do not fit int32 stays int64: its consumers then fail their dtype rule and
stay on the CPU, and the pass reports why.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Callable

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.pass_base import ExportedProgramPassBase, ExportedProgramPassResult
from torch.export import ExportedProgram
from torch.export.graph_signature import TensorArgument
from torch.fx import Node

from arm.ops.common import registry
from arm.passes.cpu_fallback import keep_on_cpu
from arm.passes.program_constants import add_lifted_constant, constant_value, is_constant

_CAST = exir_ops.edge.dim_order_ops._to_dim_order_copy.default
_INT32 = torch.iinfo(torch.int32)

Consumes = Callable[[Node], bool]


class NarrowInt64Pass(ExportedProgramPassBase):
    """The flow's edge pass: narrows int64 around every node an Arm op lowers.

    It runs before partitioning (executorch forbids a partitioner to change the graph), so it cannot
    know which of those nodes the partitioner will keep on the CPU; those run the narrowed int32
    tensors on the CPU, which ExecuTorch's portable kernels accept wherever they accept int64.
    Consumers of a constant that does not fit int32 are marked to stay on the CPU, with the reason.
    """

    def call(self, program: ExportedProgram) -> ExportedProgramPassResult:
        result = narrow_int64(program, _has_arm_lowering)
        return ExportedProgramPassResult(program, modified=bool(result.narrowed or result.kept))


def _has_arm_lowering(node: Node) -> bool:
    # This pass's own casts are _to_dim_order_copy nodes, which arm/ops/to_copy.py lowers too; one with an
    # int64 side is never lowered (TOSA has no int64), so it is no consumer: else the pass would narrow
    # around its own casts (a cast made its own input: "used before it has been defined").
    if node.target == _CAST and any(_is_int64(tensor) for tensor in (node, *node.all_input_nodes)):
        return False
    return registry.for_edge_node(node) is not None


@dataclasses.dataclass
class Int64Narrowing:
    """What the pass did: narrowed node names, and (node name, reason) for int64 values left alone."""

    narrowed: list[str] = dataclasses.field(default_factory=list)
    kept: list[tuple[str, str]] = dataclasses.field(default_factory=list)


def narrow_int64(program: ExportedProgram, consumes: Consumes) -> Int64Narrowing:
    """Rewrites ``program`` in place so no node for which ``consumes`` holds reads or writes int64."""
    result = Int64Narrowing()
    graph = program.graph_module.graph
    for node in list(graph.nodes):
        if not _is_int64(node) or not _consumers(node, consumes):
            continue
        if node.op == "call_function" and not node.all_input_nodes:
            node = _fold_to_constant(program, node)
        if node.op == "placeholder" and is_constant(program, node):
            _narrow_constant(program, node, consumes, result)
        elif node.op == "placeholder":
            _cast_input_to_int32(program, node, consumes)
            result.narrowed.append(node.name)
        elif _is_widening_cast(node):
            _bypass_widening_cast(node, consumes)
            result.narrowed.append(node.name)
    for node in list(graph.nodes):
        # A getitem only selects a result of a multi-result op (max_pool2d's int64 indices): its
        # dtype is the producer's, whichever side lowers it.
        if node.op == "call_function" and node.target is not operator.getitem and consumes(node) and _is_int64(node):
            _narrow_result(program, node, consumes)
            result.narrowed.append(node.name)
    graph.lint()
    program.graph_module.recompile()
    return result


def _is_int64(node: Node) -> bool:
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and value.dtype == torch.int64


def _consumers(node: Node, consumes: Consumes) -> list[Node]:
    return [user for user in node.users if user.op == "call_function" and consumes(user)]






def _fits_int32(data: torch.Tensor) -> bool:
    return data.numel() == 0 or (int(data.min()) >= _INT32.min and int(data.max()) <= _INT32.max)


def _fold_to_constant(program: ExportedProgram, node: Node) -> Node:
    """Replaces a tensor computed from scalars only (arange) by a lifted constant holding its value."""
    data = node.target(*node.args, **node.kwargs)
    constant = add_lifted_constant(program, f"{node.name}_folded", data)
    node.replace_all_uses_with(constant)
    program.graph_module.graph.erase_node(node)
    return constant


def _narrow_constant(program: ExportedProgram, node: Node, consumes: Consumes, result: Int64Narrowing) -> None:
    data = constant_value(program, node)
    if not _fits_int32(data):
        consumers = _consumers(node, consumes)
        reason = (
            f"node {node.name}: int64 constant with values in [{int(data.min())}, {int(data.max())}] does not fit "
            f"TOSA's int32, so {', '.join(user.name for user in consumers)} stay on the CPU (keep indices below 2**31)"
        )
        result.kept.append((node.name, reason))
        for user in consumers:
            keep_on_cpu(user, reason)
        return
    narrowed = data.to(torch.int32)
    lifted = program.graph_signature.inputs_to_lifted_tensor_constants
    if all(consumes(user) for user in node.users) and node.name in lifted:
        target = lifted[node.name]
        program.constants[target] = narrowed
        node.meta["val"] = node.meta["val"].to(torch.int32)
    else:
        # Parameters and buffers belong to the module's state; CPU readers keep the int64 original.
        copy = add_lifted_constant(program, f"{node.name}_int32", narrowed)
        for user in _consumers(node, consumes):
            user.replace_input_with(node, copy)
    result.narrowed.append(node.name)


def _cast_input_to_int32(program: ExportedProgram, node: Node, consumes: Consumes) -> None:
    """Inserts ``cast(node, int32)`` after the user input ``node``, on the CPU, for its consumers."""
    graph = program.graph_module.graph
    with graph.inserting_after(node):
        cast = graph.call_function(_CAST, (node,), {"dtype": torch.int32})
    cast.name = graph._graph_namespace.create_name(f"{node.name}_int32", None)
    cast.meta["val"] = node.meta["val"].to(torch.int32)
    for user in _consumers(node, consumes):
        user.replace_input_with(node, cast)


def _narrow_result(program: ExportedProgram, node: Node, consumes: Consumes) -> None:
    """``node`` writes int32; consumers read it so, and a CPU cast restores int64 for the other users."""
    # A view of the token ids feeding an embedding (GPT-2) would otherwise hand the embedding the int64
    # cast back, which keeps it off every delegate.
    users = [user for user in node.users if not (user.op == "call_function" and consumes(user))]
    graph = program.graph_module.graph
    node.meta["val"] = node.meta["val"].to(torch.int32)
    if any(argument.name == "dtype" and argument.kwarg_only for argument in node.target._schema.arguments):
        # cumsum of int32 returns int64 unless told: run again (executorch's spec propagation runs each
        # delegate's graph), it must compute the int32 its value now says, or the delegate's output
        # tensor is planned as int64 while the NPU writes int32.
        node.kwargs = {**node.kwargs, "dtype": torch.int32}
    if not users:  # the output node is a user too
        return
    with graph.inserting_after(node):
        cast = graph.call_function(_CAST, (node,), {"dtype": torch.int64})
    cast.meta["val"] = node.meta["val"].to(torch.int64)
    # A program output (argmax's indices) is now the cast's result: the signature names it so.
    _rename_output(program, node.name, cast.name)
    for user in users:
        if _is_cast_to_int32(user):
            # The model's own cast of the int64 result to int32 (argmax(x).to(torch.int32)): the narrowed
            # result already is that, so the round trip int32 -> int64 -> int32 goes, and no cast stays on
            # the CPU between two delegated ops.
            _replace_in_program(program, user, node)
        else:
            user.replace_input_with(node, cast)
    if not cast.users:
        graph.erase_node(cast)


def _is_widening_cast(node: Node) -> bool:
    """A cast of an int32 tensor to int64: the same values, wider."""
    if node.op != "call_function" or node.target != _CAST or not _is_int64(node):
        return False
    source = node.args[0]
    value = source.meta.get("val") if isinstance(source, Node) else None
    return isinstance(value, torch.Tensor) and value.dtype == torch.int32


def _bypass_widening_cast(node: Node, consumes: Consumes) -> None:
    """The consumers of an int32 -> int64 cast read its int32 input; the cast stays for other users."""
    for user in _consumers(node, consumes):
        user.replace_input_with(node, node.args[0])
    if not node.users:
        node.graph.erase_node(node)


def _is_cast_to_int32(node: Node) -> bool:
    value = node.meta.get("val")
    return node.target == _CAST and isinstance(value, torch.Tensor) and value.dtype == torch.int32


def _replace_in_program(program: ExportedProgram, old: Node, new: Node) -> None:
    old.replace_all_uses_with(new)
    _rename_output(program, old.name, new.name)
    program.graph_module.graph.erase_node(old)


def _rename_output(program: ExportedProgram, old: str, new: str) -> None:
    for spec in program.graph_signature.output_specs:
        if isinstance(spec.arg, TensorArgument) and spec.arg.name == old:
            spec.arg = TensorArgument(name=new)

