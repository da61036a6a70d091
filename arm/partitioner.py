"""Partitioners that hand the nodes the Arm flow can lower to the TOSA, Ethos-U or VGF delegate.

A node is delegated when its op module's support rule accepts it and, in the INT profile, the
partition keeps int8 at its edges: a partition starts at the dequantize of an int8 input and ends at
the quantize that produces an int8 output, so the first quantize and last dequantize of a model stay
on the CPU. Every call_function left on the CPU is logged and kept in ``rejected`` with its reason.
"""

from __future__ import annotations

import logging
from typing import Callable, Mapping

import torch
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from torch.export import ExportedProgram
from torch.fx import Graph, Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from arm.compile_spec import ArmCompileSpec, EthosUCompileSpec, VgfCompileSpec
from arm.fallback import FallbackPlan
from arm.ops.common import control_flow, registry
from arm.ops.common.support import describe
from arm.passes.cpu_fallback import cpu_reason
# executorch finds a delegate among the loaded BackendDetails subclasses, so load them all here.
from arm.ethosu import backend as _ethosu_backend  # noqa: F401
from arm.tosa import backend as _tosa_backend  # noqa: F401
from arm.vgf import backend as _vgf_backend  # noqa: F401
from arm.tosa.quantization import is_dequantize, is_quantize
from arm.tosa.specification import TosaSpecification

logger = logging.getLogger(__name__)

_QDQ_ONLY_REASON = "a quantize/dequantize group with nothing for the delegate to compute"
_INTEGER_RESHAPES_ONLY_REASON = "its partition would only reshape integers, nothing for the NPU to compute"
_INTEGER_BOOKKEEPING_REASON = (
    "its partition would only move or compare integers beside the program's real computation, which the CPU "
    "does for less than a delegate call costs"
)

# Ops that only move, select or compare elements: a partition of nothing else on integer data is
# bookkeeping on token ids (BART's decoder ids shifted right on the U55, where the comparison and
# where between them stay on the CPU: 3,538 U55-128 cycles and a delegate call to move 16 ids, which
# the CPU copies in a few hundred instructions). Integer arithmetic (cumsum, add, argmax) stays
# delegated.
_INTEGER_BOOKKEEPING_OPS = frozenset({
    "alias_copy", "cat", "clone", "compare", "copy_", "expand", "permute", "repeat", "select",
    "select_scatter", "slice", "slice_scatter", "squeeze", "to_copy", "unsqueeze", "view", "where",
})  # fmt: skip


# Operators that to_edge decomposes into kept-whole ones (scaled_dot_product_attention into matmuls): the
# quantizer never saw those matmuls, so without a per-node filter they would be kept whole, stay on the
# CPU undecomposed and cost arm.flow a second lowering (its fallback net).
_DECOMPOSE_INTO_KEPT_OPS = frozenset({
    torch.ops.aten.scaled_dot_product_attention.default,
    torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default,
})  # fmt: skip


