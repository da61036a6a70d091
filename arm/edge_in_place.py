"""The edge program, built in place from the quantized ATen program instead of by executorch's to_edge.

executorch's ``to_edge`` makes an edge program by re-tracing the whole program: ``run_decompositions``
(functionalize, then decompose to core ATen) and ~10 passes that each re-interpret every node with fake
tensors, to rename ``aten.X`` into ``exir_ops.edge.aten.X`` and views into their ``_copy`` forms. On a
quantized CNN that is 4-5 of MobileNetV2's ~11 CPU seconds, for a graph that is already functional but
for a handful of nodes (an in-place ReLU, a ``flatten``, a ``linear``, an eval ``dropout``).

This module does the same rewrite node by node, in place:

* first what the re-trace does before decomposing: grad-mode regions (a ``no_grad`` block) are inlined,
  tensor-metadata asserts, dead functional operators and casts that change nothing are dropped;
* an in-place operator whose input nobody reads afterwards becomes its functional form;
* an operator to_edge would decompose (in its decomposition table, or composite) is replaced by the
  graph torch's own decompositions trace for that one node (cached per operator and argument shapes);
* a number where a tensor is wanted becomes a constant, and mixed operand dtypes get executorch's cast;
* every operator is then renamed the way to_edge names it: views to their ``_copy`` variant, ``t`` to
  ``t_copy``, ``clone``/``_to_copy``/``empty`` to executorch's dim-order ops, and all to edge operators
  (but the few executorch leaves as ATen operators, such as ``scalar_tensor``).

A partitioner that keeps operators whole only on the nodes it will delegate (attention models) is
followed node by node the way executorch's EDGE_DO_NOT_DECOMP path goes (``KeptWhereDelegated``). A node
made into its ``_copy`` form gets the contiguous value executorch's passes give it, and what reads it is
re-propagated (``_restride``), so dim-order clones read as they do after to_edge.

What it does not know how to rewrite exactly as to_edge would (mutated inputs or buffers, control flow
other than a grad-mode region, symbolic shapes, a no-op copy, an empty tensor, an operator whose
decomposition is not checked, ...) it refuses with ``NotConvertible`` naming the node and why, before touching the
graph; the flow then takes executorch's route. Nodes keep the names to_edge would give them, so the
partitioner's reasons, the fallback plan and the delegates' TOSA graphs read the same either way.
"""

from __future__ import annotations

import dataclasses
import operator
import warnings
from typing import Callable, Iterable

import torch
from executorch.exir import EdgeCompileConfig
from executorch.exir.dialects._ops import ops as exir_ops
from executorch.exir.dialects.edge._ops import EdgeOpOverload
from executorch.exir.passes.dim_order_ops_registry import DimOrderOpsMap
from executorch.exir.passes import DebugHandleGeneratorPass, convert_constant_dim_order_pass
from executorch.exir.passes.remove_noop_pass import eliminate_dq_q
from executorch.exir.passes.replace_aten_with_edge_pass import DISALLOW_LIST as KEPT_AS_ATEN
from executorch.exir.passes.remove_unused_parameters_pass import remove_unused_parameters_pass
from executorch.exir.program._program import _get_updated_graph_signature, lift_constant_tensor_pass
from executorch.exir.verification.verifier import EXIREdgeDialectVerifier
from torch._export.passes.replace_view_ops_with_view_copy_ops_pass import get_view_copy_of_view_op
from torch._export.utils import _is_preservable_cia_op
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes
from torch.export import ExportedProgram
from torch.fx import Graph, GraphModule, Node
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.traceback import NodeSource, NodeSourceAction
from torch.utils import _pytree as pytree

from arm.passes.inline_mode_regions import inline_mode_regions

_aten = torch.ops.aten


class NotConvertible(Exception):
    """The program holds something only executorch's to_edge rewrites correctly; the message says what.

    ``graph_changed``: the rewrite had begun (a check that needs the decomposed graph failed), so the
    program must be exported again before to_edge takes it."""

    def __init__(self, reason: str, graph_changed: bool = False):
        super().__init__(reason)
        self.graph_changed = graph_changed


