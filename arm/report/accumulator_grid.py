"""A quantized convolution's bias on its accumulator grid: the exact product of input and weight scales.

pt2e derives the bias grid of a convolution (and a linear) as input scale x weight scale, multiplied and
stored in float32, so the quantized model's bias ``b * fl32(s_x s_w)`` is off the grid ``s_x s_w`` its
integer accumulator sums on by up to half a float32 unit of the bias in relative terms. Every integer
program (ours and the peer's) adds the int32 bias ``b`` to that accumulator: it cannot hold the
difference, a few thousandths of an accumulator unit (YOLOv8n-OBB's conv2d_10: 28555.0015 units held
as 28555), about 1e-6 of an output step. That is float32's rounding of a scale, the noise the float64
evaluation of the quantized model exists to remove: a convolution output that the float32 product
puts 1e-6 of a step below a half step, and the exact product above it (where the integer program
lands), is a one-step flip that random-weight networks carry to tens of steps at their outputs
(ResNeXt-50: 29 steps from one value of its first grouped convolution; YOLOv8n-OBB: 8 from one value
of conv2d_10). The float64 evaluations (arm/report/float64_quantized.py, bisect --float64) therefore put
the bias on the exact product, which float64 holds exactly (two 24-bit significands), wherever the
stored bias scale is that product rounded to float32.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.fx import GraphModule, Node

from arm.report.provenance import is_dequantize


def accumulator_bias_scales(module: GraphModule) -> dict[str, torch.Tensor]:
    """For each bias dequantize whose scales are float32 roundings of input scale x weight scale (per
    output channel), that product in float64, by the dequantize node's name."""
    exact: dict[str, torch.Tensor] = {}
    for node in module.graph.nodes:
        if node.op != "call_function" or len(node.args) < 3:
            continue
        operand, weight, bias = node.args[:3]
        if not all(isinstance(value, Node) and is_dequantize(value) for value in (operand, weight, bias)):
            continue
        if torch.int32 not in bias.args:  # a bias is quantized to int32; an int8 third operand is no bias
            continue
        input_scale = _scales(module, operand)
        weight_scales = _scales(module, weight)
        bias_scales = _scales(module, bias)
        if input_scale is None or weight_scales is None or bias_scales is None or input_scale.numel() != 1:
            continue
        product = input_scale.double() * weight_scales.double()  # exact: 24 + 24 significant bits
        if product.numel() not in (1, bias_scales.numel()):
            continue
        product = product.expand(bias_scales.shape) if product.numel() == 1 else product.reshape(bias_scales.shape)
        if torch.equal(product.float(), bias_scales.float()):
            exact[bias.name] = product
    return exact


def _scales(module: GraphModule, dequantize: Node) -> torch.Tensor | None:
    """A dequantize's scale (a float or a tensor held by the module), as a float64 tensor."""
    scale = dequantize.args[1] if len(dequantize.args) > 1 else None
    if isinstance(scale, float):
        return torch.tensor([np.float32(scale)], dtype=torch.float64)
    if isinstance(scale, Node) and scale.op == "get_attr":
        owner = module
        for part in scale.target.split("."):
            owner = getattr(owner, part)
        return owner.detach().reshape(-1).double() if isinstance(owner, torch.Tensor) else None
    return None