class TOSAPartitioner(Partitioner):
    """Delegates supported subgraphs to ``compile_spec.backend_id`` (``TOSABackend`` for TosaCompileSpec)."""

    def __init__(self, compile_spec: ArmCompileSpec):
        super().__init__()
        self.compile_spec = compile_spec
        self.delegation_spec = DelegationSpec(compile_spec.backend_id, compile_spec.to_list())
        self.rejected: list[tuple[str, str]] = []
        # The delegated nodes that compute something (not the q/dq folded at the partition's edges).
        self.delegated: list[str] = []
        # What arm.flow learned from earlier attempts at this lowering (see arm.fallback).
        self.fallback = FallbackPlan()
        self._undecomposed_on_cpu: dict[str, tuple[torch._ops.OpOverload, str]] | None = None

    @property
    def undecomposed_on_cpu(self) -> dict[torch._ops.OpOverload, str]:
        """Operators kept whole for the delegate that partition() left on the CPU, with a reason each."""
        return {op: reason for op, reason in (self._undecomposed_on_cpu or {}).values()}

    def ops_to_not_decompose(
        self, ep: ExportedProgram
    ) -> tuple[list[torch._ops.OpOverload], Callable[[Node], bool] | None]:
        """Ops such as linear lower better whole; each is kept only where it will be delegated, as
        executorch has no CPU kernel for the undecomposed form.

        executorch asks three times: twice on the ATen program before decomposing, and once on the
        lowered program, where every kept node the filter accepts is an error ("not decomposed or
        delegated"). There the filter names the kept nodes this partitioner left on the CPU, so a
        direct caller gets that error, and arm.flow lowers again with their operators decomposed.
        """
        kept = [op for op in registry.ops_to_not_decompose() if op not in self.fallback.decomposed]
        if self._undecomposed_on_cpu is not None:
            left = self._undecomposed_on_cpu
            return kept, lambda node: node.name in left
        spec = self.compile_spec.tosa_spec

        def will_be_delegated(node: Node) -> bool:
            arm_op = registry.for_aten_node(node)
            return arm_op is not None and arm_op.support(node, spec) is None

        nodes = list(ep.graph.nodes)
        if not any(node.target in _DECOMPOSE_INTO_KEPT_OPS for node in nodes) and all(
            will_be_delegated(node) for node in nodes if node.target in kept
        ):
            # No per-node filter needed: executorch then decomposes once instead of three times (a third
            # of MobileNetV2's compile time).
            return kept, None
        return kept, will_be_delegated

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        graph_module = exported_program.graph_module
        # TOSA has no int64: arm.passes.NarrowInt64Pass (a flow edge pass) made indices int32 before this.
        spec = self.compile_spec.tosa_spec
        float_readers = _readers_of_float_inputs(exported_program) if spec.is_int else {}
        user_inputs = set(exported_program.graph_signature.user_inputs)
        constants = frozenset(
            node for node in graph_module.graph.nodes if node.op == "placeholder" and node.name not in user_inputs
        )
        selected, self.rejected = select_nodes(
            graph_module.graph, spec, self.fallback.cpu_nodes, float_readers, constants=constants
        )
        for name, reason in self.rejected:
            logger.info("%s stays on the CPU: %s", name, reason)
        # A delegated cond or while_loop takes the get_attr nodes of the graphs it calls into its partition.
        selected |= {graph for node in selected for graph in control_flow.graph_arguments(node)}
        proposer = CapabilityBasedPartitioner(graph_module, _InSet(selected), allows_single_node_partition=True)
        partition_tags: dict[str, DelegationSpec] = {}
        delegated: set[Node] = set()
        proposals = proposer.propose_partitions()
        computes_reals = [any(_carries_reals(n) and registry.for_edge_node(n) for n in p.nodes) for p in proposals]
        for partition, reals in zip(proposals, computes_reals):
            if not any(registry.for_edge_node(node) for node in partition.nodes):
                # Only q/dq nodes: nothing for the NPU to compute, so they stay on the CPU, like every
                # node the partitioner leaves there, with their reason.
                self.rejected += [
                    (node.name, f"{describe(node)}: {_QDQ_ONLY_REASON}; it runs on the CPU")
                    for node in partition.nodes
                ]
                continue
            if all(_reshapes_integers(node) for node in partition.nodes):
                # Token ids viewed before a lookup the target cannot run (GPT-2 on the U55): a delegate
                # call for a reshape would cost more than the reshape.
                self.rejected += [
                    (node.name, f"{describe(node)}: {_INTEGER_RESHAPES_ONLY_REASON}; it runs on the CPU")
                    for node in partition.nodes
                ]
                continue
            if not reals and any(computes_reals) and all(_keeps_integer_books(node) for node in partition.nodes):
                # Only where another partition computes the model: a program of integer data alone (an
                # integer op's test, a post-processing graph) keeps its one delegate.
                self.rejected += [
                    (node.name, f"{describe(node)}: {_INTEGER_BOOKKEEPING_REASON}; it runs on the CPU")
                    for node in partition.nodes
                ]
                continue
            tag = f"{self.compile_spec.backend_id}_{len(partition_tags)}"
            for node in partition.nodes:
                node.meta["delegation_tag"] = tag
            delegated.update(partition.nodes)
            partition_tags[tag] = self.delegation_spec
        self._undecomposed_on_cpu = _kept_whole_on_cpu(graph_module.graph, delegated, self.rejected)
        self.delegated = [
            node.name for node in graph_module.graph.nodes if node in delegated and registry.for_edge_node(node)
        ]
        tag_constant_data(exported_program)
        return PartitionResult(tagged_exported_program=exported_program, partition_tags=partition_tags)