# Node metadata a decomposed node inherits from the node it replaces (what torch's re-trace preserves).
_INHERITED_META = ("stack_trace", "nn_module_stack", "source_fn_stack", "torch_fn", "custom", "from_node")

# Operators only executorch's route handles; the graph keeps that route when one is present.
_RETRACE_ONLY = frozenset({
    _aten._assert_scalar.default,
    _aten._assert_async.msg,
    _aten._assert_tensor_metadata.default,
})  # fmt: skip

# Operators whose one-node decomposition here (make_fx with to_edge's table) was checked to give exactly
# what torch.export's run_decompositions gives (bench.edge_routes: byte-identical .pte on the bench
# models; arm/edge_in_place_test.py). Not every operator does: export decomposes batch_norm into
# _native_batch_norm_legit_no_training, make_fx into native_batch_norm. Any other operator to decompose
# keeps executorch's route until it is checked and added here.
_CHECKED_DECOMPOSITIONS = frozenset({
    _aten.adaptive_avg_pool2d.default,
    _aten.arange.default,  # arange.start_step(0, end), as export spells it (Llama's rotary positions)
    _aten.chunk.default,
    _aten.contiguous.default,
    _aten.conv1d.default,  # the flow spells batched ones out first (arm.passes.convolution_spelled_out)
    _aten.conv2d.default,
    _aten.conv3d.default,
    _aten.dropout.default,
    _aten.flatten.using_ints,
    _aten.hardsigmoid.default,
    _aten.hardswish.default,
    _aten.layer_norm.default,
    _aten.linear.default,
    _aten.masked_fill.Scalar,  # where(mask, scalar_tensor(value), x); scalar_tensor stays an ATen op
    _aten.matmul.default,
    _aten.max_pool2d.default,
    _aten.reshape.default,
    _aten.scaled_dot_product_attention.default,  # when the partitioner declines it (attention_u85 in flow_test)
    _aten.silu.default,
    _aten.softmax.int,
    _aten.softplus.default,  # Mamba's time steps (dt = softplus(...))
    _aten.split.Tensor,
    _aten.squeeze.dim,
    _aten.to.device,  # a cast (_to_copy with its dtype); a no-op one is dropped first (_drop_noop_casts)
    _aten.to.dtype,
    _aten.to.dtype_layout,
    _aten.transpose.int,
    _aten.unflatten.int,
})  # fmt: skip

# executorch's RemoveNoopPass and RemoveToCopyPass drop these when they change nothing (and then a dq -> q
# pair around them); a no-op one keeps executorch's route.
_DROPPED_WHEN_NOOP = frozenset({_aten.slice.Tensor, _aten.slice_copy.Tensor, _aten._to_copy.default})

_DEQUANTIZE = frozenset({
    torch.ops.quantized_decomposed.dequantize_per_tensor.default,
    torch.ops.quantized_decomposed.dequantize_per_channel.default,
})  # fmt: skip

# executorch's RemoveMixedTypeOperators: these promote mixed operand dtypes with an inserted cast, by
# these kinds of promotion (div without a rounding mode promotes integers to float).
_PROMOTING = {
    _aten.add.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    _aten.sub.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    _aten.mul.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    _aten.div.Tensor: ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT,
    _aten.div.Tensor_mode: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
    _aten.minimum.default: ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT,
}

@dataclasses.dataclass(frozen=True)
class KeptWhereDelegated:
    """A partitioner that keeps its operators whole only on the nodes it will delegate (its
    ``ops_to_not_decompose`` filter): executorch's EDGE_DO_NOT_DECOMP path. A kept node the filter
    declines is decomposed after all, by ``full_table`` (to_edge's whole table)."""

    accepts: Callable[[Node], bool]
    full_table: dict[torch._ops.OpOverload, Callable]


