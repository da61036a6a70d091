"""Either side's quantized torch model evaluated in float64: the reference bench.agreement holds a delegate to.

arm.report.float64_quantized does this for our flow's converted module (the decomposed quantize/dequantize
ops insist on float32, so it swaps them for float64 forms and widens the float constants). The peer's
converted module is the same kind of graph, with one more thing in it: its quantizer decomposes layer
norm, softmax and attention before annotation (its transform_for_annotation), and those decompositions
make tensors with factory ops (``aten.full`` for a softmax's or an attention's constants) that carry no
dtype, so torch makes them float32. A float32 constant in a float64 graph rounds the constant, not the
arithmetic, and promotion hides it; this module makes those factories float64 too, so neither side's
reference keeps a float32 value anywhere.
"""

from __future__ import annotations

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines the quantized_decomposed ops)

from arm.report.float64_quantized import as_float64, in_float64, quantize_in_float64

_ATEN = torch.ops.aten
_QDQ = torch.ops.quantized_decomposed

# Factory ops whose float result takes torch's default dtype (float32) unless a dtype is given.
_FACTORIES = frozenset(
    {
        _ATEN.full.default,
        _ATEN.zeros.default,
        _ATEN.ones.default,
        _ATEN.scalar_tensor.default,
        _ATEN.arange.default,
        _ATEN.arange.start,
        _ATEN.arange.start_step,
        _ATEN.empty.memory_format,
    }
)


def quantized_in_float64(module: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """A copy of a pt2e-converted module (ours or the peer's) that computes in float64 throughout, but
    for the quantize of each float program input: that one runs outside the delegate, on the CPU, and
    computes as the .pte's kernel does (float32), so the reference and the delegate start from the same
    input codes (bench.agreement feeds the delegate those codes). In float64 a pixel within float32's
    rounding of a half step gets another code (MobileViT-xxs 256: one pixel in 196,608 on two of four
    inputs, carried to 5-7 steps at the logits), and that difference is the CPU's, not the lowering's."""
    widened = in_float64(module)
    for node in widened.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is quantize_in_float64 and _is_program_input(node.args[0]):
            node.target = _quantize_as_the_pte
        elif node.kwargs.get("dtype") == torch.float32:
            node.kwargs = {**node.kwargs, "dtype": torch.float64}
        elif node.target in _FACTORIES and "dtype" not in node.kwargs and _makes_float32(node):
            node.kwargs = {**node.kwargs, "dtype": torch.float64}
    widened.recompile()
    return widened


def _is_program_input(value: object) -> bool:
    return isinstance(value, torch.fx.Node) and value.op == "placeholder"


def _quantize_as_the_pte(x, scale, zero_point, quant_min, quant_max, dtype):
    # The input is a float32 sample widened (exactly) to float64: narrowing it back is exact too.
    return _QDQ.quantize_per_tensor(x.to(torch.float32), scale, zero_point, quant_min, quant_max, dtype)


def _makes_float32(node: torch.fx.Node) -> bool:
    value = node.meta.get("val")
    if isinstance(value, torch.Tensor):
        return value.dtype == torch.float32
    # No traced value (a node a pass added without one): a float fill value makes a float tensor.
    return any(isinstance(arg, float) for arg in node.args)


def inputs_in_float64(sample: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """Float inputs widened; integer inputs (token ids) as they are."""
    return tuple(as_float64(tensor) for tensor in sample)
