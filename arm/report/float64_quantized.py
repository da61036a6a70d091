"""A pt2e-quantized module evaluated in float64: the oracle a delegated integer program is held to.

The converted module has the same graph, integer weights and grids as the program the flow lowers;
evaluated in float32, its convolutions land on the other side of a rounding tie now and then (about 1
in 8000 values), and deep networks with random weights amplify each such 1-LSB step (RegNetX-400MF: up
to 100 LSB by its last block, where float64 and the TOSA graph agree exactly). In float64 the module
measures the lowering, not torch's rounding noise. For the same reason a convolution's bias sits on
its accumulator grid, the exact product of input and weight scales, where pt2e stored that product
rounded to float32 (arm/report/accumulator_grid.py).

The forms live here, below both of their users: the whole-module oracle (``in_float64``: the zoo tests,
the op harness, bench's agreement) and the layer-by-layer one (bisect --float64), so the two cannot
drift apart. (They sat in models/ until session 12, where bisect could not import them: //models
depended on //arm/report for the accumulator grid.)
"""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines the quantized_decomposed ops named below)

from arm.report.accumulator_grid import accumulator_bias_scales


def quantize_in_float64(x, scale, zero_point, quant_min, quant_max, dtype, **kwargs):
    """Divides by the scale, where torch's kernel multiplies by ``1 / scale``: an exact half step (a mean
    of codes on its input's grid, summed exactly in float64) then lands on the half step and rounds to
    even, where the rounded reciprocal put some of MixNet-S's squeeze-excite ties a hair to one side."""
    return torch.clamp(torch.round(x.double() / float(scale)) + int(zero_point), quant_min, quant_max).to(dtype)


def dequantize_in_float64(x, scale, zero_point, quant_min, quant_max, dtype, **kwargs):
    return (x.double() - int(zero_point)) * float(scale)


def dequantize_per_channel_in_float64(x, scales, zero_points, axis, quant_min, quant_max, dtype, **kwargs):
    shape = [1] * x.dim()
    shape[axis] = -1
    return (x.double() - zero_points.view(shape).double()) * scales.view(shape).double()


# The decomposed (de)quantize ops insist on float32; these compute the same in float64.
FLOAT64_FORMS = {
    torch.ops.quantized_decomposed.quantize_per_tensor.default: quantize_in_float64,
    torch.ops.quantized_decomposed.dequantize_per_tensor.default: dequantize_in_float64,
    torch.ops.quantized_decomposed.dequantize_per_channel.default: dequantize_per_channel_in_float64,
}


def in_float64(module: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """A copy of the quantized module that computes in float64 (its float constants become float64)."""
    copied = copy.deepcopy(module)
    _bias_on_accumulator_grid(copied)
    for node in list(copied.graph.nodes):
        if node.op == "call_function" and node.target is torch.ops.aten._assert_tensor_metadata.default:
            copied.graph.erase_node(node)  # export's check of a .float() cast would refuse the float64 values
        elif node.op == "call_function" and node.target in FLOAT64_FORMS:
            node.target = FLOAT64_FORMS[node.target]
        elif node.op == "get_attr":
            # Targets are dotted paths into submodules (ConvNeXt: "stages.0.blocks.0.gamma").
            *path, name = node.target.split(".")
            owner = copied
            for part in path:
                owner = getattr(owner, part)
            value = getattr(owner, name)
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                double = value.double()
                is_parameter = isinstance(value, torch.nn.Parameter)
                setattr(owner, name, torch.nn.Parameter(double, requires_grad=False) if is_parameter else double)
    copied.recompile()
    return copied.double()


def _bias_on_accumulator_grid(module: torch.fx.GraphModule) -> None:
    """Each bias dequantize with a float32-rounded product scale reads the exact product instead."""
    by_name = {node.name: node for node in module.graph.nodes}
    for name, scales in accumulator_bias_scales(module).items():
        dequantize = by_name[name]
        attribute = f"_accumulator_scales_{name}"
        module.register_buffer(attribute, scales)
        with module.graph.inserting_before(dequantize):
            exact = module.graph.get_attr(attribute)
        dequantize.args = (dequantize.args[0], exact, *dequantize.args[2:])


def output_grids(module: torch.fx.GraphModule) -> list[tuple[float, int] | None]:
    """(scale, zero point) of each module output's dequantize, in output order; ``None`` off the grid."""
    (output,) = [node for node in module.graph.nodes if node.op == "output"]
    values = output.args[0] if isinstance(output.args[0], (tuple, list)) else [output.args[0]]
    grids: list[tuple[float, int] | None] = []
    for value in values:
        is_dequantize = isinstance(value, torch.fx.Node) and "dequantize_per_tensor" in str(value.target)
        grids.append((float(value.args[1]), int(value.args[2])) if is_dequantize else None)
    return grids


def as_float64(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.double() if tensor.is_floating_point() else tensor


def on_grid(real: torch.Tensor | np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """The integers a real-valued output stands for on its (scale, zero point) grid."""
    values = real.double().numpy() if isinstance(real, torch.Tensor) else np.asarray(real, np.float64)
    return (np.round(values / scale) + zero_point).astype(np.int64)