@dataclasses.dataclass(frozen=True)
class Conversion:
    """What ``convert`` did: how many nodes it decomposed and how many it made functional, and which
    operators it kept whole (all of ``preserve``, or those a KeptWhereDelegated filter accepted)."""

    decomposed: int
    made_functional: int
    preserved: tuple[torch._ops.OpOverload, ...] = ()


def convert(
    program: ExportedProgram,
    decomposition_table: dict[torch._ops.OpOverload, Callable],
    preserve: Iterable[torch._ops.OpOverload] = (),
    kept_where: KeptWhereDelegated | None = None,
) -> Conversion:
    """Rewrites ``program``'s graph into edge dialect in place; raises NotConvertible when to_edge's
    re-trace is needed (before touching the graph, but for checks that need the decomposed nodes).
    ``preserve``: operators kept whole (the partitioner's ``ops_to_not_decompose``);
    ``decomposition_table``: to_edge's, without them; ``kept_where``: the partitioner's per-node filter,
    when it has one."""
    preserved = frozenset(preserve)
    _check_no_writes(program)
    changed = _normalize(program)
    try:
        _check_convertible(program, decomposition_table, preserved)
    except NotConvertible as error:
        raise NotConvertible(str(error), graph_changed=changed) from error
    try:
        return _rewrite(program, decomposition_table, preserved, kept_where)
    except NotConvertible as error:
        raise NotConvertible(str(error), graph_changed=True) from error


# ---- what run_decompositions does before any operator is decomposed ----------------------------------
# Each of these is exactly what executorch's re-trace does to such nodes, so the program reads the same to
# to_edge afterwards (the flow exports it again anyway when the in-place route declines after them).

_CAST_OVERLOADS = frozenset({_aten.to.dtype, _aten.to.device, _aten.to.dtype_layout})


def _normalize(program: ExportedProgram) -> bool:
    """Inlines grad-mode regions, drops tensor-metadata asserts, dead code and casts that change nothing;
    returns whether the graph changed."""
    graph = program.graph
    before = len(graph.nodes)
    # A torch.no_grad() block (transformers' rotary embedding) is a region call in the exported program;
    # the re-trace inlines its nodes where the call was, and so does the flow's pass for mode regions.
    inlined = inline_mode_regions(program.graph_module)
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target is _aten._assert_tensor_metadata.default and not node.users:
            graph.erase_node(node)
    # What only a dead node read goes too: functionalization drops any unused functional operator, even
    # one fx keeps for its random tag (Llama's unused attention, and the causal mask it read).
    graph.eliminate_dead_code(is_impure_node=_has_effects)
    _drop_noop_casts(graph)
    changed = inlined or len(graph.nodes) != before
    if changed:
        program.graph_module.recompile()
    return changed


def _has_effects(node: Node) -> bool:
    if node.op != "call_function":
        return node.op in ("placeholder", "output")
    return not isinstance(node.target, torch._ops.OpOverload) or node.target._schema.is_mutable


def _drop_noop_casts(graph: Graph) -> None:
    """``x.to(dtype)`` where x has that dtype already is x itself after functionalization."""
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target in _CAST_OVERLOADS and _is_noop(node):
            if any(user.op == "output" for user in node.users):
                continue  # a returned alias of its input: the re-trace copies it; left for the checks
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)


