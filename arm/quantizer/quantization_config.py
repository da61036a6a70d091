"""How activations, weights and biases are quantized for the Arm NPUs."""

from __future__ import annotations

import dataclasses

import torch
from torch.fx import Node
from torchao.quantization.pt2e import (
    HistogramObserver,
    MinMaxObserver,
    ObserverOrFakeQuantize,
    PerChannelMinMaxObserver,
)
from torchao.quantization.pt2e.quantizer import DerivedQuantizationSpec, QuantizationSpec

# Smallest scale an observer may pick: keeps RESCALE shifts within TOSA's limit of 62.
_MIN_SCALE = 2**-16
_INT32 = torch.iinfo(torch.int32)


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


def get_symmetric_quantization_config(is_per_channel: bool = True) -> QuantizationConfig:
    """int8 affine activations (what Vela takes: any zero point), int8 symmetric weights in [-127, 127].

    Weights are per output channel unless ``is_per_channel`` is False.
    """
    activation = QuantizationSpec(
        dtype=torch.int8,
        quant_min=-128,
        quant_max=127,
        qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=HistogramObserver.with_args(eps=_MIN_SCALE),
    )
    weight_observer = PerChannelMinMaxObserver if is_per_channel else MinMaxObserver
    weight = QuantizationSpec(
        dtype=torch.int8,
        quant_min=-127,
        quant_max=127,
        qscheme=torch.per_channel_symmetric if is_per_channel else torch.per_tensor_symmetric,
        ch_axis=0 if is_per_channel else None,
        observer_or_fake_quant_ctr=weight_observer.with_args(eps=_MIN_SCALE),
    )
    return QuantizationConfig(activation=activation, weight=weight)


def _bias_qparams(observers: list[ObserverOrFakeQuantize]) -> tuple[torch.Tensor, torch.Tensor]:
    activation_observer, weight_observer = observers
    activation_scale, _ = activation_observer.calculate_qparams()
    weight_scale, _ = weight_observer.calculate_qparams()
    scale = (activation_scale * weight_scale).to(torch.float32)
    return scale, torch.zeros_like(weight_scale, dtype=torch.int32)
