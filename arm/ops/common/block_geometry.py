"""The geometry of a strided convolution rewritten over space-to-depth blocks (see space_to_depth.py).

Numbers only (numpy, no graph), so that space_to_depth_test.py checks the algebra exhaustively over
small geometries against a direct convolution without importing torch.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class BlockAxis:
    """One spatial axis of the rewrite.

    ``stride`` is the block size; ``shift`` the kernel's offset d inside its first block; ``taps`` the
    stride-1 kernel's extent in blocks; ``pad_before``/``pad_after`` the stride-1 convolution's padding in
    blocks; ``used`` how many input rows the blocks cover (rows past it are never read), ``completed`` how
    many zero-point rows complete a last, partial block (0 or less than ``stride``).
    """

    stride: int
    dilation: int
    shift: int
    taps: int
    pad_before: int
    pad_after: int
    used: int
    completed: int

    @property
    def blocks(self) -> int:
        return (self.used + self.completed) // self.stride

    @classmethod
    def plan(cls, size: int, kernel: int, stride: int, padding: int, dilation: int) -> BlockAxis | None:
        """The axis of a PyTorch convolution (symmetric ``padding``, floored output); None when no output
        reads an input row (a window over padding only), which the plain lowering handles."""
        extent = (kernel - 1) * dilation + 1
        outputs = (size + 2 * padding - extent) // stride + 1
        shift = -padding % stride
        pad_before = (padding + shift) // stride
        taps = -(-(shift + extent) // stride)
        needed = outputs + taps - 1 - pad_before  # blocks 0 .. needed-1 hold every input row an output reads
        if outputs < 1 or needed < 1:
            return None
        full = size // stride
        if needed <= full:
            return cls(stride, dilation, shift, taps, pad_before, 0, needed * stride, 0)
        completed = -size % stride
        blocks = (size + completed) // stride
        return cls(stride, dilation, shift, taps, pad_before, needed - blocks, size, completed)


def block_weights(weights: np.ndarray, y: BlockAxis, x: BlockAxis, *, channels_last: bool = False) -> np.ndarray:
    """PyTorch [O, I, KH, KW] weights as the stride-1 kernel over blocks: [O, I*s_y*s_x, taps_y, taps_x],
    input channels ordered (i, row in block, column in block) as the space-to-depth stacks them, or
    (row, column, i) with ``channels_last``."""
    out_channels, in_channels, kernel_h, kernel_w = weights.shape
    blocked = np.zeros((out_channels, in_channels, y.taps * y.stride, x.taps * x.stride), weights.dtype)
    rows = y.shift + np.arange(kernel_h) * y.dilation
    columns = x.shift + np.arange(kernel_w) * x.dilation
    blocked[:, :, rows[:, None], columns[None, :]] = weights
    # [O, I, taps_y, s_y, taps_x, s_x] -> [O, I, s_y, s_x, taps_y, taps_x]
    blocked = blocked.reshape(out_channels, in_channels, y.taps, y.stride, x.taps, x.stride)
    blocked = blocked.transpose(0, 3, 5, 1, 2, 4) if channels_last else blocked.transpose(0, 1, 3, 5, 2, 4)
    return np.ascontiguousarray(blocked.reshape(out_channels, in_channels * y.stride * x.stride, y.taps, x.taps))