def _rewrite(
    program: ExportedProgram, decomposition_table: dict, preserved: frozenset, kept_where: KeptWhereDelegated | None
) -> Conversion:
    graph = program.graph
    _record_provenance(graph)
    made_functional = _make_functional(graph)
    decomposed = 0
    for node in list(graph.nodes):
        if node.op == "call_function" and _needs_decomposition(node.target, decomposition_table, preserved):
            _decompose(node, decomposition_table)
            decomposed += 1
    if kept_where is not None:
        decomposed += _decompose_declined(graph, preserved, kept_where)
        preserved = frozenset(n.target for n in graph.nodes if n.op == "call_function" and n.target in preserved)
    graph.eliminate_dead_code()
    # executorch's FoldRedundantDequantizeQuantizePass: a dequantize feeding a quantize of the same
    # grid (left when a decomposition erased the op between them) folds away. Same helper, no re-trace.
    eliminate_dq_q(program.graph_module, [n for n in graph.nodes if n.op == "call_function" and n.target in _DEQUANTIZE])
    graph.eliminate_dead_code()
    constants = 0
    restrided: set[Node] = set()
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target is not operator.getitem:
            _check_decomposed(node)
        if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            constants = _scalars_to_tensors(program.graph_module, node, constants)
            _cast_mixed_operands(node)
            became_copy = _to_edge_operator(node)
            if became_copy or any(n in restrided for n in node.all_input_nodes):
                _restride(node, restrided)
        elif node.op == "call_function" and node.target is operator.getitem and node.args[0] in restrided:
            _restride(node, restrided)
    _rename_as_retraced(graph)
    output = graph.output_node()
    # A re-trace records the returned values on the output node too.
    output.meta.setdefault("val", torch.fx.map_arg(output.args[0], lambda n: n.meta.get("val")))
    program.graph_module.recompile()
    return Conversion(decomposed, made_functional, tuple(sorted(preserved, key=str)))


def _decompose_declined(graph: Graph, preserved: frozenset, kept_where: KeptWhereDelegated) -> int:
    """executorch's EDGE_DO_NOT_DECOMP path after its first decomposition: the filter sees every kept
    node of the partly decomposed ATen graph; a declined one is decomposed by the whole table, as
    executorch's second ``run_decompositions`` does. Returns how many were."""
    declined = [
        node for node in graph.nodes if node.op == "call_function" and node.target in preserved and not kept_where.accepts(node)
    ]
    for node in declined:
        if node.target not in _CHECKED_DECOMPOSITIONS:
            raise NotConvertible(
                f"node {node.name}: the decomposition of {node.target} is not checked against torch.export's"
            )
        _decompose(node, kept_where.full_table)
    return len(declined)


def _check_decomposed(node: Node) -> None:
    """The checks of ``_check_convertible`` that decompositions may invalidate, on every node after them."""
    target = node.target
    if not isinstance(target, torch._ops.OpOverload):
        raise NotConvertible(f"node {node.name} calls {target}, not an ATen operator")
    if target in _RETRACE_ONLY or _is_inplace(target):
        raise NotConvertible(f"node {node.name}: {target} is rewritten by executorch's own passes")
    if target in _DROPPED_WHEN_NOOP and _is_noop(node):
        raise NotConvertible(f"node {node.name}: {target} changes nothing, and executorch's passes remove it")


def _record_provenance(graph: Graph) -> None:
    """Gives every operator node the provenance a re-trace would (executorch's debug handles group nodes
    by their oldest ancestor): a program exported from an nn.Module has none yet."""
    for node in graph.nodes:
        if node.op not in ("placeholder", "output") and "from_node" not in node.meta:
            node.meta["from_node"] = [NodeSource(node, "edge_in_place", NodeSourceAction.CREATE)]


def _check_no_writes(program: ExportedProgram) -> None:
    signature = program.graph_signature
    if signature.buffers_to_mutate or signature.user_inputs_to_mutate:
        raise NotConvertible("the program writes into its inputs or buffers")


def _check_convertible(
    program: ExportedProgram, table: dict, preserved: frozenset[torch._ops.OpOverload]
) -> None:
    if any(isinstance(module, GraphModule) for name, module in program.graph_module.named_children()):
        raise NotConvertible("the program holds control flow (a submodule graph)")
    for node in program.graph.nodes:
        value = node.meta.get("val")
        for tensor in pytree.tree_leaves(value):
            if isinstance(tensor, torch.SymInt) or (
                isinstance(tensor, torch.Tensor) and not all(isinstance(d, int) for d in tensor.shape)
            ):
                raise NotConvertible(f"node {node.name} has a symbolic shape")
            if isinstance(tensor, torch.Tensor) and tensor.numel() == 0:
                raise NotConvertible(f"node {node.name} is an empty tensor")
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        target = node.target
        if not isinstance(target, torch._ops.OpOverload):
            raise NotConvertible(f"node {node.name} calls {target}, not an ATen operator")
        if target in _RETRACE_ONLY:
            raise NotConvertible(f"node {node.name}: {target} is rewritten by executorch's own passes")
        if (target in _DROPPED_WHEN_NOOP or target in _CAST_OVERLOADS) and _is_noop(node):
            raise NotConvertible(f"node {node.name}: {target} changes nothing, and executorch's passes remove it")
        if _is_inplace(target):
            _check_inplace(node)
        functional = _functional_variant(target) if _is_inplace(target) else target
        if _needs_decomposition(functional, table, preserved) and functional not in _CHECKED_DECOMPOSITIONS:
            raise NotConvertible(
                f"node {node.name}: the decomposition of {functional} is not checked against torch.export's"
            )