class EthosUPartitioner(TOSAPartitioner):
    """Delegates to ``EthosUBackend``, which lowers to TOSA and compiles with Vela."""

    def __init__(self, compile_spec: EthosUCompileSpec):
        super().__init__(compile_spec)


class VgfPartitioner(TOSAPartitioner):
    """Delegates to ``VgfBackend``, which lowers to TOSA and converts it to VGF."""

    def __init__(self, compile_spec: VgfCompileSpec):
        super().__init__(compile_spec)


def select_nodes(
    graph: Graph,
    spec: TosaSpecification,
    cpu_nodes: Mapping[str, str] | None = None,
    unsupported_inputs: Mapping[str, str] | None = None,
    *,
    constants: frozenset[Node] = frozenset(),
) -> tuple[set[Node], list[tuple[str, str]]]:
    """The call_function nodes to delegate, and (name, reason) for every one left on the CPU.

    ``cpu_nodes`` (node name -> reason) stay on the CPU whatever their support rule says;
    ``unsupported_inputs`` (node name -> reason) stay there too, where the support rule accepts them.
    ``constants``: placeholders that are weights, buffers or lifted constants, which a delegate holds
    as constants (a bool mask among them crosses no boundary).
    """
    cpu_nodes = cpu_nodes or {}
    unsupported_inputs = unsupported_inputs or {}
    selected: set[Node] = set()
    reasons: dict[Node, str] = {}
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        reason = (
            cpu_nodes.get(node.name)
            or cpu_reason(node)
            or registry.unsupported_reason(node, spec)
            or unsupported_inputs.get(node.name)
        )
        if reason is None:
            selected.add(node)
        else:
            reasons[node] = reason
    if spec.is_int:
        _trim_to_int8_boundaries(selected, reasons, spec, constants)
    rejected = [(node.name, reasons[node]) for node in graph.nodes if node in reasons]
    return selected, rejected


def _trim_to_int8_boundaries(
    selected: set[Node], reasons: dict[Node, str], spec: TosaSpecification, constants: frozenset[Node]
) -> None:
    """Drops nodes until every edge entering or leaving the selection carries int8."""
    changed = True
    while changed:
        changed = False
        for node in sorted(selected, key=lambda n: n.name):
            reason = _boundary_reason(node, selected) or _ethos_u_bool_reason(node, selected, spec, constants)
            if reason is not None:
                selected.discard(node)
                reasons[node] = reason
                changed = True


def _boundary_reason(node: Node, selected: set[Node]) -> str | None:
    where = describe(node)
    if is_quantize(node):
        producer = node.args[0]
        if producer not in selected:
            return f"{where}: quantizes {producer.name}, a float from outside; its int8 result enters the partition"
        return None
    if is_dequantize(node):
        outside = [user.name for user in node.users if user not in selected]
        if outside:
            return f"{where}: dequantizes for {', '.join(outside)} outside the partition; its int8 input leaves it"
        return None
    for producer in node.all_input_nodes:
        # An integer or bool tensor from the CPU (token ids cast to int32) enters as it is, as an
        # integer model input does; a real one would arrive float, with no quantize standing for it.
        if producer.op == "call_function" and producer not in selected and _carries_reals(producer):
            return f"{where}: its input {producer.name} stays on the CPU, so it would receive a float tensor"
    if not _carries_reals(node):
        return None  # integer and bool results (bitwise, logical ops) leave the partition as they are
    for user in node.users:
        if user not in selected:
            return f"{where}: its int8 result feeds {user.name} outside the partition without a quantize"
    return None


