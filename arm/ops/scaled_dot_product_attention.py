"""aten.scaled_dot_product_attention -> softmax(q * scale @ k^T + mask) @ v.

INT: quantized piece by piece. Before annotation (``decompose_for_quantization``) the call becomes
``mul`` (q by the scale), ``transpose``, ``matmul``, ``softmax``, ``matmul``: the scores get their own
observed int8 grid and the probabilities softmax's fixed one, and each piece lowers with its own op file
(the scores' softmax is the redesigned int16-exponential one). The scale multiplies q, not the scores:
q has head_dim columns where the scores have one per key, so the MUL touches fewer elements whenever
the sequence is longer than a head (deit_tiny: 64 against 197).

FP: lowered whole, as MATMUL, MUL (scale), ADD (mask), softmax's float pieces and MATMUL.

Grouped-query attention (fewer key/value heads than query heads, ``enable_gqa``) folds each group of
query heads into the rows of its key/value head, so no key or value is repeated: q [B, Hkv * g, L, E] is
viewed as [B, Hkv, g * L, E]. Key and value heads the model repeats itself (transformers' ``repeat_kv``:
unsqueeze, expand, reshape) are read before the repeat and lowered the same way.

Masks: FP adds them to the scores. In INT a mask must be constant when the model is quantized:
``is_causal``, or an ``attn_mask`` computed from shapes and buffers alone (Llama's causal mask from
arange comparisons is evaluated here, arm/ops/common/aten_constant.py). A mask that hides keys (bool,
or a float one holding only 0 and -inf / float32's minimum) becomes ``masked_fill(scores, hidden, -inf)``
before the softmax, which the softmax lowering applies exactly, with no fill value on the scores' grid
(arm/ops/common/masked_scores.py); any other constant float mask is an ``add`` of the scores, quantized
like any add. A mask computed from the model's inputs stays float, on the CPU, with that reason.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.aten_constant import evaluate_constant
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.masked_scores import HIDING_FILL
from arm.ops.common.elementwise import emit
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import float_constant, fp_mul
from arm.ops.matmul import matmul_values
from arm.ops.softmax import float_softmax
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.specification import TosaSpecification

_ARGUMENTS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal")

aten = torch.ops.aten


@dataclasses.dataclass(frozen=True)
class AttentionCall:
    """One sdpa call's arguments, with the defaults filled in and the head grouping worked out."""

    query: Node
    key: Node
    value: Node
    mask: Node | None
    dropout: float
    causal: bool
    scale: float
    groups: int  # query heads per key/value head

    @property
    def is_plain(self) -> bool:
        """No mask and no dropout: the call INT quantizes."""
        return self.mask is None and not self.causal and self.dropout == 0.0


def attention_call(node: Node) -> AttentionCall:
    bound = {**dict(zip(_ARGUMENTS, node.args)), **node.kwargs}
    query, key = bound["query"], bound["key"]
    head_dim = shape(query)[-1]
    scale = bound.get("scale")
    query_heads = shape(query)[-3] if len(shape(query)) >= 3 else 1
    key_heads = shape(key)[-3] if len(shape(key)) >= 3 else 1
    return AttentionCall(
        query=query,
        key=key,
        value=bound["value"],
        mask=bound.get("attn_mask"),
        dropout=float(bound.get("dropout_p", 0.0)),
        causal=bool(bound.get("is_causal", False)),
        scale=1.0 / math.sqrt(head_dim) if scale is None else float(scale),
        groups=query_heads // key_heads if key_heads else 1,
    )


def support(node: Node, spec: TosaSpecification) -> str | None:
    call = attention_call(node)
    query, key, value = shape(call.query), shape(call.key), shape(call.value)
    grouped_heads = len(query) >= 3 and query[-3] != call.groups * key[-3]
    return first_reason(
        f"{describe(node)}: dropout_p={call.dropout} is not lowered (export the model in eval mode)"
        if call.dropout
        else None,
        f"{describe(node)}: query {query}, key {key} and value {value} must agree in batch dims and head_dim, and "
        "the query heads must be a multiple of the key heads"
        if len(query) < 2 or query[:-3] != key[:-3] or key[:-1] != value[:-1] or query[-1] != key[-1] or grouped_heads
        else None,
        f"{describe(node)}: the mask of this attention is computed from the model's inputs; {spec} lowers "
        "masks that are constant when the model is quantized (causal, or built from shapes and buffers), so "
        "it runs on the CPU (use the FP profile to delegate it)"
        if spec.is_int and not call.is_plain
        else None,
        f"{describe(node)}: {spec} lowers scaled_dot_product_attention after EthosUQuantizer has split it into "
        "matmul and softmax; quantize the model with the Arm quantizer"
        if spec.is_int and call.is_plain
        else None,
        profile_reason(node, spec, [call.query, call.key, call.value]),
        rank_reason(node, query),
    )


