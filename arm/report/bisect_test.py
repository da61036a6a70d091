"""bisect --float64's oracle on exact half steps, without a compile: a mean onto its input's own grid.

MixNet-S's squeeze-excite means (2x2 maps, scale 0.011800775304436684 = a float32, zero point -104) sit
on a half step of their grid one time in four. Their exact value is a half step, which the quantized
model rounds to even; the float64 recorder must meet it exactly (exact fractions are the oracle here),
as models/quantized_float64.py does, or the bisect blames the mean's lowering for its own rounding.
"""

from __future__ import annotations

from fractions import Fraction

import torch

from arm.report.bisect import _Float64Recorder

_SCALE = 0.011800775304436684
_ZERO_POINT = -104
_QUANTIZE = torch.ops.quantized_decomposed.quantize_per_tensor.default
_DEQUANTIZE = torch.ops.quantized_decomposed.dequantize_per_tensor.default


class _SqueezeMean(torch.nn.Module):
    """dequantize, mean over H and W, quantize onto the same grid: the converted pt2e pattern."""

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        x = _DEQUANTIZE(codes, _SCALE, _ZERO_POINT, -128, 127, torch.int8)
        return _QUANTIZE(x.mean((2, 3), keepdim=True), _SCALE, _ZERO_POINT, -128, 127, torch.int8)


def _round_half_even(sums: torch.Tensor, count: int) -> torch.Tensor:
    return torch.tensor([round(Fraction(int(total), count)) for total in sums.reshape(-1)]).reshape(sums.shape)


def test_float64_mean_meets_half_steps_exactly():
    module = torch.fx.symbolic_trace(_SqueezeMean())
    codes = torch.randint(-128, 128, (4, 720, 2, 2), generator=torch.Generator().manual_seed(0), dtype=torch.int8)
    (mean,) = [node.name for node in module.graph.nodes if node.target == "mean"]
    (quantize,) = [node.name for node in module.graph.nodes if node.target == _QUANTIZE]
    recorder = _Float64Recorder(module, {mean, quantize})
    with torch.no_grad():
        recorder.run(codes)
    sums = (codes.to(torch.int64) - _ZERO_POINT).sum((2, 3), keepdim=True)
    ties = int(torch.count_nonzero(sums % 4 == 2))
    assert ties > 500  # about one average in four sits on a half step
    expected = _round_half_even(sums, 4) + _ZERO_POINT
    assert recorder.values[mean].dtype == torch.float64
    assert torch.equal(recorder.values[quantize].to(torch.int64), expected)