def _scalars_to_tensors(graph_module: GraphModule, node: Node, count: int) -> int:
    """executorch's ScalarToTensorPass: a Python number passed where the schema wants a Tensor becomes a
    0-dim constant (``torch.tensor(value)``, read through a ``_tensor_constant<i>`` attribute that
    ``lift_constant_tensor_pass`` later lifts). Returns the number of constants made so far."""
    schema = node.target._schema
    args = list(node.args)
    for index, (argument, value) in enumerate(zip(schema.arguments, args)):
        if not (isinstance(argument.type, torch.TensorType) and isinstance(value, (int, float, bool))):
            continue
        name = f"_tensor_constant{count}"
        count += 1
        setattr(graph_module, name, torch.tensor(value))
        with node.graph.inserting_before(node), warnings.catch_warnings():
            # A plain tensor attribute, as torch.fx's tracer makes it for a constant; fx warns about any
            # attribute that is not a parameter or buffer.
            warnings.simplefilter("ignore", UserWarning)
            args[index] = node.graph.get_attr(name)
        mode = torch._guards.detect_fake_mode([node.meta.get("val")])
        args[index].meta["val"] = mode.from_tensor(getattr(graph_module, name), static_shapes=True)
    node.args = tuple(args)
    return count


def _cast_mixed_operands(node: Node) -> None:
    """executorch's RemoveMixedTypeOperators (after ScalarToTensorPass, as in to_edge): an operand of a
    promoting operator whose dtype is not the computation's gets a cast to it, inserted before the node
    in operand order, with the node's metadata (``_to_copy``, in its edge dim-order form)."""
    kind = _PROMOTING.get(node.target)
    if kind is None or len(node.args) <= 1:
        return
    if node.target is _aten.div.Tensor_mode and node.kwargs.get("rounding_mode") is None:
        kind = ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT
    values = [a.meta["val"] if isinstance(a, Node) else a for a in node.args]
    dtype = elementwise_dtypes(*values, type_promotion_kind=kind)[1]
    schema = node.target._schema.arguments
    args = list(node.args)
    for index, (argument, value) in enumerate(zip(schema, values)):
        if not (isinstance(argument.type, torch.TensorType) and isinstance(value, torch.Tensor)) or value.dtype == dtype:
            continue
        with node.graph.inserting_before(node):
            cast = node.graph.call_function(_aten._to_copy.default, (args[index],), {"dtype": dtype})
        cast.meta = {key: node.meta[key] for key in _INHERITED_META if key in node.meta}
        cast.meta["val"] = _fake_cast(args[index].meta["val"], dtype)
        _to_edge_operator(cast)
        args[index] = cast
    node.args = tuple(args)


