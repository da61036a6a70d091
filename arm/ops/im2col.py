"""aten.im2col (``F.unfold`` / ``nn.Unfold``: sliding patches as columns), before quantization, as pad, strided slices and a cat.

ConvBERT's span-based dynamic convolution unfolds its [B, C, L, 1] values into 9-token windows with
``nn.Unfold``; VOLO's outlook attention and TNT's pixel embedding unfold images the same way. torch.export
keeps im2col whole, pt2e annotated nothing in it, and to_edge then wrote it as a constant pad and an
``index`` by two index tensors, which stayed float on the CPU (ConvBERT: 3 partitions, 91.7% on tosa-INT).
Before annotation (``decompose_for_quantization``) the node becomes what it computes: the input padded,
then for each of the kh*kw kernel offsets (i, j) the strided window ``xp[..., i*dh::sh, j*dw::sw]`` cut to
the output's extent, the windows stacked after the channels ([N, C, kh*kw, oh, ow]) and reshaped to
[N, C*kh*kw, oh*ow] (im2col's column order: channel-major, then kernel row, then kernel column). Pad,
slice, cat and reshape keep the input's grid and are data movement every target runs (a step above 1
is slice.py's strided form). FP is left to to_edge (its two-tensor index stays on the CPU there, with
index.py's reason): the cases run on the INT targets.
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


def decompose(node: Node) -> None:
    x = node.args[0]
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (_pair(argument) for argument in node.args[1:5])
    if len(shape(x)) != 4:
        return  # an unbatched [C, H, W] input: left to to_edge
    aten = torch.ops.aten
    build = AtenBuilder(node)
    padded = build.call(aten.constant_pad_nd.default, x, [pw, pw, ph, ph], 0.0) if ph or pw else x
    batch, channels, height, width = shape(padded)
    out_h, out_w = (height - dh * (kh - 1) - 1) // sh + 1, (width - dw * (kw - 1) - 1) // sw + 1
    windows = []
    for i in range(kh):
        rows = build.call(aten.slice.Tensor, padded, 2, i * dh, i * dh + (out_h - 1) * sh + 1, sh)
        for j in range(kw):
            window = build.call(aten.slice.Tensor, rows, 3, j * dw, j * dw + (out_w - 1) * sw + 1, sw)
            windows.append(build.call(aten.unsqueeze.default, window, 2))
    stacked = build.call(aten.cat.default, windows, 2) if len(windows) > 1 else windows[0]
    node.replace_all_uses_with(
        build.call(aten.reshape.default, stacked, [batch, channels * kh * kw, out_h * out_w])
    )


def token_windows(x: torch.Tensor) -> torch.Tensor:
    """ConvBERT's unfold: [B, C, L, 1] into 9-token windows around each token, zero-padded at the ends."""
    return torch.nn.functional.unfold(x, kernel_size=(9, 1), padding=(4, 0)) * 2.0


def outlook_patches(x: torch.Tensor) -> torch.Tensor:
    """VOLO's outlook unfold: 3x3 patches, padding 1, stride 1, read back as [B, C, 9, H*W]."""
    patches = torch.nn.functional.unfold(x, kernel_size=3, padding=1, stride=1)
    return patches.reshape(x.shape[0], x.shape[1], 9, -1).sum(2)


def strided_dilated(x: torch.Tensor) -> torch.Tensor:
    """A stride and a dilation of 2 with no padding: every slice is strided."""
    return torch.nn.functional.unfold(x, kernel_size=2, dilation=2, stride=2) + 0.5


TEST_CASES = {
    "token_windows": OpTestCase(FunctionModule(token_windows), random_inputs(0, (1, 16, 12, 1)), targets=_INT_TARGETS),
    "outlook_patches": OpTestCase(FunctionModule(outlook_patches), random_inputs(1, (1, 8, 6, 6)), targets=_INT_TARGETS),
    "strided_dilated": OpTestCase(FunctionModule(strided_dilated), random_inputs(2, (2, 3, 9, 9)), targets=_INT_TARGETS),
}

OP = decomposed_op("im2col", (torch.ops.aten.im2col.default,), decompose, TEST_CASES)