def decompose(node: Node) -> None:
    """Replaces an sdpa call by mul, transpose, matmul, softmax and matmul (see the module doc).

    A constant mask goes between the first matmul and the softmax, in the grouped scores' layout. A
    mask computed from the inputs is split the same way, but its nodes are marked as annotated with
    nothing: they stay float, on the CPU, rather than reaching to_edge as an sdpa that executorch's own
    decomposition would turn into int64 and bool bookkeeping.
    """
    call = _without_repeated_heads(attention_call(node))
    build = AtenBuilder(node)
    query = call.query
    *lead, heads, rows, head_dim = shape(query) if len(shape(query)) >= 3 else (1, *shape(query))
    grouped = call.groups > 1
    if grouped:
        # reshape, not view: a query computed after its heads were transposed (Llama's rotary) is not
        # contiguous.
        query = build.call(aten.reshape.default, query, [*lead, heads // call.groups, call.groups * rows, head_dim])
    scaled = build.call(aten.mul.Tensor, query, call.scale)
    key_t = build.call(aten.transpose.int, call.key, -2, -1)
    scores = build.call(aten.matmul.default, scaled, key_t)
    constant_mask = _constant_mask(call, (*lead, heads, rows, shape(call.key)[-2]))
    computed_mask = not call.is_plain and constant_mask is None
    if constant_mask is not None:
        scores = _apply_constant_mask(build, call, scores, constant_mask)
    elif computed_mask:
        full_shape = [*lead, heads, rows, shape(call.key)[-2]]
        scores = _masked(build, call, build.call(aten.view.default, scores, full_shape) if grouped else scores)
        if grouped:
            scores = build.call(aten.view.default, scores, list(shape(scaled)[:-1]) + [shape(call.key)[-2]])
    probabilities = build.call(aten._softmax.default, scores, -1, False)
    mixed = build.call(aten.matmul.default, probabilities, call.value)
    if grouped:
        mixed = build.call(aten.view.default, mixed, list(shape(node)))
    if computed_mask:
        for new_node in build.inserted:
            annotate(new_node, {}, None)  # stays float: see the docstring
    node.replace_all_uses_with(mixed)


def _without_repeated_heads(call: AttentionCall) -> AttentionCall:
    """The call on the key and value heads themselves when both are repeated the same number of times
    (transformers' ``repeat_kv`` before an sdpa without ``enable_gqa``): the grouped-query lowering then
    reads each head once instead of a TILE making the copies (Llama, U55-128: 3,520 cycles a layer)."""
    key, value = _repeated_heads(call.key), _repeated_heads(call.value)
    if key is None or value is None or key[1] != value[1]:
        return call
    return dataclasses.replace(call, key=key[0], value=value[0], groups=call.groups * key[1])


_RESHAPES = (aten.reshape.default, aten.view.default, aten._unsafe_view.default)


def _repeated_heads(node: Node) -> tuple[Node, int] | None:
    """(heads, g) when ``node`` is ``reshape(expand(unsqueeze(heads, -3)), [..., g * H, L, E])``, each of
    the H heads repeated g times in a row, else None."""
    if not (node.op == "call_function" and node.target in _RESHAPES):
        return None
    expand = node.args[0]
    if not (isinstance(expand, Node) and expand.target == aten.expand.default):
        return None
    unsqueeze = expand.args[0]
    if not (isinstance(unsqueeze, Node) and unsqueeze.target == aten.unsqueeze.default):
        return None
    heads = unsqueeze.args[0]
    source = list(shape(heads))
    if len(source) < 3 or unsqueeze.args[1] % (len(source) + 1) != len(source) - 2:
        return None  # the new axis must follow the heads' axis
    repeats = shape(expand)[len(source) - 2]
    if list(shape(expand)) != [*source[:-2], repeats, *source[-2:]]:
        return None
    if list(shape(node)) != [*source[:-3], source[-3] * repeats, *source[-2:]]:
        return None
    return heads, repeats


def _constant_mask(call: AttentionCall, scores_shape: tuple[int, ...]) -> torch.Tensor | None:
    """The mask as a constant broadcast to ``scores_shape`` (bool: True hides a key; float: added),
    or None when there is none or it depends on the model's inputs."""
    if call.causal:
        rows, keys = scores_shape[-2:]
        return torch.ones(rows, keys, dtype=torch.bool).triu(1).expand(scores_shape)
    if call.mask is None:
        return None
    mask = evaluate_constant(call.mask)
    if mask is None:
        return None
    mask = mask.expand(scores_shape)
    if mask.dtype == torch.bool:
        return ~mask
    hiding = mask <= HIDING_FILL
    # A float mask of 0 and -inf (or float32's minimum, as transformers writes it) only hides keys.
    return hiding if bool(torch.all(hiding | (mask == 0))) else mask.float()


def _apply_constant_mask(build: AtenBuilder, call: AttentionCall, scores: Node, mask: torch.Tensor) -> Node:
    """masked_fill(scores, hidden, -inf) for a hiding mask, else scores + mask; in the scores' (grouped)
    layout, with every leading dim the mask does not vary along kept at 1."""
    mask = _smallest_broadcast(mask.reshape(shape(scores)).contiguous())
    if mask.dtype == torch.bool:
        hidden = build.constant("hidden_keys", mask)
        return build.call(aten.masked_fill.Scalar, scores, hidden, float("-inf"))
    return build.call(aten.add.Tensor, scores, build.constant("additive_mask", mask))


def _smallest_broadcast(mask: torch.Tensor) -> torch.Tensor:
    for dim in range(mask.dim() - 2):
        first = mask.narrow(dim, 0, 1)
        if bool(torch.all(mask == first)):
            mask = first
    return mask.contiguous()


def _masked(build: AtenBuilder, call: AttentionCall, scores: Node) -> Node:
    """``scores`` with a computed mask applied: -inf where a boolean mask hides a key, else the float mask added."""
    if call.mask.meta["val"].dtype == torch.bool:
        hidden = build.call(aten.logical_not.default, call.mask)
        return build.call(aten.masked_fill.Scalar, scores, hidden, float("-inf"))
    return build.call(aten.add.Tensor, scores, call.mask)


def annotate_attention(node: Node, config: QuantizationConfig) -> None:
    """Nothing to annotate: a plain call was decomposed, a masked one stays float on the CPU."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    """FP only (the support rule sends INT calls through the decomposition)."""
    call = attention_call(node)
    query, key, value = (ctx.value(arg) for arg in (call.query, call.key, call.value))
    *lead, heads, rows, head_dim = query.shape if query.rank >= 3 else (1, *query.shape)
    key_rows = key.shape[-2]
    batch = math.prod(lead) * heads // call.groups
    grouped_rows = call.groups * rows
    query = reshape(ctx.graph, query, (batch, grouped_rows, head_dim), name=f"{node.name}_query")
    key = reshape(ctx.graph, key, (batch, key_rows, head_dim), name=f"{node.name}_key")
    key_t = ctx.graph.add_tensor(f"{node.name}_key_t", (batch, head_dim, key_rows), key.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute([0, 2, 1])
    ctx.graph.add_op(ts.Op.TRANSPOSE, [key], [key_t], attribute)
    scores = matmul_values(ctx, query, key_t, name=f"{node.name}_scores")
    scores = fp_mul(ctx, scores, float_constant(ctx, call.scale, 3, name=f"{node.name}_scale"), name=f"{node.name}_scaled")
    mask = _additive_mask(node, ctx, call, (batch, grouped_rows, key_rows))
    if mask is not None:
        scores = emit(ctx, ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute, [scores, mask],
                      name=f"{node.name}_masked", shape=scores.shape, dtype=scores.dtype)  # fmt: skip
    probabilities = float_softmax(ctx, scores, 2, name=f"{node.name}_probabilities")
    visible_rows = _visible_rows(ctx, call, (batch, grouped_rows, key_rows))
    if visible_rows is not None:
        kept = ctx.graph.add_const(f"{node.name}_visible_rows", visible_rows.astype(probabilities.dtype))
        probabilities = fp_mul(ctx, probabilities, kept, name=f"{node.name}_probabilities_kept")
    value = reshape(ctx.graph, ctx.value(call.value), (batch, key_rows, value.shape[-1]), name=f"{node.name}_value")
    mixed = matmul_values(ctx, probabilities, value, name=f"{node.name}_mixed")
    return reshape(ctx.graph, mixed, shape(node), name=node.name)


# Where a mask forbids a key, the scores get this much added: exp() of it is 0 in float32, and unlike
# -inf it keeps a fully masked row finite.
_MASKED = -3.0e38


def _additive_mask(node: Node, ctx: LoweringContext, call: AttentionCall, scores_shape: tuple[int, ...]) -> TosaValue | None:
    """The mask as a float constant or tensor broadcastable to ``scores_shape`` (batch, rows, keys)."""
    batch, grouped_rows, key_rows = scores_shape
    rows = grouped_rows // call.groups
    if call.causal:
        allowed = np.tril(np.ones((rows, key_rows), dtype=bool))
        additive = np.where(allowed, 0.0, _MASKED).astype(np.float32)
        additive = np.tile(additive, (call.groups, 1))
        return ctx.graph.add_const(f"{node.name}_causal_mask", additive.reshape(1, grouped_rows, key_rows))
    if call.mask is None:
        return None
    mask_shape = shape(call.mask)
    if ctx.is_constant(call.mask):
        data = ctx.constant(call.mask).numpy()
        # -inf (bool: False) becomes _MASKED: a row it hides wholly stays finite, and _visible_rows zeroes it.
        data = np.where(data, 0.0, _MASKED) if data.dtype == np.bool_ else np.maximum(data, _MASKED)
        full = np.broadcast_to(data.astype(np.float32), (*shape(call.query)[:-2], rows, key_rows))
        return ctx.graph.add_const(f"{node.name}_mask", np.ascontiguousarray(full).reshape(scores_shape))
    # A mask computed by the graph: a float mask of the scores' own shape, added as it is.
    full = (*shape(call.query)[:-2], rows, key_rows)
    if mask_shape != full:
        raise ValueError(f"{describe(node)}: a computed mask must have the full scores shape {full}, got {mask_shape}")
    return reshape(ctx.graph, ctx.value(call.mask), scores_shape, name=f"{node.name}_mask")


def _visible_rows(ctx: LoweringContext, call: AttentionCall, scores_shape: tuple[int, ...]) -> np.ndarray | None:
    """1 for each row of the scores (batch, rows, 1) that a constant mask leaves some key to, 0 for a row
    it hides wholly; None when every row sees a key.

    PyTorch's attention gives a wholly hidden row zeros (a bool mask all False, or a float one all -inf
    along the keys), where a plain softmax would give NaN or, with the finite _MASKED, the keys' mean.
    """
    if call.mask is None or call.causal or not ctx.is_constant(call.mask):
        return None  # causal rows always see their own key; a computed mask is added as it is
    batch, grouped_rows, key_rows = scores_shape
    rows = grouped_rows // call.groups
    data = ctx.constant(call.mask).numpy()
    sees_key = data if data.dtype == np.bool_ else data != -np.inf
    full = np.broadcast_to(sees_key, (*shape(call.query)[:-2], rows, key_rows)).reshape(scores_shape)
    visible = full.any(axis=-1, keepdims=True)
    return None if visible.all() else visible.astype(np.float32)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def grouped_query_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def grouped_causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """A decoder's attention (Llama): grouped heads and a causal mask, in the grouped scores' layout."""
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)


def _repeat_heads(x: torch.Tensor, times: int) -> torch.Tensor:
    """transformers' ``repeat_kv``: each head ``times`` times in a row."""
    batch, heads, rows, head_dim = x.shape
    return x[:, :, None, :, :].expand(batch, heads, times, rows, head_dim).reshape(batch, heads * times, rows, head_dim)


def repeated_kv_causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Llama as transformers writes it: the key/value heads repeated before a causal sdpa, no enable_gqa."""
    return torch.nn.functional.scaled_dot_product_attention(q, _repeat_heads(k, 2), _repeat_heads(v, 2), is_causal=True)


class HeadsMerged(torch.nn.Module):
    """BART's attention: heads split by view + transpose, merged again by transpose + reshape, in a model
    that writes into a view (BART shifts its decoder ids so), which makes the flow functionalize the
    program and export's decompositions trace that reshape as a view: CPU sdpa laid its result out as
    [B, S, H, D]. The decomposition's matmul result is laid out [B, H, S, D], and the view failed in
    calibration until arm/ops/common/aten_rewrite.reshape_views_downstream made it a reshape. Float, the
    program is not functionalized before to_edge, whose trace turned the reshape into the same view."""

    def __init__(self, width: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(width, 3 * width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, rows, width = x.shape
        x = x.clone()
        x[:, :2] = x[:, 2:4]
        q, k, v = (t.view(batch, rows, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, -1))
        mixed = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        return mixed.transpose(1, 2).reshape(batch, rows, width)


class MaskedAttention(torch.nn.Module):
    """An explicit boolean mask held by the module (a padding mask: the last two keys are hidden)."""

    def __init__(self, rows: int, keys: int, mask: torch.Tensor | None = None):
        super().__init__()
        if mask is None:
            mask = torch.ones(rows, keys, dtype=torch.bool)
            mask[:, -2:] = False
        self.register_buffer("mask", mask)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=self.mask)


def _hidden_rows_mask() -> torch.Tensor:
    """A float mask of shape (heads, rows, 1): 0, or -inf for every key of two rows of the second head."""
    mask = torch.zeros(2, 6, 1)
    mask[1, [1, 4]] = float("-inf")
    return mask


TEST_CASES = {
    "self_attention": OpTestCase(FunctionModule(attention), random_inputs(0, (1, 2, 12, 16), (1, 2, 12, 16), (1, 2, 12, 16))),
    "cross_attention": OpTestCase(FunctionModule(attention), random_inputs(1, (2, 3, 8, 8), (2, 3, 20, 8), (2, 3, 20, 4))),
    "grouped_query": OpTestCase(
        FunctionModule(grouped_query_attention), random_inputs(2, (1, 4, 6, 8), (1, 2, 6, 8), (1, 2, 6, 8))
    ),
    "causal": OpTestCase(FunctionModule(causal_attention), random_inputs(3, (1, 2, 8, 8), (1, 2, 8, 8), (1, 2, 8, 8))),
    "grouped_causal": OpTestCase(
        FunctionModule(grouped_causal_attention), random_inputs(5, (1, 4, 6, 8), (1, 2, 6, 8), (1, 2, 6, 8))
    ),
    "repeated_kv_causal": OpTestCase(
        FunctionModule(repeated_kv_causal_attention), random_inputs(6, (1, 4, 6, 8), (1, 2, 6, 8), (1, 2, 6, 8))
    ),
    # FP too: to_edge traces the float program again with sdpa laid out [B, H, S, D], and the merge of
    # heads traced at export failed there ("Cannot view a tensor with shape [1, 6, 2, 8] and strides (96,
    # 8, 48, 1)") until it read a contiguous clone (registry.contiguous_views_behind_decompositions).
    "heads_merged_after_a_view_write": OpTestCase(seeded(8, HeadsMerged), random_inputs(8, (1, 6, 16))),
    "padding_mask": OpTestCase(MaskedAttention(6, 10), random_inputs(4, (1, 2, 6, 8), (1, 2, 10, 8), (1, 2, 10, 8))),
    # Rows 1 and 4 of the second head see no key (-inf along every key): PyTorch gives them zeros. FP
    # only: the INT softmax has no such rows (they would make the quantized module's observers NaN).
    "hidden_rows_mask": OpTestCase(
        MaskedAttention(6, 10, _hidden_rows_mask()),
        random_inputs(7, (1, 2, 6, 8), (1, 2, 10, 8), (1, 2, 10, 8)),
        targets=("tosa_FP", "vgf_FP"),
    ),
}

OP = ArmOp(
    name="scaled_dot_product_attention",
    edge_targets=(exir_ops.edge.aten.scaled_dot_product_attention.default,),
    aten_targets=(aten.scaled_dot_product_attention.default,),
    support=support,
    annotate=annotate_attention,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(aten.scaled_dot_product_attention.default,),
    decompose_for_quantization=decompose,
)