def _fake_cast(value: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    with torch._guards.detect_fake_mode([value]):
        return torch.ops.aten._to_copy.default(value, dtype=dtype)


def _is_inplace(target: torch._ops.OpOverload) -> bool:
    arguments = target._schema.arguments
    return bool(arguments) and arguments[0].alias_info is not None and arguments[0].alias_info.is_write


def _functional_variant(target: torch._ops.OpOverload) -> torch._ops.OpOverload | None:
    """``aten.relu.default`` for ``aten.relu_.default``; None for out= or other writing ops."""
    name = target._schema.name.split("::")[-1]
    if not name.endswith("_") or target.namespace != "aten":
        return None
    packet = getattr(_aten, name[:-1], None)
    overload = target._overloadname
    return getattr(packet, overload) if packet is not None and overload in packet.overloads() else None


def _is_noop(node: Node) -> bool:
    before, after = node.args[0].meta.get("val"), node.meta.get("val")
    return (
        isinstance(before, torch.Tensor)
        and isinstance(after, torch.Tensor)
        and before.dtype == after.dtype
        and before.shape == after.shape
        and before.stride() == after.stride()
        and before.device == after.device
    )


def _check_inplace(node: Node) -> None:
    """An in-place op may become its functional form when what it writes is an intermediate nobody reads
    after the write: the later readers use its result already, which the functional form computes."""
    where = f"node {node.name}: in-place {node.target}"
    if _functional_variant(node.target) is None:
        raise NotConvertible(f"{where} has no functional form")
    written = node.args[0]
    if not isinstance(written, Node) or written.op != "call_function":
        raise NotConvertible(f"{where} writes into the program's input, weight or buffer {written}")
    if written.target is operator.getitem or get_view_copy_of_view_op(written.target._schema) is not None:
        raise NotConvertible(f"{where} writes through the view {written.name} into its base")
    order = {n: i for i, n in enumerate(node.graph.nodes)}
    if any(order[user] > order[node] for user in written.users):
        raise NotConvertible(f"{where} writes {written.name}, which is read again after the write")


def _make_functional(graph: Graph) -> int:
    count = 0
    for node in graph.nodes:
        if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload) and _is_inplace(node.target):
            node.target = _functional_variant(node.target)
            count += 1
    return count


def _needs_decomposition(target: object, table: dict, preserved: frozenset) -> bool:
    """What torch.export's ``run_decompositions(table)`` decomposes: the table's operators, and composite
    ones but those it can keep whole (functional, not aliasing) and the table leaves out, such as
    ``upsample_nearest2d.vec``, which it keeps as it is (YOLOv8n's upsampling)."""
    if not isinstance(target, torch._ops.OpOverload) or target in preserved:
        return False
    if target in table:
        return True
    if not torch._C._dispatch_has_kernel_for_dispatch_key(target.name(), "CompositeImplicitAutograd"):
        return False
    return not _is_preservable_cia_op(target)


def _decompose(node: Node, table: dict) -> None:
    """Replaces ``node`` by the core-ATen graph torch's decompositions trace for it."""
    flat, spec = pytree.tree_flatten((node.args, node.kwargs))
    positions = [i for i, value in enumerate(flat) if isinstance(value, Node)]
    fakes = [flat[i].meta["val"] for i in positions]
    traced = _traced_decomposition(node, flat, spec, positions, fakes, table)
    graph = node.graph
    env: dict[Node, object] = {}
    placeholders = iter(flat[i] for i in positions)
    inherited = {key: node.meta[key] for key in _INHERITED_META if key in node.meta}
    result = None
    with graph.inserting_before(node):
        for inner in traced.graph.nodes:
            if inner.op == "placeholder":
                env[inner] = next(placeholders)
            elif inner.op == "call_function":
                new = graph.call_function(inner.target, *torch.fx.map_arg((inner.args, inner.kwargs), env.__getitem__))
                new.meta = {**inherited, "val": _rebound_value(inner, env, node)}
                env[inner] = new
            elif inner.op == "output":
                result = torch.fx.map_arg(inner.args[0], lambda n: _copied_if_operand(n, env, inherited))
            else:
                raise NotConvertible(f"node {node.name}: the decomposition of {node.target} holds {inner.op} {inner.target}")
    _replace_results(node, result)
    graph.erase_node(node)


