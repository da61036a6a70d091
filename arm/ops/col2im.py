"""aten.col2im (``F.fold`` / ``nn.Fold``: columns of patches summed back into an image), before quantization,
as zero-filled concatenations and adds.

VOLO's outlook attention folds its attended 3x3 patches back into the map with ``F.fold`` (after
im2col.py's unfold). torch.export keeps col2im whole and pt2e annotated nothing in it, so it stayed float
on the CPU. Before annotation (``decompose_for_quantization``) the node becomes what it computes: the
columns read as [N*C, kh*kw, oh, ow]; each kernel offset's [N*C, 1, oh, ow] patch spread to the stride
(zeros after each element, then a reshape, where the stride is above 1) and placed at ``(i*dh, j*dw)`` of
the padded output between blocks of zeros; the kh*kw placed maps summed; the padding cut off. Slice,
reshape and concatenation keep the input's grid and the adds are add.py's, so every target runs it. FP
is left to to_edge: the cases run on the INT targets.

Zeros are concatenated (constants on the input's grid), not padded: on the U55, Vela 5.2.0 computes a
PAD of a channel slice wrong when its result feeds an ADD (``pad(x[:, 0:1]) + pad(x[:, 8:9])``: 222 of
256 values off on the NPU model; the slice, the PAD, and the ADD of two padded inputs alone are right,
as is the same graph with a MUL between slice and PAD, or with CONCAT in place of PAD). With PAD all
three cases departed on the U55 (up to 84 steps); with CONCAT they match there.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from arm.ops.common.arm_op import decomposed_op
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

_INT_TARGETS = ("tosa_INT", "u55_INT", "u85_INT", "vgf_INT")


def _pair(value: int | list[int]) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


def _zeros_around(build: AtenBuilder, piece: Node, dim: int, before: int, after: int, name: str) -> Node:
    """``piece`` between ``before`` and ``after`` zeros along ``dim``, as one concatenation with constants."""
    if not (before or after):
        return piece
    parts = []
    for side, count in (("before", before), ("after", after)):
        if count:
            extent = list(shape(piece))
            extent[dim] = count
            parts.append(build.constant(f"{name}_{side}", torch.zeros(extent)))
    if before:
        parts.insert(1, piece)
    else:
        parts.insert(0, piece)
    return build.call(torch.ops.aten.cat.default, parts, dim)


def _spread(build: AtenBuilder, patch: Node, dim: int, stride: int, name: str) -> Node:
    """A [B, 1, h, w] ``patch`` with stride - 1 zeros after each element along ``dim`` (2 or 3; the last
    element's zeros cut off). Every tensor stays 4-D: Vela 5.2.0's U55 command stream departed from the
    TOSA graph when col2im's pieces were 5-D."""
    if stride == 1:
        return patch
    aten = torch.ops.aten
    batch, _, height, width = shape(patch)
    if dim == 3:
        cells = build.call(aten.reshape.default, patch, [batch, height, width, 1])
        filled = _zeros_around(build, cells, 3, 0, stride - 1, name)
        flat = build.call(aten.reshape.default, filled, [batch, 1, height, width * stride])
        return build.call(aten.slice.Tensor, flat, 3, 0, (width - 1) * stride + 1)
    cells = build.call(aten.reshape.default, patch, [batch, height, 1, width])
    filled = _zeros_around(build, cells, 2, 0, stride - 1, name)
    flat = build.call(aten.reshape.default, filled, [batch, 1, height * stride, width])
    return build.call(aten.slice.Tensor, flat, 2, 0, (height - 1) * stride + 1)


def decompose(node: Node) -> None:
    x = node.args[0]
    (height, width), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (_pair(argument) for argument in node.args[1:6])
    if len(shape(x)) != 3:
        return  # an unbatched [C*kh*kw, L] input: left to to_edge
    batch, rows, _ = shape(x)
    channels = rows // (kh * kw)
    padded_h, padded_w = height + 2 * ph, width + 2 * pw
    out_h, out_w = (padded_h - dh * (kh - 1) - 1) // sh + 1, (padded_w - dw * (kw - 1) - 1) // sw + 1
    aten = torch.ops.aten
    build = AtenBuilder(node)
    # Batch and channels merged, so every piece is 4-D: [N*C, kh*kw, oh, ow].
    columns = build.call(aten.reshape.default, x, [batch * channels, kh * kw, out_h, out_w])
    total = None
    for i in range(kh):
        for j in range(kw):
            offset = i * kw + j
            patch = build.call(aten.slice.Tensor, columns, 1, offset, offset + 1)
            patch = _spread(build, _spread(build, patch, 3, sw, f"spread_w{offset}"), 2, sh, f"spread_h{offset}")
            rows_spread, cols_spread = shape(patch)[2:]
            placed = _zeros_around(build, patch, 3, j * dw, padded_w - j * dw - cols_spread, f"columns{offset}")
            placed = _zeros_around(build, placed, 2, i * dh, padded_h - i * dh - rows_spread, f"rows{offset}")
            total = placed if total is None else build.call(aten.add.Tensor, total, placed)
    if ph or pw:
        total = build.call(aten.slice.Tensor, total, 2, ph, ph + height)
        total = build.call(aten.slice.Tensor, total, 3, pw, pw + width)
    node.replace_all_uses_with(build.call(aten.reshape.default, total, [batch, channels, height, width]))


def outlook_fold(x: torch.Tensor) -> torch.Tensor:
    """VOLO's fold: 3x3 patches with padding 1 and stride 1 summed back into a 6x6 map."""
    return torch.nn.functional.fold(x, output_size=(6, 6), kernel_size=3, padding=1, stride=1)


def strided_fold(x: torch.Tensor) -> torch.Tensor:
    """VOLO-d1's first stage folds with stride 2: 3x3 patches every other pixel overlap by one row and column."""
    return torch.nn.functional.fold(x, output_size=(8, 8), kernel_size=3, padding=1, stride=2) * 0.5


def unfold_then_fold(x: torch.Tensor) -> torch.Tensor:
    """fold(unfold(x)) counts each pixel once per window that holds it (im2col.py and this file together)."""
    patches = torch.nn.functional.unfold(x, kernel_size=2, stride=1)
    return torch.nn.functional.fold(patches, output_size=x.shape[-2:], kernel_size=2, stride=1)


TEST_CASES = {
    "outlook_fold": OpTestCase(FunctionModule(outlook_fold), random_inputs(0, (1, 4 * 9, 36)), targets=_INT_TARGETS),
    "strided_fold": OpTestCase(FunctionModule(strided_fold), random_inputs(1, (1, 2 * 9, 16)), targets=_INT_TARGETS),
    "unfold_then_fold": OpTestCase(FunctionModule(unfold_then_fold), random_inputs(2, (1, 3, 5, 5)), targets=_INT_TARGETS),
}

OP = decomposed_op("col2im", (torch.ops.aten.col2im.default,), decompose, TEST_CASES)
