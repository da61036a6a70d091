"""Helpers the op modules use to annotate ATen nodes for pt2e; the specs come from a QuantizationConfig."""

from __future__ import annotations

import torch
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import (
    QuantizationAnnotation,
    QuantizationSpecBase,
    SharedQuantizationSpec,
)

from arm.ops.common import registry

_ANNOTATION_KEY = "quantization_annotation"


def is_annotated(node: Node) -> bool:
    annotation = node.meta.get(_ANNOTATION_KEY)
    return annotation is not None and annotation._annotated


def annotate(node: Node, inputs: dict[Node, QuantizationSpecBase], output: QuantizationSpecBase | None) -> None:
    node.meta[_ANNOTATION_KEY] = QuantizationAnnotation(input_qspec_map=inputs, output_qspec=output, _annotated=True)


def annotate_with_fused_activation(
    node: Node, inputs: dict[Node, QuantizationSpecBase], output: QuantizationSpecBase
) -> None:
    """Annotates ``node``; if its only user is a fusable activation (relu), the activation's output
    carries ``output`` instead, so no quantization step sits between the op and its clamp."""
    users = list(node.users)
    if len(users) == 1 and registry.is_fused_activation(users[0]) and not is_annotated(users[0]):
        annotate(node, inputs, None)
        annotate(users[0], {}, output)
    else:
        annotate(node, inputs, output)


def input_spec(input_node: Node, activation: QuantizationSpecBase) -> QuantizationSpecBase:
    """The spec for reading ``input_node``: its own output grid when it has one, else ``activation``."""
    return SharedQuantizationSpec(input_node) if _has_output_spec(input_node) else activation


def shared_with_input(node: Node, input_node: Node, activation: QuantizationSpecBase) -> None:
    """Annotates a data-movement op (view, permute) whose output reuses its input's grid.

    Integer tensors (int64 ids, position buffers a slice reads) are not quantized: such an op is left
    unannotated and moves them as they are.
    """
    value = input_node.meta.get("val")
    if isinstance(value, torch.Tensor) and not value.is_floating_point():
        return
    annotate(node, {input_node: input_spec(input_node, activation)}, SharedQuantizationSpec((input_node, node)))


def _has_output_spec(node: Node) -> bool:
    annotation = node.meta.get(_ANNOTATION_KEY)
    return annotation is not None and annotation.output_qspec is not None


def drop_non_float_specs(node: Node) -> None:
    """Removes what an op's annotator asked for on integer or bool tensors (indices, masks, int32
    clamps, ``arange`` positions): pt2e would insert a float quantize on them, which fails on the
    re-export. Such tensors stay what they are; the ops reading them see their integer values."""
    annotation = node.meta.get(_ANNOTATION_KEY)
    if annotation is None:
        return
    annotation.input_qspec_map = {
        input_node: spec for input_node, spec in annotation.input_qspec_map.items() if _is_float(input_node)
    }
    if annotation.output_qspec is not None and not _is_float(node):
        annotation.output_qspec = None


def _is_float(node: Node) -> bool:
    """False for integer and bool tensors; nodes an op's decomposition made without a value count as float."""
    value = node.meta.get("val")
    return not isinstance(value, torch.Tensor) or value.dtype.is_floating_point
