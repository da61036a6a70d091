"""How activations, weights and biases are quantized for the Arm NPUs."""

from __future__ import annotations

import dataclasses
from typing import Literal

import torch
from torch.fx import Node
from torchao.quantization.pt2e import (
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    ObserverOrFakeQuantize,
)
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationSpec,
)

# Smallest scale an observer may pick: keeps RESCALE shifts within TOSA's limit of 62.
_MIN_SCALE = 2**-16
_INT32 = torch.iinfo(torch.int32)

from arm.quantizer.tail_clipping_observer import TailClippingObserver
from arm.quantizer.weight_observers import PerChannelWeightObserver, PerTensorWeightObserver

ActivationObserver = Literal["tail_clipping", "minmax", "moving_average", "histogram"]

# Activation observers by name. "tail_clipping" is the default: MinMax's running extremes plus the
# values beyond half the range, from which the range leaves out the rarest 2e-5 of values on each
# side (tail_clipping_observer.py says why that is more accurate). It costs about what MinMax does
# and is as accurate as the histogram observer (the peer's default), which searches a 2048-bin
# histogram per tensor for the range with the least error at a higher calibration and convert cost.
# "minmax" never clips a calibrated value; the moving average damps outlier batches when there are
# many calibration samples.
_ACTIVATION_OBSERVERS = {
    "tail_clipping": TailClippingObserver,
    "minmax": MinMaxObserver,
    "moving_average": MovingAverageMinMaxObserver,
    "histogram": HistogramObserver,
}
DEFAULT_ACTIVATION_OBSERVER: ActivationObserver = "tail_clipping"


@dataclasses.dataclass(frozen=True)
class QuantizationConfig:
    """Specs for one model: int8 activations, int8 symmetric weights, int32 biases.

    Biases are derived per node (scale = input scale * weight scale) so the NPU can add them to the
    int32 accumulator without rescaling.
    """

    activation: QuantizationSpec
    weight: QuantizationSpec

    @property
    def is_per_channel(self) -> bool:
        return self.weight.qscheme == torch.per_channel_symmetric

    def bias(self, node: Node, input_node: Node, weight_node: Node) -> DerivedQuantizationSpec:
        return DerivedQuantizationSpec(
            derived_from=[(input_node, node), (weight_node, node)],
            derive_qparams_fn=_bias_qparams,
            dtype=torch.int32,
            quant_min=_INT32.min + 1,
            quant_max=_INT32.max,
            qscheme=self.weight.qscheme,
            ch_axis=0 if self.is_per_channel else None,
        )

    def with_per_tensor_weights(self) -> QuantizationConfig:
        """The same config with one weight scale per tensor, at the same weight width (for weights whose
        output channels no single axis holds, as a grouped transposed convolution's)."""
        if not self.is_per_channel:
            return self
        bits = (self.weight.quant_max + 1).bit_length()
        return dataclasses.replace(self, weight=_int8_weight_spec(False, bits=bits))

    def probability_output(self) -> FixedQParamsQuantizationSpec:
        """A fixed grid for outputs in [0, 1) (softmax): the activation type's whole range, step 1/range.

        Fixed rather than observed: the range is known, and a calibrated maximum below 1 would clip
        the confident predictions.
        """
        activation = self.activation
        symmetric = activation.qscheme == torch.per_tensor_symmetric
        levels = activation.quant_max + 1 if symmetric else activation.quant_max - activation.quant_min + 1
        return FixedQParamsQuantizationSpec(
            dtype=activation.dtype,
            scale=1.0 / levels,
            zero_point=0 if symmetric else activation.quant_min,
            quant_min=activation.quant_min,
            quant_max=activation.quant_max,
            qscheme=activation.qscheme,
        )


