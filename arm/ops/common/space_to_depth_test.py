"""The space-to-depth rewrite of a strided convolution computes the same integer sums, for every small geometry.

A direct integer convolution (PyTorch's semantics: symmetric zero padding, dilation, floored output) is
the oracle; the rewrite's blocks (block_geometry.BlockAxis: rows read, zero rows completing a last block,
stride-1 padding in blocks) and its rearranged kernel must give exactly the same int64 results. The TOSA
emission itself is checked by conv2d's and conv1d's op cases (stride4_pad3, stride4_pad2_partial_blocks,
stride5x4_dilation2_groups2, k10_stride5_pad2) on the reference model and the NPU model.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from arm.ops.common.block_geometry import BlockAxis, block_weights


def _direct(x: np.ndarray, w: np.ndarray, stride: tuple[int, int], padding: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    (sy, sx), (py, px), (dy, dx) = stride, padding, dilation
    padded = np.pad(x, ((0, 0), (0, 0), (py, py), (px, px)))
    _, _, kh, kw = w.shape
    out_h = (padded.shape[2] - (kh - 1) * dy - 1) // sy + 1
    out_w = (padded.shape[3] - (kw - 1) * dx - 1) // sx + 1
    out = np.zeros((x.shape[0], w.shape[0], out_h, out_w), np.int64)
    for i, j in itertools.product(range(kh), range(kw)):
        window = padded[:, :, i * dy : i * dy + (out_h - 1) * sy + 1 : sy, j * dx : j * dx + (out_w - 1) * sx + 1 : sx]
        out += np.einsum("bchw,oc->bohw", window, w[:, :, i, j])
    return out


def _blocked(x: np.ndarray, w: np.ndarray, y: BlockAxis, x_axis: BlockAxis, channels_last: bool) -> np.ndarray:
    """The rewrite in numpy: rows read, zero rows completing the last block, blocks as channels (ordered
    (c, row, column), or (row, column, c) with ``channels_last``), stride 1."""
    value = x[:, :, : y.used, : x_axis.used]
    value = np.pad(value, ((0, 0), (0, 0), (0, y.completed), (0, x_axis.completed)))
    batch, channels, height, width = value.shape
    depth = value.reshape(batch, channels, height // y.stride, y.stride, width // x_axis.stride, x_axis.stride)
    depth = depth.transpose((0, 3, 5, 1, 2, 4) if channels_last else (0, 1, 3, 5, 2, 4)).reshape(batch, channels * y.stride * x_axis.stride, height // y.stride, width // x_axis.stride)
    depth = np.pad(depth, ((0, 0), (0, 0), (y.pad_before, y.pad_after), (x_axis.pad_before, x_axis.pad_after)))
    return _direct(depth, block_weights(w, y, x_axis, channels_last=channels_last), (1, 1), (0, 0), (1, 1))


_GEOMETRIES = [
    # (size, kernel, stride, padding, dilation) per axis
    (size, kernel, stride, padding, dilation)
    for size in (7, 12, 13, 16)
    for kernel in (1, 2, 3, 7)
    for stride in (4, 5)
    for padding in (0, 1, 2, 3)
    for dilation in (1, 2)
    if (kernel - 1) * dilation + 1 <= size + 2 * padding
]


@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("stride", [4, 5, 8])
def test_every_small_geometry_gives_the_same_sums(stride: int, channels_last: bool) -> None:
    generator = np.random.default_rng(stride)
    checked = 0
    for size, kernel, _, padding, dilation in _GEOMETRIES:
        axis = BlockAxis.plan(size, kernel, stride, padding, dilation)
        if axis is None:  # only padding under the window: the plain lowering takes it
            continue
        x = generator.integers(-128, 128, (1, 2, size, 9)).astype(np.int64)
        w = generator.integers(-127, 128, (3, 2, kernel, 3)).astype(np.int64)
        columns = BlockAxis.plan(9, 3, 4, 1, 1)
        want = _direct(x, w, (stride, 4), (padding, 1), (dilation, 1))
        got = _blocked(x, w, axis, columns, channels_last)
        assert got.shape == want.shape and np.array_equal(got, want), (size, kernel, stride, padding, dilation)
        checked += 1
    assert checked > 150


def test_pvt_and_poolformer_stems_read_whole_blocks() -> None:
    # PVT-v2's 7x7 stride-4 padding-3 stem at 224: one block of padding before, two taps, nothing to complete.
    assert BlockAxis.plan(224, 7, 4, 3, 1) == BlockAxis(4, 1, 1, 2, 1, 0, 224, 0)
    # PoolFormer-v2's padding 2: the kernel shifts by 2 in its first block, three taps, a block of padding after.
    assert BlockAxis.plan(64, 7, 4, 2, 1) == BlockAxis(4, 1, 2, 3, 1, 1, 64, 0)
    # A ViT's 16x16 patches: one tap, no padding (the patch embedding of earlier sessions).
    assert BlockAxis.plan(224, 16, 16, 0, 1) == BlockAxis(16, 1, 0, 1, 0, 0, 224, 0)