_INT = "the INT profile"


def _readers_of_float_inputs(program: ExportedProgram) -> dict[str, str]:
    """Node name -> reason for ops that read a float model input directly, with no quantize between.

    Support rules accept placeholders in the INT profile as constants the lowering quantizes; a model
    input is no constant, and its float values cannot enter an int8 graph.
    """
    user_inputs = set(program.graph_signature.user_inputs)
    reasons: dict[str, str] = {}
    for node in program.graph.nodes:
        value = node.meta.get("val")
        if node.op != "placeholder" or node.name not in user_inputs or not isinstance(value, torch.Tensor):
            continue
        if not value.dtype.is_floating_point:
            continue
        for user in node.users:
            if user.op == "call_function" and not is_quantize(user):
                reasons[user.name] = (
                    f"{describe(user)}: reads the model input {node.name} as float (no quantize between: the "
                    f"quantizer annotates no operator here), and {_INT} needs int8; it runs on the CPU"
                )
    return reasons


def _kept_whole_on_cpu(
    graph: Graph, delegated: set[Node], rejected: list[tuple[str, str]]
) -> dict[str, tuple[torch._ops.OpOverload, str]]:
    """Node name -> (its ATen operator, why) for every node to_edge kept whole that is not delegated."""
    kept = set(registry.ops_to_not_decompose())
    reasons = dict(rejected)
    left: dict[str, tuple[torch._ops.OpOverload, str]] = {}
    for node in graph.nodes:
        aten_op = getattr(node.target, "_op", None)  # the ATen operator behind an edge operator
        if node.op == "call_function" and aten_op in kept and node not in delegated:
            reason = reasons.get(node.name, f"{describe(node)}: left out of every partition")
            left[node.name] = (aten_op, reason)
    return left


def _ethos_u_bool_reason(node: Node, selected: set[Node], spec: TosaSpecification, constants: frozenset[Node]) -> str | None:
    """Keeps bool tensors from crossing an Ethos-U55/U65 partition's boundary.

    The U85 takes them: Vela 5.2.0 compiles bool graph inputs and outputs (only its
    --show-cpu-operations report fails on them; arm/ethosu/vela.py then reads its debug database),
    and ExecuTorch's EthosUBackend copies a bool argument to a one-byte-element Vela input as it
    copies int8. The U55 has no operator that reads or makes a bool
    tensor, and no such stream has been checked there."""
    if not spec.has("u55") or is_quantize(node) or is_dequantize(node):
        return None
    crossing = [
        arg.name for arg in node.all_input_nodes if _is_bool(arg) and arg not in selected and arg not in constants
    ]
    if _is_bool(node) and any(user not in selected for user in node.users):
        crossing.append(node.name)
    if not crossing:
        return None
    return (
        f"{describe(node)}: bool tensor {', '.join(crossing)} would cross the Ethos-U55 partition's boundary, "
        "which no U55 stream has been checked for; it runs on the CPU"
    )


def _is_bool(node: Node) -> bool:
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and value.dtype == torch.bool


def _reshapes_integers(node: Node) -> bool:
    """A view of an integer tensor: moves no value, computes nothing."""
    arm_op = registry.for_edge_node(node)
    return arm_op is not None and arm_op.name == "view" and not _carries_reals(node)


def _keeps_integer_books(node: Node) -> bool:
    """Moves, selects or compares integer (or bool) data: no real, no arithmetic."""
    arm_op = registry.for_edge_node(node)
    return arm_op is not None and arm_op.name in _INTEGER_BOOKKEEPING_OPS and not _carries_reals(node)


def _carries_reals(node: Node) -> bool:
    """True unless the node's result is an integer or bool tensor, which no quantize stands for."""
    value = node.meta.get("val")
    return not isinstance(value, torch.Tensor) or value.dtype.is_floating_point


class _InSet(OperatorSupportBase):
    def __init__(self, nodes: set[Node]):
        super().__init__()
        self._nodes = nodes

    def is_node_supported(self, submodules: Mapping[str, torch.nn.Module], node: Node) -> bool:
        return node in self._nodes