def get_symmetric_quantization_config(
    is_per_channel: bool = True, observer: ActivationObserver = DEFAULT_ACTIVATION_OBSERVER
) -> QuantizationConfig:
    """int8 affine activations (what Vela takes: any zero point), int8 symmetric weights in [-127, 127].

    Weights are per output channel unless ``is_per_channel`` is False. ``observer`` picks how
    activation ranges are calibrated (see ``_ACTIVATION_OBSERVERS``; "tail_clipping" is the default).
    """
    activation = QuantizationSpec(
        dtype=torch.int8,
        quant_min=-128,
        quant_max=127,
        qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=_activation_observer(observer).with_args(eps=_MIN_SCALE),
    )
    return QuantizationConfig(activation=activation, weight=_int8_weight_spec(is_per_channel))


def get_symmetric_a16w8_quantization_config(
    is_per_channel: bool = True, observer: ActivationObserver = "minmax"
) -> QuantizationConfig:
    """int16 symmetric activations (zero point 0, as TOSA's int16 operators need) with int8 weights.

    Sixteen-bit activations cost twice the memory traffic but cut activation rounding error 256-fold;
    Vela runs int16 x int8 convolutions with an int48 accumulator. Their observer stays MinMax: with
    rounding steps 256 times finer, clipping even the rarest values costs more than it saves.
    """
    activation = QuantizationSpec(
        dtype=torch.int16,
        quant_min=-32767,
        quant_max=32767,
        qscheme=torch.per_tensor_symmetric,
        observer_or_fake_quant_ctr=_activation_observer(observer).with_args(eps=_MIN_SCALE),
    )
    return QuantizationConfig(activation=activation, weight=_int8_weight_spec(is_per_channel))


def get_symmetric_a8w4_quantization_config(
    is_per_channel: bool = True, observer: ActivationObserver = DEFAULT_ACTIVATION_OBSERVER
) -> QuantizationConfig:
    """int8 activations with int4 weights: symmetric in [-7, 7], per output channel by default.

    Weights keep int8 storage (pt2e and TOSA constants of the INT profile are int8), holding int4
    values, as ExecuTorch's Arm quantizer does; a config meant for conv and linear (set it with
    ``set_module_type``), halving their weight resolution for a smaller, more compressible weight
    stream.
    """
    config = get_symmetric_quantization_config(is_per_channel, observer)
    return dataclasses.replace(config, weight=_int8_weight_spec(is_per_channel, bits=4))


def _activation_observer(name: str) -> type[ObserverOrFakeQuantize]:
    if name not in _ACTIVATION_OBSERVERS:
        raise ValueError(f"unknown activation observer {name!r}; choose one of {', '.join(_ACTIVATION_OBSERVERS)}")
    return _ACTIVATION_OBSERVERS[name]


def _int8_weight_spec(is_per_channel: bool, bits: int = 8) -> QuantizationSpec:
    """Symmetric weights in [-(2**(bits-1) - 1), 2**(bits-1) - 1], stored as int8."""
    weight_observer = PerChannelWeightObserver if is_per_channel else PerTensorWeightObserver
    limit = (1 << (bits - 1)) - 1
    return QuantizationSpec(
        dtype=torch.int8,
        quant_min=-limit,
        quant_max=limit,
        qscheme=torch.per_channel_symmetric if is_per_channel else torch.per_tensor_symmetric,
        ch_axis=0 if is_per_channel else None,
        observer_or_fake_quant_ctr=weight_observer.with_args(eps=_MIN_SCALE),
    )


def _bias_qparams(observers: list[ObserverOrFakeQuantize]) -> tuple[torch.Tensor, torch.Tensor]:
    activation_observer, weight_observer = observers
    activation_scale, _ = activation_observer.calculate_qparams()
    weight_scale, _ = weight_observer.calculate_qparams()
    # Kept in float64, where the product of two float32 scales is exact: the grid the int32 accumulator
    # adds the bias on. Rounded to float32, the quantized model's bias sits up to 2**-24 of itself off
    # that grid, which the integer program cannot follow (a sum that close to a half step rounds the
    # other way: MobileViT-xxs, bench/README.md "MobileViT-xxs U85 in float64, session 10").
    scale = activation_scale.to(torch.float64) * weight_scale.to(torch.float64)
    return scale, torch.zeros_like(weight_scale, dtype=torch.int32)