def _copied_if_operand(result: Node, env: dict, inherited: dict) -> Node:
    """An operator that returns its operand as it is (eval dropout, a no-op contiguous) returns a copy of
    it after functionalization: a node of the program never aliases another. (Inserted where the
    decomposition goes: the caller is inserting before the replaced node.)"""
    if result.op != "placeholder":
        return env[result]
    operand = env[result]
    copy = operand.graph.call_function(_aten.clone.default, (operand,))
    copy.meta = {**inherited, "val": _fake_clone(operand.meta["val"])}
    return copy


def _fake_clone(value: torch.Tensor) -> torch.Tensor:
    with torch._guards.detect_fake_mode([value]):
        return torch.ops.aten.clone.default(value)


def _rebound_value(inner: Node, env: dict, node: Node) -> object:
    """The traced value, re-made in the program's fake mode from the program's own operand values."""
    args, kwargs = torch.fx.map_arg((inner.args, inner.kwargs), lambda n: env[n].meta["val"] if n in env else n)
    mode = torch._guards.detect_fake_mode(pytree.tree_leaves((args, kwargs)) + [node.meta.get("val")])
    with mode:
        return inner.target(*args, **kwargs)


def _replace_results(node: Node, result: object) -> None:
    if isinstance(result, Node):
        node.replace_all_uses_with(result)
        return
    for user in list(node.users):
        if user.target is not operator.getitem:
            raise NotConvertible(f"node {node.name}: {user.name} reads its tuple result whole")
        user.replace_all_uses_with(result[user.args[1]])
        user.graph.erase_node(user)


def _cache_key(node: Node, flat: list, spec: object, fakes: list) -> tuple:
    constants = tuple(None if isinstance(value, Node) else (type(value).__name__, repr(value)) for value in flat)
    shapes = tuple((tuple(f.shape), f.dtype, tuple(f.stride())) if isinstance(f, torch.Tensor) else repr(f) for f in fakes)
    return (node.target, constants, str(spec), shapes)


# Decompositions traced so far, by operator, constant operands and operand shapes: a transformer's
# layers repeat the same few, and tracing one costs a few milliseconds.
_DECOMPOSITIONS: dict[tuple, GraphModule] = {}


def _traced_decomposition(node: Node, flat: list, spec: object, positions: list[int], fakes: list, table: dict) -> GraphModule:
    # The table's operators, not its id: a long-lived process (the Bazel worker) builds a new table per
    # compile, with other kept operators, and a freed table's id is reused.
    key = (*_cache_key(node, flat, spec, fakes), frozenset(table))
    if key not in _DECOMPOSITIONS:
        target = node.target

        def call(*tensors):
            operands = list(flat)
            for position, tensor in zip(positions, tensors):
                operands[position] = tensor
            args, kwargs = pytree.tree_unflatten(operands, spec)
            return target(*args, **kwargs)

        _DECOMPOSITIONS[key] = make_fx(call, decomposition_table=table, tracing_mode="fake")(*fakes)
    return _DECOMPOSITIONS[key]


def _to_edge_operator(node: Node) -> bool:
    """Renames ``node``'s operator to its edge form; True when a view became its ``_copy`` variant."""
    target = original = node.target
    if target in KEPT_AS_ATEN:  # executorch's OpReplacePass leaves these alone (scalar_tensor, asserts)
        return False
    if target is _aten._unsafe_view.default:
        target = _aten.view_copy.default
    elif target is _aten.t.default:
        target = _aten.t_copy.default
    else:
        target = get_view_copy_of_view_op(target._schema) or target
    edge = _edge(target)
    if edge in DimOrderOpsMap:
        _to_dim_order(node, edge)
    else:
        node.target = edge
    return target is not original


def _restride(node: Node, restrided: set[Node]) -> None:
    """Re-makes ``node``'s value from its (already edge) operator and operands, as executorch's passes
    re-propagate it: a view's ``_copy`` returns a contiguous tensor where the view had the strides of
    its base (a permute's), and what reads it inherits that layout (an elementwise op keeps its
    operand's strides; a preserve-format clone its dim order). Marks ``node`` when its strides changed."""
    old = node.meta.get("val")
    if node.target is operator.getitem:
        new = node.args[0].meta["val"][node.args[1]]
    else:
        args, kwargs = torch.fx.map_arg((node.args, node.kwargs), lambda n: n.meta["val"])
        mode = torch._guards.detect_fake_mode(pytree.tree_leaves((args, kwargs)) + [old])
        with mode:
            new = node.target(*args, **kwargs)
    if _strides(new) != _strides(old):
        node.meta["val"] = new
        restrided.add(node)


