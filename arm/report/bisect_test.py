"""The float64 oracles (bisect --float64, arm/report/float64_quantized.py) on hand-built converted graphs, no compile.

MixNet-S's squeeze-excite means (2x2 maps, scale 0.011800775304436684 = a float32, zero point -104) sit
on a half step of their grid one time in four. Their exact value is a half step, which the quantized
model rounds to even; the float64 recorder must meet it exactly (exact fractions are the oracle here),
as arm/report/float64_quantized.py does, or the bisect blames the mean's lowering for its own rounding.

A convolution's int32 bias sits on its accumulator grid (arm/report/accumulator_grid.py): both oracles
compute the convolution within float64's rounding of exact fractions on that grid.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import torch

from arm.report.accumulator_grid import accumulator_bias_scales
from arm.report.bisect import _Float64Recorder
from arm.report.float64_quantized import in_float64

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


_INPUT_SCALE = float(np.float32(0.0123))
_OUTPUT_SCALE = float(np.float32(0.05))
_DEQUANTIZE_PER_CHANNEL = torch.ops.quantized_decomposed.dequantize_per_channel.default


class _QuantizedConvolution(torch.nn.Module):
    """A converted pt2e 1x1 convolution: int8 weights per channel, an int32 bias whose scales are
    input scale x weight scale rounded to float32, as pt2e derives them."""

    def __init__(self, seed: int, channels: int = 64):
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        weight_scales = (torch.rand(channels, generator=generator) * 0.01 + 0.001).float()
        self.register_buffer("weight_codes", torch.randint(-127, 128, (channels, 8, 1, 1), generator=generator, dtype=torch.int8))
        self.register_buffer("weight_scales", weight_scales)
        # Large biases: float32's rounding of their scale is then thousandths of an accumulator unit.
        self.register_buffer("bias_codes", torch.randint(-(2**22), 2**22, (channels,), generator=generator, dtype=torch.int32))
        self.register_buffer("bias_scales", (weight_scales * _INPUT_SCALE).float())
        self.register_buffer("zero_points", torch.zeros(channels, dtype=torch.int64))

    def converted(self) -> torch.fx.GraphModule:
        """The graph pt2e's convert writes: each constant a get_attr feeding its dequantize."""
        graph = torch.fx.Graph()
        codes = graph.placeholder("codes")
        attr = {name: graph.get_attr(name) for name in ("weight_codes", "weight_scales", "bias_codes", "bias_scales", "zero_points")}
        x = graph.call_function(_DEQUANTIZE, (codes, _INPUT_SCALE, 0, -128, 127, torch.int8))
        w = graph.call_function(_DEQUANTIZE_PER_CHANNEL, (attr["weight_codes"], attr["weight_scales"], attr["zero_points"], 0, -127, 127, torch.int8))
        b = graph.call_function(_DEQUANTIZE_PER_CHANNEL, (attr["bias_codes"], attr["bias_scales"], attr["zero_points"], 0, -(2**31), 2**31 - 1, torch.int32))
        y = graph.call_function(torch.ops.aten.conv2d.default, (x, w, b))
        graph.output(graph.call_function(_QUANTIZE, (y, _OUTPUT_SCALE, 0, -128, 127, torch.int8)))
        return torch.fx.GraphModule(self, graph)


def _on_accumulator_grid(module: _QuantizedConvolution, codes: torch.Tensor) -> np.ndarray:
    """The convolution in output steps with the bias on the exact grid s_x * s_w, in exact fractions
    (what the integer program computes before its output RESCALE), as floats."""
    sums = torch.nn.functional.conv2d(codes.double(), module.weight_codes.double()).to(torch.int64)
    steps = np.empty(sums.shape)
    for index in np.ndindex(*sums.shape):
        channel = index[1]
        grid = Fraction(_INPUT_SCALE) * Fraction(float(module.weight_scales[channel]))
        steps[index] = float(grid * (int(sums[index]) + int(module.bias_codes[channel])) / Fraction(_OUTPUT_SCALE))
    return steps


def test_float64_bias_sits_on_the_accumulator_grid():
    original = _QuantizedConvolution(seed=1)
    module = original.converted()
    (bias,) = [node.name for node in module.graph.nodes if node.target == _DEQUANTIZE_PER_CHANNEL and "bias" in node.args[0].name]
    (convolution,) = [node.name for node in module.graph.nodes if node.target == torch.ops.aten.conv2d.default]
    scales = accumulator_bias_scales(module)
    exact = original.weight_scales.double() * _INPUT_SCALE
    assert set(scales) == {bias} and torch.equal(scales[bias], exact)
    assert not torch.equal(original.bias_scales.double(), exact)  # float32 rounded the product

    codes = torch.randint(-128, 128, (1, 8, 6, 6), generator=torch.Generator().manual_seed(2), dtype=torch.int8)
    expected = _on_accumulator_grid(original, codes)
    recorder = _Float64Recorder(module, {convolution})
    widened = _Float64Recorder(in_float64(module), {convolution})  # records; its graph is float64 already
    widened._bias_scales = {}
    with torch.no_grad():
        recorder.run(codes)
        widened.run(codes)
    # Float64's own rounding is about 1e-12 of a step here; the float32 bias scales put the values up to
    # 3e-4 of a step off (the outputs saturate: these are the convolution's values before quantizing).
    for values in (recorder.values[convolution], widened.values[convolution]):
        assert values.dtype == torch.float64
        assert np.abs(values.numpy() / _OUTPUT_SCALE - expected).max() < 1e-9


class _CheckedCast(torch.nn.Module):
    """dequantize, export's dtype check of a ``.float()`` cast (GPT-Neo's scores), doubled, quantize."""

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        x = _DEQUANTIZE(codes, _SCALE, _ZERO_POINT, -128, 127, torch.int8)
        torch.ops.aten._assert_tensor_metadata.default(x, dtype=torch.float32)
        return _QUANTIZE(x * 2.0, _SCALE, _ZERO_POINT, -128, 127, torch.int8)


def test_float64_oracles_pass_over_float32_dtype_checks():
    module = torch.fx.symbolic_trace(_CheckedCast())
    codes = torch.randint(-128, 128, (2, 40), generator=torch.Generator().manual_seed(3), dtype=torch.int8)
    expected = torch.clamp(torch.round((codes.double() - _ZERO_POINT) * 2.0) + _ZERO_POINT, -128, 127).to(torch.int8)
    (quantize,) = [node.name for node in module.graph.nodes if node.target == _QUANTIZE]
    recorder = _Float64Recorder(module, {quantize})
    with torch.no_grad():
        recorder.run(codes)
        widened = in_float64(module)(codes)
    assert torch.equal(recorder.values[quantize], expected)
    assert torch.equal(widened, expected)