def _strides(value: object) -> list:
    return [tuple(t.stride()) if isinstance(t, torch.Tensor) else t for t in pytree.tree_leaves(value)]


def _edge(target: torch._ops.OpOverload) -> EdgeOpOverload:
    name = target._schema.name.split("::")[1]
    return getattr(getattr(getattr(exir_ops.edge, target.namespace), name), target._overloadname)


def _to_dim_order(node: Node, edge: EdgeOpOverload) -> None:
    """executorch's MemoryFormatOpsPass: a memory format becomes the dim order it stands for."""
    kwargs = dict(node.kwargs)
    memory_format = kwargs.pop("memory_format", torch.preserve_format)
    first = node.args[0]
    if memory_format in (None, torch.preserve_format):
        value = first.meta["val"] if isinstance(first, Node) else None
        dim_order = [int(d) for d in value.dim_order()] if isinstance(value, torch.Tensor) else list(range(len(first)))
    else:
        rank = first.meta["val"].dim() if isinstance(first, Node) else len(first)
        from executorch.exir.dim_order_utils import get_dim_order

        dim_order = get_dim_order(memory_format, rank)
    kwargs["dim_order"] = dim_order
    node.kwargs = kwargs
    node.target = DimOrderOpsMap[edge]


def _rename_as_retraced(graph: Graph) -> None:
    """Names every operator node as a fresh trace names it (``aten_convolution_default_3``, ``getitem_1``),
    in graph order; other nodes keep their names. A fresh namespace: the old names are free again."""
    namespace = torch.fx.graph._Namespace()
    for node in graph.nodes:
        candidate = graph._target_to_str(node.target) if node.op == "call_function" else node.name
        if node.op == "call_function" and node.target in KEPT_AS_ATEN:  # a re-trace names these by the op alone
            candidate = node.target._schema.name.split("::")[1]
        name = namespace.create_name(candidate, node)
        if name != node.name:
            node.name = name
    graph._graph_namespace = namespace


def edge_program(
    program: ExportedProgram,
    decomposition_table: dict[torch._ops.OpOverload, Callable],
    preserve: Iterable[torch._ops.OpOverload],
    config: EdgeCompileConfig,
    kept_where: KeptWhereDelegated | None = None,
) -> tuple[ExportedProgram, list[torch._ops.OpOverload]]:
    """``program`` (its graph rewritten in place by ``convert``) as the edge program executorch's
    ``_generate_edge_program`` would return: unused parameters dropped, lifted constants, the edge
    verifier, debug handles; and the operators it keeps whole (what executorch's EdgeProgramManager is
    told to preserve). Raises NotConvertible as ``convert`` does."""
    conversion = convert(program, decomposition_table, preserve, kept_where)
    preserve = list(conversion.preserved) if kept_where is not None else list(preserve)
    program = remove_unused_parameters_pass(program)
    graph_module = program.graph_module
    edge = ExportedProgram(
        root=graph_module,
        graph=graph_module.graph,
        graph_signature=_get_updated_graph_signature(program.graph_signature, graph_module),
        state_dict=program.state_dict,
        range_constraints=program.range_constraints,
        module_call_graph=program.module_call_graph,
        example_inputs=program.example_inputs,
        constants=program.constants,
        verifiers=[EXIREdgeDialectVerifier(edge_compile_config=config, class_only=True, preserve_ops=preserve)],
    )
    edge = lift_constant_tensor_pass(edge)
    edge = convert_constant_dim_order_pass.convert_constant_dim_order_pass(edge)
    DebugHandleGeneratorPass()(edge.graph_module)
    return edge, preserve
